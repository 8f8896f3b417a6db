"""Edit ``config.yaml``: atomic, comment-preserving, and safe against concurrent edits.

Every edit touches only the lines of the entry it changes: the file is read
with ruamel.yaml's round-trip loader to find where ``mcp_servers.<name>``
starts and ends, the new entry is written by ruamel.yaml, and every other byte
is kept as it was (comments, key order, quoting, blank lines, line endings).
The result is parsed again and compared with the intended data; if a splice
is not possible (flow-style ``mcp_servers: {…}``, anchors) a full ruamel
round-trip dump is used instead, and if even that does not give the intended
data nothing is written.

Writing: a temporary file in the same directory with the original's mode,
``fsync``, ``os.replace``.  Concurrency: the file's content hash is taken
before the edit is planned; under an advisory lock on ``config.yaml.lock`` it is
taken again, and if another program changed the file meanwhile the edit is
re-planned on the new content, or :class:`ConfigConflict` is raised when the
same server entry was changed (nothing is written then).

The parts: :mod:`~hermes_core.config.server_edits` (what each edit changes),
:mod:`~hermes_core.config.yaml_document` (the document, line splices and the round trip),
:mod:`~hermes_core.config.atomic_file` (the lock and the atomic replace); this module is the
public edits and the cycle that plans, checks and writes them.
"""

from __future__ import annotations

import copy
import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from hermes_core.config.atomic_file import LOCK_TIMEOUT, atomic_write, ensure_dir, locked, mode_of
from hermes_core.config.checks import kind_of
from hermes_core.config.defaults import SERVER_NAME
from hermes_core.config.errors import ConfigConflict, ConfigError, ConfigWarning
from hermes_core.config.kinds import ServerKinds
from hermes_core.config.loader import config_path, parse_yaml, validate_server
from hermes_core.config.server import ServerConfig
from hermes_core.config.server_edits import AddServer, AddServers, EditOp, RemoveServer, SetEnabled
from hermes_core.config.yaml_document import MISSING, Document, normal, redump
from hermes_core.yaml_lines import plain

__all__ = [
    "LOCK_TIMEOUT",
    "add_server",
    "add_servers",
    "check_add",
    "check_writable",
    "remove_server",
    "set_enabled",
]

_BOM = b"\xef\xbb\xbf"


# --------------------------------------------------------------------------- public API


def add_server(
    name: str,
    entry: Mapping[str, object] | ServerConfig,
    *,
    path: str | os.PathLike[str] | None = None,
    replace: bool = False,
    kinds: ServerKinds | None = None,
) -> tuple[ConfigWarning, ...]:
    """Add ``mcp_servers.<name>`` (validated first); returns the entry's warnings.

    An existing entry of that name is an error unless ``replace`` (then it is
    rewritten in place, keeping its position).  *kinds* are the transports and auth
    providers the entry may select (default: the built-in ones).
    """
    target = _target(path)
    label = str(target)
    if not isinstance(name, str) or not SERVER_NAME.fullmatch(name):
        raise ConfigError(
            "server names start with a letter or digit and use only letters, digits, "
            "'_', '.' and '-' (at most 64 characters)",
            path=label,
            key=f"mcp_servers.{name}",
        )
    data = _entry_data(entry, label, name)
    _, problems, warnings = validate_server(name, data, path=label, kinds=kinds)
    if problems:
        raise ConfigError(
            problems[0].reason, path=label, key=problems[0].key, more=tuple(problems[1:])
        )
    _edit(target, AddServer(name, data, replace))
    return tuple(warnings)


def add_servers(
    entries: Mapping[str, Mapping[str, object] | ServerConfig],
    *,
    path: str | os.PathLike[str] | None = None,
    replace: bool = False,
) -> tuple[ConfigWarning, ...]:
    """Add several ``mcp_servers`` entries in one atomic edit (all or nothing).

    Each entry is validated first, as :func:`add_server` does; an existing name
    is an error unless ``replace``.  Returns every entry's warnings.
    """
    target = _target(path)
    label = str(target)
    datas: list[tuple[str, dict[str, object]]] = []
    warnings: list[ConfigWarning] = []
    for name, entry in entries.items():
        if not isinstance(name, str) or not SERVER_NAME.fullmatch(name):
            raise ConfigError(
                "server names start with a letter or digit and use only letters, digits, "
                "'_', '.' and '-' (at most 64 characters)",
                path=label,
                key=f"mcp_servers.{name}",
            )
        data = _entry_data(entry, label, name)
        _, problems, found = validate_server(name, data, path=label)
        if problems:
            raise ConfigError(
                problems[0].reason, path=label, key=problems[0].key, more=tuple(problems[1:])
            )
        datas.append((name, data))
        warnings.extend(found)
    if datas:
        _edit(target, AddServers(datas, replace))
    return tuple(warnings)


def check_add(
    name: str,
    entry: Mapping[str, object],
    *,
    path: str | os.PathLike[str] | None = None,
    replace: bool = False,
    kinds: ServerKinds | None = None,
) -> None:
    """:class:`ConfigError` (naming the file, nothing written) unless :func:`add_server` of
    *entry* can be done now: the entry valid, the file readable, parseable and writable, the
    edit possible (a duplicate key, an existing name without *replace* …).  For commands that
    must check before they change anything else on disk (``hermes mcp install``)."""
    target = _target(path)
    label = str(target)
    data = _entry_data(entry, label, name)
    _, problems, _warnings = validate_server(name, data, path=label, kinds=kinds)
    if problems:
        raise ConfigError(
            problems[0].reason, path=label, key=problems[0].key, more=tuple(problems[1:])
        )
    check_writable(target)
    _plan(_read(target, label), label, AddServer(name, data, replace))


def remove_server(name: str, *, path: str | os.PathLike[str] | None = None) -> None:
    """Remove ``mcp_servers.<name>`` (its lines, comments inside it included)."""
    _edit(_target(path), RemoveServer(name))


def set_enabled(name: str, enabled: bool, *, path: str | os.PathLike[str] | None = None) -> bool:
    """Set ``enabled`` of ``mcp_servers.<name>``; ``False`` when it already was (no write).

    An existing ``enabled:`` value is replaced where it stands; when absent,
    ``enabled: false`` is appended to the entry (enabling needs no key).
    """
    return _edit(_target(path), SetEnabled(name, bool(enabled)))


# --------------------------------------------------------------------------- the edit cycle


def _target(path: str | os.PathLike[str] | None) -> Path:
    given = Path(path) if path is not None else config_path()
    # Write through a symlinked config.yaml to the file it points at.
    return Path(os.path.realpath(given))


def _edit(target: Path, op: EditOp) -> bool:
    label = str(target)
    try:
        ensure_dir(target.parent)
    except OSError as exc:
        raise _unwritable(label, exc) from None
    before = _read(target, label)
    planned = _plan(before, label, op)
    if planned is not None:
        check_writable(target)  # before the lock file is made: the clearest message
    try:
        with locked(target, label):
            current = _read(target, label)
            if _digest(current) != _digest(before):
                for name in getattr(op, "servers", (op.server,)):
                    _check_entry_unchanged(before, current, label, name)
                planned = _plan(current, label, op)
            if planned is None:
                return False
            atomic_write(target, planned, mode_of(target))
    except OSError as exc:  # a read-only HERMES_HOME, a full disk: nothing was written
        raise _unwritable(label, exc) from None
    return True


def check_writable(path: str | os.PathLike[str] | None = None) -> None:
    """:class:`ConfigError` (naming the file) unless ``config.yaml`` can be replaced: its
    folder must be writable, and an existing file too (a file made read-only is respected
    even where its folder would allow replacing it)."""
    target = _target(path)
    folder = target.parent
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent  # ensure_dir creates the missing folders below it
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(
            f"cannot write the file: its folder {folder} is not writable (permission denied); "
            "nothing was written",
            path=str(target),
        )
    if target.exists() and not os.access(target, os.W_OK):
        raise ConfigError(
            "cannot write the file: it is read-only (permission denied); nothing was written",
            path=str(target),
        )


def _unwritable(label: str, exc: OSError) -> ConfigError:
    where = f" ({exc.filename})" if exc.filename and str(exc.filename) != label else ""
    return ConfigError(
        f"cannot write the file: {exc.strerror or type(exc).__name__}{where}; nothing was written",
        path=label,
    )


def _digest(raw: bytes | None) -> str | None:
    return hashlib.sha256(raw).hexdigest() if raw is not None else None


def _read(target: Path, label: str) -> bytes | None:
    try:
        return target.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        reason = f"cannot read the file: {exc.strerror or type(exc).__name__}"
        raise ConfigError(reason, path=label) from None


def _decode(raw: bytes | None, label: str) -> str:
    if raw is None:
        return ""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"the file is not UTF-8 ({exc.reason})", path=label) from None


def _plan(raw: bytes | None, label: str, op: EditOp) -> bytes | None:
    """The new file content for *op* applied to *raw*, or ``None`` when nothing changes."""
    doc = Document(_decode(raw, label), label)
    expected = op.expected(copy.deepcopy(doc.data()), label)
    if expected is None:
        return None
    bom = _BOM if raw is not None and raw.startswith(_BOM) else b""
    for fallback in (False, True):
        try:
            text = redump(doc, op.edit_tree) if fallback else op.splice(doc)
        except (ConfigError, KeyError, IndexError, TypeError, ValueError):
            text = None
        if text is not None and _data_of(text, label) == normal(expected):
            return bom + text.encode("utf-8")
    raise ConfigError(
        "could not make this change without disturbing the rest of the file; nothing was written",
        path=label,
        key=f"mcp_servers.{op.server}",
    )


def _data_of(text: str, label: str) -> object:
    try:
        return normal(plain(parse_yaml(text, label)))
    except ConfigError:
        return MISSING


def _check_entry_unchanged(
    before: bytes | None, current: bytes | None, label: str, name: str
) -> None:
    def entry(raw: bytes | None) -> object:
        data = normal(plain(Document(_decode(raw, label), label).tree))
        servers = data.get("mcp_servers") if isinstance(data, dict) else None
        return servers.get(name, MISSING) if isinstance(servers, dict) else MISSING

    if entry(before) != entry(current):
        raise ConfigConflict(
            "was changed by another program while this edit was being made; nothing was "
            "written (run the command again)",
            path=label,
            key=f"mcp_servers.{name}",
        )


# --------------------------------------------------------------------------- entries


def _entry_data(
    entry: Mapping[str, object] | ServerConfig, label: str, name: str
) -> dict[str, object]:
    if isinstance(entry, ServerConfig):
        raw: object = entry.model_dump(by_alias=True, exclude_defaults=True, exclude_none=True)
    else:
        raw = entry
    if not isinstance(raw, Mapping):
        raise ConfigError(
            f"must be a mapping of settings (got {kind_of(raw)})",
            path=label,
            key=f"mcp_servers.{name}",
        )
    data = _plain_data(raw, f"mcp_servers.{name}", label)
    assert isinstance(data, dict)
    return data


def _plain_data(value: object, key: str, label: str) -> object:
    if isinstance(value, Mapping):
        result: dict[str, object] = {}
        for sub, item in value.items():
            if not isinstance(sub, str):
                raise ConfigError(f"keys must be text (got {kind_of(sub)})", path=label, key=key)
            result[sub] = _plain_data(item, f"{key}.{sub}", label)
        return result
    if isinstance(value, list | tuple):
        return [_plain_data(item, f"{key}[{i}]", label) for i, item in enumerate(value)]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise ConfigError(f"cannot be written to YAML ({kind_of(value)})", path=label, key=key)
