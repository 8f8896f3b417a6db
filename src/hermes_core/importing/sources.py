"""Where each client keeps its MCP servers, and reading those files.

Files are listed from the lowest precedence to the highest (user, then
project, then Claude Code's per-project "local" entries): an entry of a later
file replaces an earlier one of the same name, as in the client itself, and
the replaced one is reported.  Project files are looked up in the current
working directory.  JSON is read strictly where the client does (Claude Code,
Claude Desktop) and as JSON with comments and trailing commas where the client
allows them (Cursor, VS Code, Gemini CLI, Windsurf), with :mod:`.jsonc` (linear time);
Codex's TOML with ``tomllib``.
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from hermes_core.importing.jsonc import JsoncError, loads_jsonc
from hermes_core.importing.model import ForeignServer, InputSpec, SourceError
from hermes_core.importing.names import SOURCE_NAMES

__all__ = ["SOURCES", "Source", "SourceFile", "read_servers"]

_MAX_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class SourceFile:
    """One file a source reads: its path and whether it belongs to the project."""

    path: Path
    project: bool = False


@dataclass(frozen=True)
class Source:
    """A client Hermes imports from."""

    name: str
    label: str
    files: Callable[[Mapping[str, str], Path, str], list[SourceFile]]
    """``(environ, cwd, platform)`` → the files to read, lowest precedence first."""
    parse: Callable[[Path, object, Path], list[ForeignServer]]
    """``(file, its parsed data, cwd)`` → the server entries in it."""
    comments: bool
    """Whether the client accepts JSON with comments and trailing commas."""
    toml: bool = False
    finish: Callable[[list[ForeignServer], list[object], Path], list[ForeignServer]] | None = None
    """``(servers, the files' data, cwd)`` → the servers in precedence order, adjusted."""


# --------------------------------------------------------------------------- default paths


def _home(environ: Mapping[str, str]) -> Path:
    home = environ.get("HOME") or environ.get("USERPROFILE")
    return Path(home) if home else Path.home()


def _app_config(environ: Mapping[str, str], platform: str) -> Path:
    """The per-user application settings folder: ``Application Support``, ``%APPDATA%``
    or ``$XDG_CONFIG_HOME``."""
    home = _home(environ)
    if platform == "darwin":
        return home / "Library" / "Application Support"
    if platform == "win32":
        appdata = environ.get("APPDATA")
        return Path(appdata) if appdata else home / "AppData" / "Roaming"
    xdg = environ.get("XDG_CONFIG_HOME")
    return Path(xdg) if xdg else home / ".config"


def _claude_code_files(environ: Mapping[str, str], cwd: Path, platform: str) -> list[SourceFile]:
    config_dir = environ.get("CLAUDE_CONFIG_DIR")
    user = Path(config_dir) / ".claude.json" if config_dir else _home(environ) / ".claude.json"
    return [SourceFile(user), SourceFile(cwd / ".mcp.json", project=True)]


def _claude_desktop_files(environ: Mapping[str, str], cwd: Path, platform: str) -> list[SourceFile]:
    return [SourceFile(_app_config(environ, platform) / "Claude" / "claude_desktop_config.json")]


def _cursor_files(environ: Mapping[str, str], cwd: Path, platform: str) -> list[SourceFile]:
    return [
        SourceFile(_home(environ) / ".cursor" / "mcp.json"),
        SourceFile(cwd / ".cursor" / "mcp.json", project=True),
    ]


def _vscode_files(environ: Mapping[str, str], cwd: Path, platform: str) -> list[SourceFile]:
    user = _app_config(environ, platform) / "Code" / "User"
    return [
        SourceFile(user / "settings.json"),
        SourceFile(user / "mcp.json"),
        SourceFile(cwd / ".vscode" / "mcp.json", project=True),
    ]


def _codex_files(environ: Mapping[str, str], cwd: Path, platform: str) -> list[SourceFile]:
    codex_home = environ.get("CODEX_HOME")
    user = Path(codex_home) if codex_home else _home(environ) / ".codex"
    return [SourceFile(user / "config.toml"), SourceFile(cwd / ".codex" / "config.toml", True)]


def _gemini_files(environ: Mapping[str, str], cwd: Path, platform: str) -> list[SourceFile]:
    return [
        SourceFile(_home(environ) / ".gemini" / "settings.json"),
        SourceFile(cwd / ".gemini" / "settings.json", project=True),
    ]


def _windsurf_files(environ: Mapping[str, str], cwd: Path, platform: str) -> list[SourceFile]:
    return [SourceFile(_home(environ) / ".codeium" / "windsurf" / "mcp_config.json")]


# --------------------------------------------------------------------------- parsing


def _servers_in(
    container: object,
    key: str,
    *,
    file: Path,
    where: str,
    dialect: str,
    base: Path,
    inputs: object = (),
) -> list[ForeignServer]:
    servers = container.get(key) if isinstance(container, dict) else None
    if servers is None:
        return []
    label = f"{where}{key}"
    if not isinstance(servers, dict):
        raise SourceError(f"{file}: {label}: must be an object of server names")
    specs = _inputs(inputs, file, where)
    return [
        ForeignServer(
            name=str(name),
            raw=entry,
            file=str(file),
            key=f"{label}.{name}",
            dialect=dialect,
            base_dir=str(base),
            inputs=specs,
        )
        for name, entry in servers.items()
    ]


def _inputs(raw: object, file: Path, where: str) -> tuple[InputSpec, ...]:
    if not raw:
        return ()
    if not isinstance(raw, list):
        raise SourceError(f"{file}: {where}inputs: must be a list")
    specs = []
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            continue  # an input without an id cannot be referred to
        default = item.get("default")
        specs.append(
            InputSpec(
                id=item["id"],
                description=str(item.get("description") or ""),
                password=item.get("password") is True,
                default=default if isinstance(default, str) else None,
            )
        )
    return tuple(specs)


def _base(file: Path) -> Path:
    """The folder a relative ``cwd`` is taken from: the project (or home) folder holding the
    file, i.e. the parent of a ``.vscode``/``.cursor``/``.gemini``/``.codex`` folder."""
    folder = file.absolute().parent
    return folder.parent if folder.name.startswith(".") else folder


def _parse_claude_code(file: Path, data: object, cwd: Path) -> list[ForeignServer]:
    base = _base(file)
    found = _servers_in(data, "mcpServers", file=file, where="", dialect="claude-code", base=base)
    projects = data.get("projects") if isinstance(data, dict) else None
    if isinstance(projects, dict):
        # Claude Code's "local" scope: entries kept per project folder in ~/.claude.json.
        project = _project_key(projects, cwd)
        if project is not None:
            found += _servers_in(
                projects[project],
                "mcpServers",
                file=file,
                where=f"projects.{project}.",
                dialect="claude-code",
                base=Path(project),
            )
    return found


def _finish_claude_code(
    servers: list[ForeignServer], datas: list[object], cwd: Path
) -> list[ForeignServer]:
    """Claude Code's precedence (local > project > user) and its per-project switches:
    servers named in ``disabledMcpServers``, and ``.mcp.json`` servers named in
    ``disabledMcpjsonServers`` (declined at Claude Code's approval prompt), are imported
    disabled."""
    disabled: set[str] = set()
    declined: set[str] = set()
    approved: set[str] = set()
    approve_all = False
    for data in datas:
        projects = data.get("projects") if isinstance(data, dict) else None
        project = _project_key(projects, cwd) if isinstance(projects, dict) else None
        settings = projects.get(project) if project is not None and projects else None
        if isinstance(settings, dict):
            disabled |= _names(settings.get("disabledMcpServers"))
            declined |= _names(settings.get("disabledMcpjsonServers"))
            # What the user accepted at Claude Code's prompts, kept in their own ~/.claude.json
            # (never the repository's .claude/settings.json, which its author writes).
            approved |= _names(settings.get("enabledMcpjsonServers"))
            trusted = settings.get("hasTrustDialogAccepted") is True
            approve_all |= trusted and settings.get("enableAllProjectMcpServers") is True

    def rank(server: ForeignServer) -> int:
        if server.key.startswith("projects."):
            return 2
        return 1 if Path(server.file).name == ".mcp.json" else 0

    adjusted = []
    for server in sorted(servers, key=rank):
        if rank(server) == 1:
            server = replace(
                server,
                project=True,
                approved=server.name not in declined and (approve_all or server.name in approved),
            )
        if server.name in disabled:
            server = replace(server, disabled_reason="in disabledMcpServers for this project")
        elif server.name in declined and rank(server) == 1:
            server = replace(server, disabled_reason="declined in Claude Code for this project")
        adjusted.append(server)
    return adjusted


def _names(value: object) -> set[str]:
    return {item for item in value if isinstance(item, str)} if isinstance(value, list) else set()


def _project_key(projects: dict[str, object], cwd: Path) -> str | None:
    """The ``projects`` key for *cwd*: the folder itself or the nearest one above it."""
    candidates = {os.path.normcase(os.path.normpath(key)): key for key in projects}
    for folder in (cwd, *cwd.parents):
        key = candidates.get(os.path.normcase(os.path.normpath(str(folder))))
        if key is not None:
            return key
    return None


def _mcp_servers_parser(dialect: str) -> Callable[[Path, object, Path], list[ForeignServer]]:
    def parse(file: Path, data: object, cwd: Path) -> list[ForeignServer]:
        return _servers_in(
            data, "mcpServers", file=file, where="", dialect=dialect, base=_base(file)
        )

    return parse


def _parse_vscode(file: Path, data: object, cwd: Path) -> list[ForeignServer]:
    base = _base(file)
    if file.name == "settings.json":
        # The user settings keep servers under "mcp": {"servers": …, "inputs": …}.
        block = data.get("mcp") if isinstance(data, dict) else None
        inputs = block.get("inputs") if isinstance(block, dict) else ()
        return _servers_in(
            block, "servers", file=file, where="mcp.", dialect="vscode", base=base, inputs=inputs
        )
    inputs = data.get("inputs") if isinstance(data, dict) else ()
    found = _servers_in(
        data, "servers", file=file, where="", dialect="vscode", base=base, inputs=inputs
    )
    # The portable format (.mcp.json style) in the same file.
    return found + _servers_in(data, "mcpServers", file=file, where="", dialect="vscode", base=base)


def _parse_codex(file: Path, data: object, cwd: Path) -> list[ForeignServer]:
    base = _base(file)
    return _servers_in(data, "mcp_servers", file=file, where="", dialect="codex", base=base)


SOURCES: dict[str, Source] = {
    source.name: source
    for source in (
        Source(
            "claude-code",
            "Claude Code",
            _claude_code_files,
            _parse_claude_code,
            False,
            finish=_finish_claude_code,
        ),
        Source(
            "claude-desktop",
            "Claude Desktop",
            _claude_desktop_files,
            _mcp_servers_parser("claude-desktop"),
            False,
        ),
        Source("cursor", "Cursor", _cursor_files, _mcp_servers_parser("cursor"), True),
        Source("vscode", "VS Code", _vscode_files, _parse_vscode, True),
        Source("codex", "Codex", _codex_files, _parse_codex, False, toml=True),
        Source("gemini", "Gemini CLI", _gemini_files, _mcp_servers_parser("gemini"), True),
        Source("windsurf", "Windsurf", _windsurf_files, _mcp_servers_parser("windsurf"), True),
    )
}


if tuple(sorted(SOURCES)) != SOURCE_NAMES:  # pragma: no cover - caught by any import test
    raise RuntimeError("hermes_core.importing.names.SOURCE_NAMES is out of date")


# --------------------------------------------------------------------------- reading


def read_file(path: Path, source: Source) -> object:
    """The parsed content of *path*; :class:`SourceError` names the file and the problem."""
    try:
        if path.stat().st_size > _MAX_BYTES:
            raise SourceError(f"{path}: larger than {_MAX_BYTES // (1024 * 1024)} MiB; not read")
        raw = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"{path}: cannot read the file: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(f"{path}: the file is not UTF-8 ({exc.reason})") from None
    if source.toml:
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise SourceError(f"{path}: not valid TOML: {exc}") from None
    if not text.strip():
        return {}
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        if not source.comments:
            raise SourceError(
                f"{path}:{exc.lineno}: not valid JSON ({exc.msg}, column {exc.colno}); "
                f"{source.label} does not accept comments or trailing commas either"
            ) from None
    try:
        return loads_jsonc(text)
    except JsoncError as exc:
        reason = f"not valid JSON with comments: {exc.message}"
        raise SourceError(f"{path}:{exc.line}: {reason}") from None


MAX_DEPTH = 100
"""The deepest nesting of arrays and objects an imported file may have."""


def _deeper_than(data: object, limit: int) -> bool:
    """Whether *data* nests lists and dicts more than *limit* deep (walked without
    recursion: the walk itself must not fail on what it checks)."""
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Iterable[object] = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def read_servers(
    source: Source,
    *,
    paths: list[Path] | None = None,
    environ: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    platform: str | None = None,
) -> tuple[list[ForeignServer], list[Path]]:
    """Every server entry of *source* (``--path`` files, or its default files that exist),
    lowest precedence first, and the files that were read."""
    env = os.environ if environ is None else environ
    here = Path.cwd() if cwd is None else cwd
    if paths:
        missing = [p for p in paths if not p.is_file()]
        if missing:
            raise SourceError(f"{missing[0]}: no such file")
        files = [SourceFile(p) for p in paths]
    else:
        files = [f for f in source.files(env, here, platform or sys.platform) if f.path.is_file()]
    servers: list[ForeignServer] = []
    datas: list[object] = []
    for file in files:
        try:
            data = read_file(file.path, source)
        except RecursionError:  # (the parsers recurse per level of nesting)
            data = None
        if data is None or _deeper_than(data, MAX_DEPTH):
            raise SourceError(
                f"{file.path}: nested more than {MAX_DEPTH} levels deep; no client config is, "
                "so it is not read"
            )
        if not isinstance(data, dict):
            raise SourceError(f"{file.path}: must hold a JSON object at the top")
        datas.append(data)
        found = source.parse(file.path, data, here)
        if file.project or _project_file(source, file.path, env, platform or sys.platform):
            found = [replace(server, project=True) for server in found]
        servers.extend(found)
    if source.finish is not None:
        servers = source.finish(servers, datas, here)
    return _unapproved_last_word(servers), [f.path for f in files]


def _project_file(source: Source, path: Path, environ: Mapping[str, str], platform: str) -> bool:
    """Whether a ``--path`` file is a project's file of *source* (``.mcp.json``,
    ``.cursor/mcp.json`` …) rather than one of the user's own."""
    folder = _base(path)
    files = source.files(environ, folder, platform)
    user = {f.path.absolute() for f in files if not f.project}
    project = {f.path.absolute() for f in files if f.project}
    return path.absolute() in project - user


def _unapproved_last_word(servers: list[ForeignServer]) -> list[ForeignServer]:
    """A project's servers the user has not approved are imported disabled, with the reason,
    and at the lowest precedence: one of them never replaces the user's own entry of the same
    name (a repository could otherwise swap the command of a server the user trusts)."""
    adjusted = []
    for server in servers:
        if server.project and not server.approved and server.disabled_reason is None:
            server = replace(
                server,
                disabled_reason=(
                    "it comes from the project's file, which whoever wrote the repository "
                    "controls, and its approval is not recorded; check its command, then "
                    f"`hermes mcp enable {server.name}`"
                ),
            )
        adjusted.append(server)
    # Stable: an unapproved project server goes before everything else, so any other entry of
    # its name (user or local scope) comes later and wins.
    return sorted(adjusted, key=lambda s: 0 if s.project and not s.approved else 1)
