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
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import os
import re
import stat
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.util import load_yaml_guess_indent

from hermes_core.config.kinds import ServerKinds
from hermes_core.config.loader import config_path, parse_yaml, validate_server
from hermes_core.config.models import (
    SERVER_NAME,
    ConfigConflict,
    ConfigError,
    ConfigWarning,
    ServerConfig,
    kind_of,
)
from hermes_core.yaml_lines import _plain

__all__ = ["add_server", "add_servers", "check_writable", "remove_server", "set_enabled"]

LOCK_TIMEOUT = 10.0
_BOM = b"\xef\xbb\xbf"
_MISSING: Any = object()
_VALUE_TOKEN = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^']|'')*'|[^\s#,}\]]+")
_BOOL_WORDS = {"true": True, "yes": True, "on": True, "1": True}
_BOOL_WORDS.update({"false": False, "no": False, "off": False, "0": False})


# --------------------------------------------------------------------------- public API


def add_server(
    name: str,
    entry: Mapping[str, Any] | ServerConfig,
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
    _edit(target, _Add(name, data, replace))
    return tuple(warnings)


def add_servers(
    entries: Mapping[str, Mapping[str, Any] | ServerConfig],
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
    datas: list[tuple[str, dict[str, Any]]] = []
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
        _edit(target, _AddMany(datas, replace))
    return tuple(warnings)


def remove_server(name: str, *, path: str | os.PathLike[str] | None = None) -> None:
    """Remove ``mcp_servers.<name>`` (its lines, comments inside it included)."""
    _edit(_target(path), _Remove(name))


def set_enabled(name: str, enabled: bool, *, path: str | os.PathLike[str] | None = None) -> bool:
    """Set ``enabled`` of ``mcp_servers.<name>``; ``False`` when it already was (no write).

    An existing ``enabled:`` value is replaced where it stands; when absent,
    ``enabled: false`` is appended to the entry (enabling needs no key).
    """
    return _edit(_target(path), _SetEnabled(name, bool(enabled)))


# --------------------------------------------------------------------------- the edit cycle


def _target(path: str | os.PathLike[str] | None) -> Path:
    given = Path(path) if path is not None else config_path()
    # Write through a symlinked config.yaml to the file it points at.
    return Path(os.path.realpath(given))


def _edit(target: Path, op: _Op) -> bool:
    label = str(target)
    try:
        _ensure_dir(target.parent)
    except OSError as exc:
        raise _unwritable(label, exc) from None
    before = _read(target, label)
    planned = _plan(before, label, op)
    if planned is not None:
        check_writable(target)  # before the lock file is made: the clearest message
    try:
        with _locked(target, label):
            current = _read(target, label)
            if _digest(current) != _digest(before):
                for name in getattr(op, "servers", (op.server,)):
                    _check_entry_unchanged(before, current, label, name)
                planned = _plan(current, label, op)
            if planned is None:
                return False
            _atomic_write(target, planned, _mode_of(target))
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
        folder = folder.parent  # _ensure_dir creates the missing folders below it
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


def _plan(raw: bytes | None, label: str, op: _Op) -> bytes | None:
    """The new file content for *op* applied to *raw*, or ``None`` when nothing changes."""
    doc = _Doc(_decode(raw, label), label)
    expected = op.expected(copy.deepcopy(_normal(_plain(doc.tree))), label)
    if expected is None:
        return None
    bom = _BOM if raw is not None and raw.startswith(_BOM) else b""
    for fallback in (False, True):
        try:
            text = _redump(doc, op) if fallback else op.splice(doc)
        except (ConfigError, KeyError, IndexError, TypeError, ValueError):
            text = None
        if text is not None and _data_of(text, label) == _normal(expected):
            return bom + text.encode("utf-8")
    raise ConfigError(
        "could not make this change without disturbing the rest of the file; nothing was written",
        path=label,
        key=f"mcp_servers.{op.server}",
    )


def _data_of(text: str, label: str) -> Any:
    try:
        return _normal(_plain(parse_yaml(text, label)))
    except ConfigError:
        return _MISSING


def _normal(data: Any) -> Any:
    if data is None:
        return {}
    if isinstance(data, dict) and "mcp_servers" in data and data["mcp_servers"] is None:
        return {**data, "mcp_servers": {}}
    return data


def _check_entry_unchanged(
    before: bytes | None, current: bytes | None, label: str, name: str
) -> None:
    def entry(raw: bytes | None) -> Any:
        data = _normal(_plain(_Doc(_decode(raw, label), label).tree))
        servers = data.get("mcp_servers") if isinstance(data, dict) else None
        return servers.get(name, _MISSING) if isinstance(servers, dict) else _MISSING

    if entry(before) != entry(current):
        raise ConfigConflict(
            "was changed by another program while this edit was being made; nothing was "
            "written (run the command again)",
            path=label,
            key=f"mcp_servers.{name}",
        )


def _mode_of(target: Path) -> int:
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        return 0o600  # a new config.yaml may hold secrets


def _ensure_dir(directory: Path) -> None:
    if directory.is_dir():
        return
    directory.parent.mkdir(parents=True, exist_ok=True)
    try:
        directory.mkdir(mode=0o700)
    except FileExistsError:
        return
    os.chmod(directory, 0o700)


def _atomic_write(target: Path, data: bytes, mode: int) -> None:
    """Write *data* to a temporary file next to *target*, then ``os.replace`` it."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        _keep_owner(target, tmp)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(target.parent)


def _keep_owner(target: Path, tmp: str) -> None:
    if not hasattr(os, "chown"):
        return
    try:
        st = target.stat()
    except FileNotFoundError:
        return
    if (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
        with contextlib.suppress(OSError):
            os.chown(tmp, st.st_uid, st.st_gid)


def _fsync_dir(directory: Path) -> None:
    if sys.platform == "win32":
        return
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def _locked(target: Path, label: str) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``<config>.lock`` (waits up to LOCK_TIMEOUT s)."""
    lock_path = target.with_name(target.name + ".lock")
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + LOCK_TIMEOUT
        while not _try_lock(fd):
            if time.monotonic() > deadline:
                raise ConfigError(
                    f"another program holds {lock_path.name}; nothing was written (try again)",
                    path=label,
                )
            time.sleep(0.02)
        try:
            yield
        finally:
            _unlock(fd)
    finally:
        os.close(fd)


if sys.platform == "win32":
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        with contextlib.suppress(OSError):
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


# --------------------------------------------------------------------------- documents


class _Doc:
    """The text being edited, its lines (with endings) and its round-trip tree."""

    def __init__(self, text: str, label: str) -> None:
        self.text = text
        self.label = label
        self.tree = parse_yaml(text, label)
        if self.tree is not None and not isinstance(self.tree, CommentedMap):
            raise ConfigError(
                f"the file must be a mapping of settings (got {kind_of(_plain(self.tree))})",
                path=label,
                line=1,
            )
        self.lines = text.splitlines(keepends=True)
        self.newline = "\r\n" if "\r\n" in text else "\n"

    def servers(self) -> CommentedMap | None:
        """``mcp_servers`` when it is a block mapping (line edits are possible)."""
        node = self.tree.get("mcp_servers") if self.tree is not None else None
        if isinstance(node, CommentedMap) and node and not node.fa.flow_style():
            return node
        return None

    def insert(self, at: int, text: str) -> str:
        lines = list(self.lines)
        if at > 0 and not lines[at - 1].endswith("\n"):
            lines[at - 1] += self.newline
        return "".join(lines[:at]) + text + "".join(lines[at:])

    def indent_step(self) -> int:
        """The document's mapping indentation (2 when it has no nested block mapping)."""
        if self.tree is not None:
            for key, value in self.tree.items():
                if isinstance(value, CommentedMap) and value and not value.fa.flow_style():
                    step = value.lc.key(next(iter(value)))[1] - self.tree.lc.key(key)[1]
                    if step > 0:
                        return int(step)
        return 2


def _blank(line: str) -> bool:
    return not line.strip()


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block_end(lines: list[str], start: int, column: int) -> int:
    """One past the last line of the block whose key is on line *start* at *column*.

    Deeper-indented lines (and comments) belong to the block; blank lines and
    comments at or left of *column* after its last line belong to what follows.
    """
    last = start
    for index in range(start + 1, len(lines)):
        line = lines[index]
        if _blank(line):
            continue
        indent, body = _indent(line), line.strip()
        if body.startswith("#"):
            if indent > column:
                last = index
            continue
        if indent > column or (indent == column and (body == "-" or body.startswith("- "))):
            last = index
            continue
        break
    return last + 1


def _to_node(value: Any) -> Any:
    """Plain data as ruamel nodes: mappings in block style, lists of scalars in flow style."""
    if isinstance(value, dict):
        node = CommentedMap()
        for key, item in value.items():
            node[key] = _to_node(item)
        return node
    if isinstance(value, list):
        seq = CommentedSeq(_to_node(item) for item in value)
        if all(_flow_safe(item) for item in value):
            seq.fa.set_flow_style()
        return seq
    return value


def _flow_safe(item: Any) -> bool:
    """A list item that ruamel.yaml writes so that it reads back the same in a flow list.

    Its emitter leaves a string that starts with ``?`` or ``:`` plain there (``[?0]``), where
    it reads back as a mapping (``[{0: null}]``); such a list is written in block style."""
    if isinstance(item, dict | list):
        return False
    return not (isinstance(item, str) and item.startswith(("?", ":")))


def _emit(name: str, entry: dict[str, Any], column: int, step: int, newline: str) -> str:
    yaml = YAML(typ="rt")
    yaml.width = 4096
    yaml.indent(mapping=step, sequence=step + 2, offset=step)
    buffer = io.StringIO()
    yaml.dump(CommentedMap([(name, _to_node(entry))]), buffer)
    pad = " " * column
    return "".join(
        (pad + line if line.strip() else line) + newline for line in buffer.getvalue().splitlines()
    )


def _redump(doc: _Doc, op: _Op) -> str:
    """The fallback: the whole document through ruamel.yaml's round trip."""
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    try:
        _, mapping, offset = load_yaml_guess_indent(doc.text)
    except Exception:  # noqa: BLE001 - only a formatting guess
        mapping, offset = None, None
    step = mapping if isinstance(mapping, int) and mapping > 0 else 2
    offset = offset if isinstance(offset, int) and offset >= 0 else 0
    yaml.indent(mapping=step, sequence=step + offset, offset=offset)
    tree = yaml.load(doc.text) if doc.text.strip() else None
    if tree is None:
        tree = CommentedMap()
    op.edit_tree(tree)
    buffer = io.StringIO()
    yaml.dump(tree, buffer)
    return buffer.getvalue().replace("\n", doc.newline)


# --------------------------------------------------------------------------- operations


class _Op:
    server: str

    def expected(self, data: dict[str, Any], label: str) -> dict[str, Any] | None:
        """The file's data after the edit; ``None`` when there is nothing to do."""
        raise NotImplementedError

    def splice(self, doc: _Doc) -> str | None:
        """The edited text changing only the entry's lines, or ``None``."""
        raise NotImplementedError

    def edit_tree(self, tree: CommentedMap) -> None:
        raise NotImplementedError

    def _servers(self, data: dict[str, Any], label: str) -> dict[str, Any]:
        servers = data.get("mcp_servers")
        if servers is None:
            return {}
        if not isinstance(servers, dict):
            raise ConfigError(
                f"must be a mapping of server names to their settings (got {kind_of(servers)}); "
                "fix it before editing servers",
                path=label,
                key="mcp_servers",
            )
        return servers

    def _entry(self, data: dict[str, Any], label: str) -> dict[str, Any]:
        servers = self._servers(data, label)
        if self.server not in servers:
            raise ConfigError("is not configured", path=label, key=f"mcp_servers.{self.server}")
        entry = servers[self.server]
        if not isinstance(entry, dict):
            raise ConfigError(
                f"must be a mapping of settings (got {kind_of(entry)}); fix it first",
                path=label,
                key=f"mcp_servers.{self.server}",
            )
        return entry


class _Add(_Op):
    def __init__(self, server: str, entry: dict[str, Any], replace: bool) -> None:
        self.server = server
        self.entry = entry
        self.replace = replace

    def expected(self, data: dict[str, Any], label: str) -> dict[str, Any] | None:
        servers = self._servers(data, label)
        if self.server in servers:
            if not self.replace:
                raise ConfigError(
                    "already exists (remove it first, or replace it)",
                    path=label,
                    key=f"mcp_servers.{self.server}",
                )
            if servers[self.server] == self.entry:
                return None
        servers[self.server] = self.entry
        data["mcp_servers"] = servers
        return data

    def splice(self, doc: _Doc) -> str | None:
        nl = doc.newline
        tree = doc.tree
        if tree is None or "mcp_servers" not in tree:
            step = doc.indent_step()
            head = doc.text
            if head and not head.endswith("\n"):
                head += nl
            gap = nl if head.strip() and not head.endswith(nl + nl) else ""
            return head + gap + "mcp_servers:" + nl + _emit(self.server, self.entry, step, step, nl)
        key_line, key_column = tree.lc.key("mcp_servers")
        if tree["mcp_servers"] is None:
            written = doc.lines[key_line].rstrip("\r\n")
            if key_column != 0 or not re.fullmatch(r"mcp_servers[ \t]*:[ \t]*(#.*)?", written):
                return None
            step = doc.indent_step()
            end = _block_end(doc.lines, key_line, 0)
            return doc.insert(end, _emit(self.server, self.entry, step, step, nl))
        servers = doc.servers()
        if servers is None:
            return None
        names = list(servers)
        step = servers.lc.key(names[0])[1] - key_column
        if self.server in servers:
            line, column = servers.lc.key(self.server)
            end = _block_end(doc.lines, line, column)
            text = _emit(self.server, self.entry, column, step, nl)
            return "".join(doc.lines[:line]) + text + "".join(doc.lines[end:])
        line, column = servers.lc.key(names[-1])
        end = _block_end(doc.lines, line, column)
        spaced = any(_blank(doc.lines[servers.lc.key(n)[0] - 1]) for n in names[1:])
        text = _emit(self.server, self.entry, column, step, nl)
        return doc.insert(end, (nl if spaced else "") + text)

    def edit_tree(self, tree: CommentedMap) -> None:
        servers = tree.get("mcp_servers")
        if not isinstance(servers, CommentedMap):
            servers = tree["mcp_servers"] = CommentedMap()
        servers[self.server] = _to_node(self.entry)


class _AddMany(_Op):
    """Several :class:`_Add` edits applied one after another, written once."""

    def __init__(self, entries: list[tuple[str, dict[str, Any]]], replace: bool) -> None:
        self.adds = [_Add(name, entry, replace) for name, entry in entries]
        self.servers = tuple(name for name, _ in entries)
        self.server = self.servers[0]

    def expected(self, data: dict[str, Any], label: str) -> dict[str, Any] | None:
        changed = False
        for add in self.adds:
            result = add.expected(data, label)
            if result is not None:
                data, changed = result, True
        return data if changed else None

    def splice(self, doc: _Doc) -> str | None:
        for add in self.adds:
            servers = _normal(_plain(doc.tree)).get("mcp_servers") or {}
            if isinstance(servers, dict) and servers.get(add.server, _MISSING) == add.entry:
                continue  # unchanged: keep its lines (and comments) as they are
            text = add.splice(doc)
            if text is None:
                return None
            doc = _Doc(text, doc.label)
        return doc.text

    def edit_tree(self, tree: CommentedMap) -> None:
        for add in self.adds:
            add.edit_tree(tree)


class _Remove(_Op):
    def __init__(self, server: str) -> None:
        self.server = server

    def expected(self, data: dict[str, Any], label: str) -> dict[str, Any] | None:
        servers = self._servers(data, label)
        if self.server not in servers:
            raise ConfigError("is not configured", path=label, key=f"mcp_servers.{self.server}")
        del servers[self.server]
        data["mcp_servers"] = servers
        return data

    def splice(self, doc: _Doc) -> str | None:
        servers = doc.servers()
        if servers is None or doc.tree is None:
            return None
        lines = doc.lines
        start, column = servers.lc.key(self.server)
        end = _block_end(lines, start, column)
        # Comment lines right above the name, at its column, describe this entry.
        while (
            start > 0
            and lines[start - 1].lstrip(" ").startswith("#")
            and _indent(lines[start - 1]) == column
        ):
            start -= 1
        parent_line = doc.tree.lc.key("mcp_servers")[0]
        after = end
        while after < len(lines) and _blank(lines[after]):
            after += 1
        sibling_follows = after < len(lines) and _indent(lines[after]) == column
        blank_before = start > 0 and _blank(lines[start - 1])
        if blank_before or (start == parent_line + 1 and sibling_follows):
            end = after
            if after == len(lines):
                while start > 0 and _blank(lines[start - 1]):
                    start -= 1
        return "".join(lines[:start] + lines[end:])

    def edit_tree(self, tree: CommentedMap) -> None:
        del tree["mcp_servers"][self.server]


class _SetEnabled(_Op):
    def __init__(self, server: str, enabled: bool) -> None:
        self.server = server
        self.enabled = enabled

    def expected(self, data: dict[str, Any], label: str) -> dict[str, Any] | None:
        entry = self._entry(data, label)
        current = entry.get("enabled")
        if current is None:
            effective: bool | None = True
        elif isinstance(current, bool):
            effective = current
        else:
            effective = _BOOL_WORDS.get(str(current).strip().lower())
        if effective is self.enabled:
            return None
        entry["enabled"] = self.enabled
        return data

    def splice(self, doc: _Doc) -> str | None:
        servers = doc.servers()
        if servers is None:
            return None
        entry = servers[self.server]
        if not isinstance(entry, CommentedMap) or not entry or entry.fa.flow_style():
            return None
        word = "true" if self.enabled else "false"
        lines = list(doc.lines)
        if "enabled" in entry:
            line, column = entry.lc.value("enabled")
            match = _VALUE_TOKEN.match(lines[line], column)
            if match is None:
                return None
            lines[line] = lines[line][: match.start()] + word + lines[line][match.end() :]
            return "".join(lines)
        first_line, first_column = entry.lc.key(next(iter(entry)))
        start, column = servers.lc.key(self.server)
        if first_line <= start:
            return None
        end = _block_end(lines, start, column)
        return doc.insert(end, " " * first_column + f"enabled: {word}" + doc.newline)

    def edit_tree(self, tree: CommentedMap) -> None:
        tree["mcp_servers"][self.server]["enabled"] = self.enabled


# --------------------------------------------------------------------------- entries


def _entry_data(entry: Mapping[str, Any] | ServerConfig, label: str, name: str) -> dict[str, Any]:
    if isinstance(entry, ServerConfig):
        raw: Any = entry.model_dump(by_alias=True, exclude_defaults=True, exclude_none=True)
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


def _plain_data(value: Any, key: str, label: str) -> Any:
    if isinstance(value, Mapping):
        result: dict[str, Any] = {}
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
