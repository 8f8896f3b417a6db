"""``${…}`` in server entries, resolved at connect time; and the ``$HERMES_HOME/.env`` reader.

:func:`resolve` is pure: the environment, the ``.env`` values and the
workspace are passed in, and the result is a new :class:`ServerConfig`.

* ``${VAR}`` / ``${env:VAR}``: the process environment first, then ``.env``.
* ``${VAR:-default}`` (also ``${env:VAR:-default}``): *default* when ``VAR`` is unset
  or empty, as in a POSIX shell and Claude Code; *default* is taken literally.
* ``${userHome}``, ``${workspaceFolder}``, ``${workspaceFolderBasename}``,
  ``${pathSeparator}`` and ``${/}`` (exact, case-sensitive; they win over an
  environment variable of the same name).
* ``$${`` is a literal ``${``.  Substituted text is never expanded again.
* An unset variable, ``${}`` or an unterminated ``${`` is a :class:`ConfigError`
  naming the key, the server and the variable.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import NamedTuple, TypeVar

from pydantic import ValidationError

from hermes_core.config.errors import ConfigError
from hermes_core.config.loader import LoadedConfig, hermes_home, validation_reason
from hermes_core.config.oauth import OAuthConfig
from hermes_core.config.roots import RootConfig
from hermes_core.config.sampling import SamplingConfig
from hermes_core.config.server import ServerConfig
from hermes_core.config.values import url_problem, value_problem

__all__ = [
    "CONTEXT_VARIABLES",
    "DotenvEntry",
    "dotenv_entries",
    "expand",
    "load_dotenv",
    "parse_dotenv",
    "resolve",
]

CONTEXT_VARIABLES = (
    "userHome",
    "workspaceFolder",
    "workspaceFolderBasename",
    "pathSeparator",
    "/",
)

# ``$${`` (escape) or ``${`` … ``}``; a ``${`` with no ``}`` is caught separately.
_PLACEHOLDER = re.compile(r"\$\$\{|\$\{([^}]*)\}|\$\{")


class _Unresolvable(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def expand(
    text: str,
    *,
    env: Mapping[str, str],
    dotenv: Mapping[str, str],
    workspace: str | os.PathLike[str] | None = None,
) -> str:
    """Expand the placeholders of one string; ``ValueError`` names what is missing."""
    try:
        return _Expander(env, dotenv, workspace).expand(text)
    except _Unresolvable as exc:
        raise ValueError(exc.reason) from None


class _Expander:
    def __init__(
        self,
        env: Mapping[str, str],
        dotenv: Mapping[str, str],
        workspace: str | os.PathLike[str] | None,
    ) -> None:
        self.env = env
        self.dotenv = dotenv
        self.workspace = os.fspath(workspace) if workspace is not None else None
        home = env.get("HERMES_HOME", "").strip()
        self.dotenv_label = f"{home.rstrip('/')}/.env" if home else "~/.hermes/.env"

    def expand(self, text: str) -> str:
        if "${" not in text:
            return text
        return _PLACEHOLDER.sub(self._one, text)

    def _one(self, match: re.Match[str]) -> str:
        whole = match.group(0)
        if whole == "$${":
            return "${"
        if match.group(1) is None:
            raise _Unresolvable("'${' has no closing '}' (write '$${' for a literal '${')")
        return self._lookup(match.group(1), whole)

    def _lookup(self, inner: str, whole: str) -> str:
        if inner in CONTEXT_VARIABLES:
            return self._context(inner, whole)
        name, has_default, default = inner.partition(":-")
        name = name.strip()
        if name.startswith("env:"):
            name = name[4:].strip()
        if not name:
            raise _Unresolvable(f"{whole} names no variable (write '$${{' for a literal '${{')")
        value = self.env.get(name)
        if value is None:
            value = self.dotenv.get(name)
        if has_default and not value:
            return default
        if value is None:
            raise _Unresolvable(
                f"{whole} is not set (not in the environment or {self.dotenv_label})"
            )
        return value

    def _context(self, name: str, whole: str) -> str:
        if name in ("pathSeparator", "/"):
            return os.sep
        if name == "userHome":
            home = self.env.get("HOME") or self.env.get("USERPROFILE")
            return home or os.path.expanduser("~")
        if self.workspace is None:
            raise _Unresolvable(f"{whole} is not available: this session has no workspace folder")
        if name == "workspaceFolder":
            return self.workspace
        return os.path.basename(os.path.normpath(self.workspace))


def resolve(
    server_name: str,
    cfg: ServerConfig,
    *,
    env: Mapping[str, str],
    dotenv: Mapping[str, str],
    workspace: str | os.PathLike[str] | None = None,
) -> ServerConfig:
    """*cfg* with every ``${…}`` expanded in ``command``, ``args``, ``cwd``, ``env`` values,
    ``url``, ``headers`` values, ``client_cert``/``client_key``, ``identity_header``, ``roots``
    (made absolute against *workspace* too), every
    text setting of ``oauth:`` and ``sampling:`` (checked again once expanded) and every
    string under the keys that belong to the entry's transport or auth provider
    (``socket:``, ``vault_token:``).  Keys are never expanded.

    Raises :class:`ConfigError` (``mcp_servers.<server>.<key>: …``, with the file
    and line when *cfg* was read from a file) for an unset variable, and for a
    URL or header value that is unusable once expanded.
    """
    return _ServerResolver(server_name, cfg, _Expander(env, dotenv, workspace), workspace).run()


class _ServerResolver:
    """One server entry's ``${…}`` expansion, a method per group of keys (see :func:`resolve`)."""

    def __init__(
        self,
        server_name: str,
        cfg: ServerConfig,
        expander: _Expander,
        workspace: str | os.PathLike[str] | None,
    ) -> None:
        self.cfg = cfg
        self.expander = expander
        self.workspace = workspace
        self.prefix = f"mcp_servers.{server_name}"

    def fail(self, key: str, reason: str) -> ConfigError:
        cfg = self.cfg
        return ConfigError(
            reason, path=cfg.source, line=cfg.line_of(key), key=f"{self.prefix}.{key}"
        )

    def text(self, value: str, key: str) -> str:
        try:
            return self.expander.expand(value)
        except _Unresolvable as exc:
            raise self.fail(key, exc.reason) from None

    def run(self) -> ServerConfig:
        cfg, text = self.cfg, self.text
        update: dict[str, object] = {}
        if cfg.command is not None:
            update["command"] = text(cfg.command, "command")
        update["args"] = self._args()
        if cfg.cwd is not None:
            update["cwd"] = self._cwd(cfg.cwd)
        update["env"], update["headers"] = self._env_and_headers()
        if cfg.url is not None:
            url = text(cfg.url, "url")
            problem = url_problem(url)
            if problem:
                raise self.fail("url", f"{problem} (after ${{…}} expansion)")
            update["url"] = url
        update.update(self._credentials())
        if cfg.roots:
            update["roots"] = self._roots(cfg.roots)
        for key, value in cfg.options.items():  # a plugin transport's key, an auth provider's
            update[key] = _deep(value, key, text)
        for block in ("oauth", "sampling"):  # sub-models: every text setting, checked again
            model = getattr(cfg, block)
            if model is not None:
                update[block] = _expanded_block(model, block, text, self.fail)
        return cfg.model_copy(update=update)

    def _args(self) -> list[str]:
        args = [self.text(arg, f"args[{i}]") for i, arg in enumerate(self.cfg.args)]
        for index, arg in enumerate(args):
            if "\0" in arg:
                raise self.fail(f"args[{index}]", "contains a NUL character after ${…} expansion")
        return args

    def _cwd(self, raw: str) -> str:
        cwd = os.path.expanduser(self.text(raw, "cwd"))
        if not os.path.isabs(cwd):
            raise self.fail(
                "cwd",
                "must be an absolute folder after ${…} expansion (write "
                "${workspaceFolder}/… for a folder under the working directory)",
            )
        return cwd

    def _env_and_headers(self) -> tuple[dict[str, str], dict[str, str]]:
        text = self.text
        env = {name: text(value, f"env.{name}") for name, value in self.cfg.env.items()}
        headers = {name: text(value, f"headers.{name}") for name, value in self.cfg.headers.items()}
        for name, value in (*env.items(), *headers.items()):
            problem = value_problem(value, header=name in headers)
            if problem:
                where = "headers" if name in headers else "env"
                raise self.fail(f"{where}.{name}", f"{problem} after ${{…}} expansion")
        return env, headers

    def _credentials(self) -> dict[str, object]:
        """``client_cert``, ``client_key`` and ``identity_header.value``, expanded."""
        cfg, text = self.cfg, self.text
        update: dict[str, object] = {}
        if isinstance(cfg.client_cert, list):
            update["client_cert"] = [
                text(part, f"client_cert[{i}]") for i, part in enumerate(cfg.client_cert)
            ]
        elif cfg.client_cert is not None:
            update["client_cert"] = text(cfg.client_cert, "client_cert")
        if cfg.client_key is not None:
            update["client_key"] = text(cfg.client_key, "client_key")
        if cfg.identity_header is not None and cfg.identity_header.value is not None:
            update["identity_header"] = cfg.identity_header.model_copy(
                update={"value": text(cfg.identity_header.value, "identity_header.value")}
            )
        return update

    def _roots(self, given: list[RootConfig]) -> list[RootConfig]:
        base = os.fspath(self.workspace) if self.workspace is not None else os.getcwd()
        roots = []
        for index, root in enumerate(given):
            folder = os.path.expanduser(self.text(root.path, f"roots[{index}]"))
            if "\0" in folder or not folder.strip():
                raise self.fail(f"roots[{index}]", "is not a usable folder after ${…} expansion")
            name = self.text(root.name, f"roots[{index}].name") if root.name is not None else None
            folder = os.path.normpath(os.path.join(base, folder))
            roots.append(root.model_copy(update={"path": folder, "name": name}))
        return roots


def resolve_host_sampling(
    loaded: LoadedConfig,
    *,
    env: Mapping[str, str],
    dotenv: Mapping[str, str],
) -> SamplingConfig | None:
    """The host-wide ``sampling:`` block with the ``${…}`` of each text setting expanded and
    checked again, as a server's own block is by :func:`resolve`.

    Raises :class:`ConfigError` (``<file>:<line>: sampling.<key>: …``) for an unset variable or
    a value that is bad once expanded; every server inherits the block, so every server that
    would use it fails with that error.
    """
    model = loaded.config.sampling
    if model is None or not model.strings():
        return model
    expander = _Expander(env, dotenv, None)
    path = str(loaded.path) if loaded.exists else None

    def fail(key: str, reason: str) -> ConfigError:
        return ConfigError(reason, path=path, line=loaded.line_of(key), key=key)

    def text(value: str, key: str) -> str:
        try:
            return expander.expand(value)
        except _Unresolvable as exc:
            raise fail(key, exc.reason) from None

    expanded: SamplingConfig = _expanded_block(model, "sampling", text, fail)
    return expanded


_Block = TypeVar("_Block", OAuthConfig, SamplingConfig)


def _expanded_block(
    model: _Block,
    block: str,
    text: Callable[[str, str], str],
    fail: Callable[[str, str], ConfigError],
) -> _Block:
    """*model* with the ``${…}`` of each of its text settings expanded, validated again with
    the values that will be used (a URL, a grant name written as ``${VAR}``)."""
    data = model.model_dump(exclude_unset=True)
    for path, value in model.strings().items():
        expanded = text(value, f"{block}.{path}")
        name, _, rest = path.partition(".")
        name, bracket, index = name.partition("[")
        if rest:  # authorization_params.<name>
            data[name] = {**data[name], rest: expanded}
        elif bracket:  # allowed_models[<i>]
            items = list(data[name])
            items[int(index.rstrip("]"))] = expanded
            data[name] = items
        else:
            data[name] = expanded
    try:
        return type(model).model_validate(data, context={"expanded": True})
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        loc = tuple(error["loc"]) + tuple((error.get("ctx") or {}).get("sub", ()))
        dotted = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc)
        raise fail(
            f"{block}{dotted}", f"{validation_reason(error)} (after ${{…}} expansion)"
        ) from None


def _deep(value: object, key: str, text: Callable[[str, str], str]) -> object:
    """*value* with every string in it (nested mappings and lists too) expanded."""
    if isinstance(value, str):
        return text(value, key)
    if isinstance(value, Mapping):
        return {name: _deep(item, f"{key}.{name}", text) for name, item in value.items()}
    if isinstance(value, list):
        return [_deep(item, f"{key}[{index}]", text) for index, item in enumerate(value)]
    return value


# --------------------------------------------------------------------------- .env

_DOTENV_KEY = re.compile(r"[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*=[ \t]*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "$": "$"}


class DotenvEntry(NamedTuple):
    """One ``KEY=value`` assignment of a ``.env`` text: the key, where its value is written
    (quotes included, a trailing comment and blanks excluded) and the value it means."""

    key: str
    start: int
    end: int
    value: str


def dotenv_entries(text: str) -> Iterator[DotenvEntry]:
    """The assignments of a ``.env`` text, in order (the one scanner behind
    :func:`parse_dotenv` and :func:`hermes_core.config.dotenv_file.update_dotenv`).

    ``export`` prefixes, ``#`` comments (whole-line, or after whitespace in an unquoted
    value), single quotes (literal) and double quotes (``\\n \\t \\r \\" \\\\ \\$``
    escapes), both may span lines.  Values are never expanded.  Lines that are not
    assignments are skipped; a quote with no closing one is taken as unquoted text."""
    pos, size = 0, len(text)
    while pos < size:
        newline = text.find("\n", pos)
        line_end = size if newline < 0 else newline
        match = _DOTENV_KEY.match(text, pos, line_end)
        if match is None:
            pos = line_end + 1
            continue
        start = match.end()
        quote = text[start] if start < line_end and text[start] in "'\"" else ""
        closing = _closing_quote(text, start + 1, quote) if quote else -1
        if quote and closing >= 0:
            body = text[start + 1 : closing]
            value = _unescape(body) if quote == '"' else body
            yield DotenvEntry(match.group(1), start, closing + 1, value)
            after = text.find("\n", closing)
            pos = size if after < 0 else after + 1
            continue
        raw = text[start:line_end]
        comment = re.search(r"[ \t]#", raw)
        if comment:
            raw = raw[: comment.start()]
        yield DotenvEntry(match.group(1), start, start + len(raw.rstrip()), raw.strip())
        pos = line_end + 1


def parse_dotenv(text: str) -> dict[str, str]:
    """The values of a ``.env`` text (see :func:`dotenv_entries`); the last assignment wins."""
    return {entry.key: entry.value for entry in dotenv_entries(text)}


def _closing_quote(text: str, pos: int, quote: str) -> int:
    while pos < len(text):
        char = text[pos]
        if char == "\\" and quote == '"':
            pos += 2
            continue
        if char == quote:
            return pos
        pos += 1
    return -1


def _unescape(body: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), body, flags=re.S)


def load_dotenv(path: str | os.PathLike[str] | None = None) -> dict[str, str]:
    """The values of ``$HERMES_HOME/.env`` (or *path*); a missing file is empty."""
    target = Path(path) if path is not None else hermes_home() / ".env"
    try:
        text = target.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        raise ConfigError(f"cannot read the file: {reason}", path=str(target)) from None
    return parse_dotenv(text)
