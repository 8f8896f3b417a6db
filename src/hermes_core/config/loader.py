"""Read ``$HERMES_HOME/config.yaml``: ``mcp_servers`` validated, every problem at file:line.

The file is read with ruamel.yaml's round-trip loader, so each key keeps its
position; a bad value is reported as ``<file>:<line>: mcp_servers.<server>.<key>:
<what is wrong>`` and nothing else (no pydantic dump, no value, no traceback).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError
from pydantic_core import ErrorDetails
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from hermes_core.config.call_settings import interceptor_problem
from hermes_core.config.checks import kind_of
from hermes_core.config.defaults import SERVER_NAME
from hermes_core.config.document import HermesConfig
from hermes_core.config.errors import ConfigError, ConfigWarning
from hermes_core.config.kinds import ServerKinds
from hermes_core.config.plugin_settings import SettingsShape
from hermes_core.config.sampling import SamplingConfig
from hermes_core.config.server import ServerConfig
from hermes_core.config.top_keys import unknown_key_reason
from hermes_core.home import config_path, hermes_home
from hermes_core.spelling import closest
from hermes_core.yaml_input import YamlInputError, load_yaml
from hermes_core.yaml_lines import line_of, plain

__all__ = [
    "LoadedConfig",
    "check_interceptor_settings",
    "check_interceptors",
    "check_sampling_backends",
    "check_settings_block",
    "config_path",
    "hermes_home",
    "load_config",
    "parse_config_text",
]

_MAX_FILE_BYTES = 16 * 1024 * 1024
# A plain scalar as written (numbers, booleans): up to a space, comment or flow delimiter.
_PLAIN_TOKEN = re.compile(r"[^\s,\]}#]+")


@dataclass(frozen=True)
class LoadedConfig:
    """A read ``config.yaml``: the parsed config and what was noticed on the way."""

    path: Path
    config: HermesConfig
    warnings: tuple[ConfigWarning, ...] = ()
    errors: tuple[ConfigError, ...] = ()
    """Problems of servers that were left out (only with ``strict=False``)."""
    unavailable: tuple[tuple[str, ConfigError], ...] = ()
    """Servers left out because they need a plugin that is not loaded (``--no-plugins``,
    ``HERMES_DISABLE_PLUGINS``): each name with its problem.  They fail alone, strict or not."""
    exists: bool = False
    digest: str | None = None
    """SHA-256 of the file's bytes (``None`` when there is no file), to notice changes."""
    tree: CommentedMap | None = field(default=None, compare=False, repr=False)

    def line_of(self, key_path: str) -> int | None:
        """The 1-based line of *key_path* (``mcp_servers.github.env``) in the file."""
        return line_of(self.tree, key_path) if self.tree is not None else None


def load_config(
    path: str | os.PathLike[str] | None = None,
    *,
    strict: bool = True,
    kinds: ServerKinds | None = None,
) -> LoadedConfig:
    """Read the configuration file (default ``$HERMES_HOME/config.yaml``).

    *kinds* are the transports and auth providers entries may select (the plugin
    manager's: see :class:`hermes_core.host.setup.factory.HostFactory`); without it, the
    built-in ones only, so a plugin's name is an unknown name.

    A missing file is an empty configuration.  With ``strict`` (the default)
    any invalid server raises :class:`ConfigError` (the first problem, the
    others in ``more``); with ``strict=False`` invalid servers are left out and
    their problems listed in ``errors``.  Bad YAML always raises.
    """
    target = Path(path) if path is not None else config_path()
    label = str(target)
    try:
        with open(target, "rb") as fh:
            raw = fh.read(_MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return LoadedConfig(target, HermesConfig())
    except OSError as exc:
        reason = f"cannot read the file: {exc.strerror or type(exc).__name__}"
        raise ConfigError(reason, path=label) from None
    if len(raw) > _MAX_FILE_BYTES:
        raise ConfigError(f"the file is larger than {_MAX_FILE_BYTES} bytes", path=label)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"the file is not UTF-8 ({exc.reason})", path=label) from None
    loaded = parse_config_text(text, label, strict=strict, kinds=kinds)
    return LoadedConfig(
        target,
        loaded.config,
        loaded.warnings,
        loaded.errors,
        loaded.unavailable,
        exists=True,
        digest=hashlib.sha256(raw).hexdigest(),
        tree=loaded.tree,
    )


def check_sampling_backends(
    loaded: LoadedConfig,
    registered: list[str],
    settings: Mapping[str, SettingsShape] | None = None,
) -> None:
    """``sampling.backend`` must name a registered backend (file:line, listing them), and
    each block of ``sampling_backends:`` a registered backend, its settings fitting the
    backend's model (*settings*: name → shape)."""
    check_backend_settings(loaded, registered, settings or {})
    blocks = [("sampling", loaded.config.sampling)] + [
        (f"mcp_servers.{name}.sampling", cfg.sampling)
        for name, cfg in loaded.config.mcp_servers.items()
    ]
    for key, block in blocks:
        if block is None or block.backend is None or block.backend in registered:
            continue
        if "${" in block.backend:
            continue  # named by a variable: expanded when the servers connect
        valid = ", ".join(registered) if registered else "none (pip install hermes-llm)"
        raise ConfigError(
            f"no sampling backend named {block.backend!r} (registered: {valid})",
            path=str(loaded.path),
            line=loaded.line_of(f"{key}.backend"),
            key=f"{key}.backend",
        )


def check_interceptors(loaded: LoadedConfig, registered: Iterable[str]) -> None:
    """Every name under ``interceptors:`` (host-wide and per server) must be a registered call
    interceptor (file:line, with a did-you-mean)."""
    config = loaded.config
    placed = [("interceptors", i, n) for i, n in enumerate(config.interceptors)]
    for name, cfg in config.mcp_servers.items():
        key = f"mcp_servers.{name}.interceptors"
        placed += [(key, i, n) for i, n in enumerate(cfg.interceptors)]
    problem = interceptor_problem(placed, registered)
    if problem is not None:
        key, reason = problem
        raise ConfigError(reason, path=str(loaded.path), line=loaded.line_of(key), key=key)


def parse_yaml(text: str, label: str) -> object:
    """The round-trip tree of *text*; bad YAML is a :class:`ConfigError` at its line.

    Tags, deep nesting and alias bombs are refused (:mod:`hermes_core.yaml_input`).
    """
    try:
        return load_yaml(text)
    except YamlInputError as exc:
        raise ConfigError(exc.problem, path=label, line=exc.line) from None


def parse_config_text(
    text: str,
    path: str = "config.yaml",
    *,
    strict: bool = True,
    kinds: ServerKinds | None = None,
) -> LoadedConfig:
    """Parse the text of a ``config.yaml``; *path* labels every message."""
    tree = parse_yaml(text, path)
    if tree is None:
        return LoadedConfig(Path(path), HermesConfig(), exists=True)
    if not isinstance(tree, CommentedMap):
        raise ConfigError(
            f"the file must be a mapping of settings such as mcp_servers: (got {kind_of(tree)})",
            path=path,
            line=1,
        )
    others = {
        str(key): plain(value)
        for key, value in tree.items()
        if key not in ("mcp_servers", "sampling")
    }
    servers_node = tree.get("mcp_servers")
    servers: dict[str, ServerConfig] = {}
    warnings: list[ConfigWarning] = []
    errors: list[ConfigError] = []
    unavailable: list[tuple[str, ConfigError]] = []
    off = kinds.plugins_off if kinds is not None else ""
    if isinstance(servers_node, CommentedMap):
        lines = text.splitlines()
        for name, node in servers_node.items():
            cfg, problems, noticed = _load_server(name, node, servers_node, path, lines, kinds)
            warnings.extend(noticed)
            if off and problems and all(p.plugin for p in problems):
                head = _first(problems)
                reason = f"{head.reason} — {off}, so this server is not available"
                unavailable.append(
                    (str(name), ConfigError(reason, path=head.path, line=head.line, key=head.key))
                )
                continue
            errors.extend(problems)
            if cfg is not None and not problems:
                servers[str(name)] = cfg
    elif servers_node is not None:
        errors.append(
            ConfigError(
                f"must be a mapping of server names to their settings "
                f"(got {kind_of(plain(servers_node))})",
                path=path,
                line=line_of(tree, "mcp_servers"),
                key="mcp_servers",
            )
        )
    sampling, problems = _load_sampling(tree, path)
    errors.extend(problems)
    errors.extend(_unknown_top_keys(tree, path, kinds.blocks if kinds is not None else ()))
    if errors and strict:
        raise _first(errors)
    try:
        config = HermesConfig.model_validate(
            {**others, "mcp_servers": servers, "sampling": sampling}
        )
    except ValidationError as exc:  # a top-level block (audit:, results:, ...): at its line
        error = exc.errors(include_url=False, include_input=True)[0]
        loc = tuple(error["loc"]) + tuple((error.get("ctx") or {}).get("sub", ()))
        dotted = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)
        key = dotted.lstrip(".")
        line = line_of(tree, key) or (line_of(tree, str(loc[0])) if loc else None)
        raise ConfigError(validation_reason(error), path=path, line=line, key=key) from None
    return LoadedConfig(
        Path(path),
        config,
        tuple(warnings),
        tuple(errors),
        tuple(unavailable),
        exists=True,
        tree=tree,
    )


def _load_sampling(
    tree: CommentedMap, path: str
) -> tuple[SamplingConfig | None, list[ConfigError]]:
    """The top-level ``sampling:`` block (host-wide defaults), every problem at its line."""
    if "sampling" not in tree:
        return None, []
    node = tree["sampling"]
    try:
        return SamplingConfig.model_validate(plain(node)), []
    except ValidationError as exc:
        problems = []
        for error in exc.errors(include_url=False, include_input=True):
            loc = tuple(error["loc"]) + tuple((error.get("ctx") or {}).get("sub", ()))
            dotted = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)
            line = line_of(node, dotted.lstrip(".")) if dotted and node is not None else None
            problems.append(
                ConfigError(
                    validation_reason(error),
                    path=path,
                    line=line or line_of(tree, "sampling"),
                    key="sampling" + dotted,
                )
            )
        return None, problems


def _unknown_top_keys(
    tree: CommentedMap, path: str, blocks: Iterable[str] = ()
) -> list[ConfigError]:
    """Every top-level key that is neither Hermes core's, the agent's nor a plugin's *blocks*
    (the call interceptors' settings), at its line."""
    problems = []
    owned = set(blocks)
    for key in tree:
        if str(key) in owned:
            continue
        reason = unknown_key_reason(str(key))
        if reason is not None:
            line = tree.lc.key(key)[0] + 1
            problems.append(ConfigError(reason, path=path, line=line, key=str(key)))
    return problems


def _first(errors: list[ConfigError]) -> ConfigError:
    ordered = sorted(errors, key=lambda e: (e.line is None, e.line or 0))
    head = ordered[0]
    return ConfigError(
        head.reason, path=head.path, line=head.line, key=head.key, more=tuple(ordered[1:])
    )


def _load_server(
    name: object,
    node: object,
    servers_node: CommentedMap,
    path: str,
    lines: list[str],
    kinds: ServerKinds | None = None,
) -> tuple[ServerConfig | None, list[ConfigError], list[ConfigWarning]]:
    name_line = servers_node.lc.key(name)[0] + 1
    if not isinstance(name, str):
        reason = f"server names must be text (got {kind_of(name)}); put the name in quotes"
        return None, [ConfigError(reason, path=path, line=name_line, key=f"mcp_servers.{name}")], []
    if not SERVER_NAME.fullmatch(name):
        reason = (
            "server names start with a letter or digit and use only letters, digits, "
            "'_', '.' and '-' (at most 64 characters)"
        )
        return None, [ConfigError(reason, path=path, line=name_line, key=f"mcp_servers.{name}")], []
    if node is not None and not isinstance(node, CommentedMap):
        reason = f"must be a mapping of settings such as command: or url: (got {kind_of(node)})"
        return None, [ConfigError(reason, path=path, line=name_line, key=f"mcp_servers.{name}")], []
    raw = plain(node) if node is not None else {}
    if node is not None:
        _keep_scalar_text(node, raw, lines)
    cfg, problems, noticed = validate_server(
        name, raw, path=path, node=node, name_line=name_line, kinds=kinds
    )
    if cfg is not None:
        cfg.with_origin(path, node)
    return cfg, problems, noticed


def validate_server(
    name: str,
    raw: object,
    *,
    path: str | None = None,
    node: object = None,
    name_line: int | None = None,
    kinds: ServerKinds | None = None,
) -> tuple[ServerConfig | None, list[ConfigError], list[ConfigWarning]]:
    """Validate one server entry: ``(config or None, problems, warnings)``, keys named
    ``mcp_servers.<name>.<key>`` and placed on their line when *node* is the YAML node;
    ``transport:``/``auth:`` are checked against *kinds* (default: the built-in ones)."""
    sink: list[tuple[tuple[str | int, ...], str]] = []
    prefix = f"mcp_servers.{name}"

    def place(sub: tuple[str | int, ...]) -> tuple[str, int | None]:
        dotted = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in sub)
        line = line_of(node, dotted.lstrip(".")) if node is not None and dotted else None
        return prefix + dotted, line or name_line

    try:
        cfg = ServerConfig.model_validate(
            raw, context={"warnings": sink, "kinds": kinds, "name": name}
        )
    except ValidationError as exc:
        problems = []
        for error in exc.errors(include_url=False, include_input=True):
            ctx = error.get("ctx") or {}
            loc = tuple(error["loc"]) + tuple(ctx.get("sub", ()))
            key, line = place(loc)
            plugin = bool(ctx.get("plugin"))
            problems.append(
                ConfigError(validation_reason(error), path=path, line=line, key=key, plugin=plugin)
            )
        return None, problems, []
    noticed = []
    for sub, message in sink:
        key, line = place(sub)
        noticed.append(ConfigWarning(message, path=path, line=line, key=key))
    return cfg, [], noticed


def validation_reason(error: ErrorDetails) -> str:
    """Our sentence for a validation error: never the input, only what kind it was."""
    kind = error.get("type", "")
    if kind == "hermes_config":
        return str(error["ctx"]["reason"])
    got = f" (got {kind_of(error.get('input'))})" if "input" in error else ""
    if kind == "missing":
        return "is required"
    if kind.startswith("string"):
        return f"must be text{got}"
    if kind.startswith(("float", "int")):
        return f"must be a number{got}"
    if kind.startswith("bool"):
        return f"must be true or false{got}"
    if kind.startswith("dict") or kind == "model_type":
        return f"must be a mapping{got}"
    if kind.startswith("list"):
        return f"must be a list{got}"
    if kind == "literal_error":
        expected = (error.get("ctx") or {}).get("expected", "")
        return f"must be one of {expected}"
    return "is not valid"


def _keep_scalar_text(node: CommentedMap, raw: dict[str, object], lines: list[str]) -> None:
    """Numbers and booleans where text is expected (``PORT: 8080``) keep their spelling."""
    for key in ("env", "headers"):
        sub, plain = node.get(key), raw.get(key)
        if isinstance(sub, CommentedMap) and isinstance(plain, dict):
            for name, value in sub.items():
                if _wants_text(value):
                    plain[name] = _source(lines, sub.lc.value(name), value)
    for owner, key in ((node, "args"), (node, "client_cert")):
        _keep_seq(owner.get(key), raw.get(key), lines)
    tools, plain_tools = node.get("tools"), raw.get("tools")
    if isinstance(tools, CommentedMap) and isinstance(plain_tools, dict):
        for key in ("include", "exclude"):
            _keep_seq(tools.get(key), plain_tools.get(key), lines)


def _keep_seq(seq: object, plain: object, lines: list[str]) -> None:
    if isinstance(seq, CommentedSeq) and isinstance(plain, list):
        for index, value in enumerate(seq):
            if _wants_text(value):
                plain[index] = _source(lines, seq.lc.item(index), value)


def _wants_text(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, str)


def _source(lines: list[str], position: tuple[int, int], value: object) -> object:
    try:
        line, column = position
        match = _PLAIN_TOKEN.match(lines[line], column)
    except (TypeError, ValueError, IndexError):
        return value
    token = match.group(0) if match else ""
    if not token or token[0] in "*&!":
        return value
    return token


def check_backend_settings(
    loaded: LoadedConfig, registered: list[str], settings: Mapping[str, SettingsShape]
) -> None:
    """``sampling_backends.<name>``: a registered backend's settings (file:line errors)."""
    tree = loaded.tree
    block = tree.get("sampling_backends") if isinstance(tree, Mapping) else None
    if block is None:
        return

    def fail(key: str, reason: str) -> ConfigError:
        return ConfigError(reason, path=str(loaded.path), line=loaded.line_of(key), key=key)

    if not isinstance(block, Mapping):
        raise fail("sampling_backends", "must be a mapping of sampling backend names to settings")
    for name, value in block.items():
        key = f"sampling_backends.{name}"
        if name not in registered:
            close = closest(str(name), registered)
            hint = f"did you mean {close!r}? " if close else ""
            valid = ", ".join(registered) or "none"
            raise fail(key, f"no sampling backend named {str(name)!r} ({hint}registered: {valid})")
        if not isinstance(value, Mapping):
            raise fail(key, "must be a mapping of the backend's settings")
        shape = settings.get(str(name))
        if shape is not None:
            check_settings_block(loaded, key, value, shape)


def check_interceptor_settings(loaded: LoadedConfig, settings: Mapping[str, SettingsShape]) -> None:
    """Each call interceptor's top-level settings block (named after it) fits the
    interceptor's settings model (*settings*: name → shape; file:line errors)."""
    tree = loaded.tree
    if not isinstance(tree, Mapping):
        return
    for name, shape in settings.items():
        value = tree.get(name)
        if value is None:
            continue
        if not isinstance(value, Mapping):
            raise ConfigError(
                f"must be a mapping of the {name!r} interceptor's settings",
                path=str(loaded.path),
                line=loaded.line_of(name),
                key=name,
            )
        check_settings_block(loaded, name, value, shape)


def check_settings_block(
    loaded: LoadedConfig, key: str, value: Mapping[str, object], shape: SettingsShape
) -> None:
    """A plugin's settings block at *key* checked against *shape* (``ConfigError`` at the
    offending key's line)."""
    problem = shape.problem(plain(value))
    if problem is not None:
        where, reason = problem
        sub = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in where)
        raise ConfigError(
            reason, path=str(loaded.path), line=loaded.line_of(key + sub), key=key + sub
        )
