"""The audit log: one JSON line per tool call in ``$HERMES_HOME/logs/audit.jsonl``.

Each line holds the time, server, tool, outcome, duration, who approved, what the
interceptors decided and the arguments' *names and types* (their values only with
``audit.values: true``).  The file is mode 0600, rotated by size (``audit.jsonl.1`` is the
newest rotated one), and written whole lines at a time with ``O_APPEND``, so several Hermes
processes may share it.  :func:`read_audit` reads it back for ``hermes mcp audit``.

A call's line is written off its path: inside an event loop its ``after`` only notes what the
line needs (the time, the duration, the outcome, a copy of the decisions; with ``values: true``
the line itself, as the values were) in a bounded buffer; the lines are built and go out in one
``write`` when :data:`FLUSH_ROWS` calls are waiting, :data:`FLUSH_SECONDS` after the first of
them, when the interceptor is closed (the host closing, ``SIGTERM`` in ``hermes mcp proxy``)
and at interpreter exit, so no line is lost on a clean exit.  (Nothing is done per call once
its answer is written: the process that wrote an answer goes back to waiting at once, so the
client it woke runs at once.) The first line (which opens the file) and the first after a
failed write are written at once, as is every line outside an event loop: a log that cannot be
written still fails the call closed.

With ``state:`` in ``config.yaml`` the lines go to the state database instead: the host gives
the interceptor an :class:`AuditSetup` whose ``sink`` (an :class:`AuditSink`,
:mod:`hermes_core.host.calls.audit_pg`) takes each record off the call's path.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import json
import logging
import os
import stat
import threading
import time
import weakref
from collections.abc import Awaitable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol

from hermes_core.host.calls.refusals import CallState
from hermes_core.json_types import JsonObject
from hermes_core.plugins.interceptors import (
    InterceptedCall,
    InterceptorRecord,
    InterceptorSetup,
    Verdict,
)

if TYPE_CHECKING:
    import asyncio  # (asyncio itself is loaded by a call, never by `hermes mcp list`)

__all__ = [
    "AUDIT_FILE",
    "AuditInterceptor",
    "AuditRecord",
    "AuditSettings",
    "AuditSetup",
    "AuditSink",
    "audit_files",
    "call_outcome",
    "read_audit",
]

log = logging.getLogger(__name__)

#: One line of the audit log as it is written: JSON-ready data (a value that is not JSON is
#: written as its ``str``).
AuditRecord = dict[str, object]

AUDIT_FILE = Path("logs") / "audit.jsonl"
#: An argument value longer than this (as JSON) is cut in a ``values: true`` log.
MAX_VALUE_CHARS = 1000
#: A line longer than this is not read back (``hermes mcp audit``).
MAX_LINE_BYTES = 256 * 1024
#: How much of each file is read back at most.
MAX_READ_BYTES = 64 * 1024 * 1024
#: Lines waiting to be written at most: reaching it writes them at once.
FLUSH_ROWS = 256
#: How long the first waiting line waits at most (seconds).
FLUSH_SECONDS = 0.2


@dataclass(frozen=True)
class AuditSettings:
    """The ``audit:`` block as the log uses it."""

    values: bool = False
    max_bytes: int = 10 * 1024 * 1024
    keep: int = 5

    @classmethod
    def of(cls, settings: Mapping[str, object]) -> AuditSettings:
        values = settings.get("values", False)
        max_bytes = settings.get("max_bytes", cls.max_bytes)
        keep = settings.get("keep", cls.keep)
        return cls(
            values=values is True,
            max_bytes=max_bytes if isinstance(max_bytes, int) and max_bytes >= 4096 else 10 << 20,
            keep=keep if isinstance(keep, int) and 1 <= keep <= 100 else 5,
        )


#: How long a call waits at most for its row in the state database (past it the call returns;
#: the row stays buffered).
WRITTEN_SECONDS = 2.0


class AuditSink(Protocol):
    """Where records go instead of the file (the state database's buffered writer)."""

    def add(self, record: AuditRecord) -> object:
        """Take *record*; never blocks on the database."""

    def written(self, record: AuditRecord) -> asyncio.Future[None] | None:
        """Take *record* from a call on the running loop: a future done once it is written
        (``None``: not worth waiting for)."""

    def flush(self, timeout: float = ...) -> bool:
        """Write what is waiting (at most *timeout* seconds); whether all of it was."""


@dataclass(frozen=True)
class AuditSetup(InterceptorSetup):
    """The audit log's setup: the sink the host chose (``None``: the file)."""

    sink: AuditSink | None = field(default=None, repr=False)


class _Ended(NamedTuple):
    """What a call's line needs of the moment it ended."""

    at: float
    clock: float
    outcome: str
    state: object


#: (ensure_ascii=False: the line is UTF-8; default=str: a value that is not JSON, as text)
_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)


@functools.lru_cache(maxsize=4)
def _second(whole: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))


def _timestamp(now: float) -> str:
    """*now* (``time.time()``) as the log writes it: UTC, milliseconds."""
    return f"{_second(int(now))}.{int(now % 1 * 1000):03d}Z"


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _shown_value(value: object) -> object:
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) <= MAX_VALUE_CHARS:
        return value
    return text[: MAX_VALUE_CHARS - 1] + "…"


def call_outcome(result: Mapping[str, object]) -> str:
    """The call's outcome in one word: ``ok``, ``tool_error`` (``isError``), ``refused`` (an
    interceptor), ``failed_closed`` (an interceptor failed), ``not_approved``, ``cancelled``
    or ``error``."""
    if "error" not in result:
        return "tool_error" if result.get("isError") is True else "ok"
    state = result.get("state")
    if state == CallState.REFUSED:
        return "refused"
    if state == CallState.INTERCEPTOR_FAILED:
        return "failed_closed"
    if state == CallState.NOT_APPROVED:
        return "not_approved"
    if state == CallState.CANCELLED:
        return "cancelled"
    return "error"


class AuditInterceptor:
    """The built-in ``audit`` interceptor: its ``after`` writes the call's line."""

    before = None

    def __init__(self, path: Path, settings: AuditSettings, sink: AuditSink | None = None) -> None:
        self.path = path
        self.settings = settings
        self.sink = sink
        self._fd: int | None = None
        self._ino: int | None = None
        self._waiting: list[bytes] = []
        self._ended: list[tuple[InterceptedCall, _Ended, tuple[InterceptorRecord, ...]]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._broken: OSError | None = None
        self._lock = threading.Lock()  # a sync host's loop thread and the exit hook
        if sink is None:
            _flush_at_exit(self)

    @classmethod
    def create(cls, setup: InterceptorSetup) -> AuditInterceptor:
        sink = setup.sink if isinstance(setup, AuditSetup) else None
        return cls(setup.home / AUDIT_FILE, AuditSettings.of(setup.settings), sink)

    def record(self, call: InterceptedCall, result: Mapping[str, object]) -> AuditRecord:
        """The audit line of *call* (as data)."""
        ended = _Ended(time.time(), time.monotonic(), call_outcome(result), result.get("state"))
        return self._row(call, ended, call.decisions)

    def _row(
        self, call: InterceptedCall, ended: _Ended, decisions: Sequence[InterceptorRecord]
    ) -> AuditRecord:
        arguments = call.arguments
        if self.settings.values:
            args: dict[str, object] = {k: _shown_value(v) for k, v in arguments.items()}
        else:
            args = {k: _json_type(v) for k, v in arguments.items()}
        row: AuditRecord = {
            "time": _timestamp(ended.at),
            "server": call.server,
            "tool": call.tool,
            "name": call.name,
            "outcome": ended.outcome,
            "state": ended.state,
            "duration_ms": round((ended.clock - call.started) * 1000, 3),
            "trust": call.trust,
            "approved_by": call.approved_by,
            "decisions": [
                {"interceptor": d.interceptor, "stage": d.stage, "verdict": str(d.verdict)}
                | ({"reason": d.reason} if d.reason else {})
                for d in decisions
                if d.verdict is not Verdict.PASS
            ],
            "arguments": args,
        }
        if call.fixed_arguments:
            row["fixed_arguments"] = {k: _shown_value(v) for k, v in call.fixed_arguments.items()}
        return row

    def _line(self, row: AuditRecord) -> bytes:
        return (_ENCODER.encode(row) + "\n").encode("utf-8", "replace")

    def after(self, call: InterceptedCall, result: dict[str, object]) -> Awaitable[None] | None:
        if self.sink is not None:
            # The call answers once its row is in the database (many calls' rows share one
            # write): a replica killed after answering has lost no row.  Bounded: a database
            # that is slow or down leaves the row buffered and the call goes on.
            done = self.sink.written(self.record(call, result))
            return None if done is None else _row_written(done)
        try:
            import asyncio

            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop: nothing to batch with
            loop = None
        if loop is None or self._fd is None or self._broken is not None:
            # At once: the first line (the log opened), or the first after a write failed, so
            # that a log that cannot be written fails the call closed.
            data = self._line(self.record(call, result))
            with self._lock:
                self._write_lines([*self._take(), data])
                self._broken = None
            return None
        # What the line needs, now; the line itself when the buffer is written.
        ended = _Ended(time.time(), time.monotonic(), call_outcome(result), result.get("state"))
        with self._lock:
            if self.settings.values:  # values the caller may still change: the line now
                self._waiting.append(self._line(self._row(call, ended, call.decisions)))
            else:  # (names and types only: the call's own copy of its arguments keeps them)
                self._ended.append((call, ended, tuple(call.decisions)))
            full = len(self._ended) + len(self._waiting) >= FLUSH_ROWS
        if full:
            self.flush()
        elif self._timer is None:
            self._timer = loop.call_later(FLUSH_SECONDS, self.flush)
        return None

    def _encode_ended(self) -> None:
        """(with the lock held)"""
        ended, self._ended = self._ended, []
        for call, end, decisions in ended:
            data = self._line(self._row(call, end, decisions))
            self._waiting.append(data)

    def _take(self) -> list[bytes]:
        """The waiting lines, handed over (call with the lock held)."""
        self._encode_ended()
        lines, self._waiting = self._waiting, []
        return lines

    def flush(self) -> None:
        """Write the lines waiting now."""
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
        with self._lock:
            lines = self._take()
            if not lines:
                return
            try:
                self._write_lines(lines)
            except OSError as exc:  # the next call's line is written at once: it fails closed
                self._broken = exc
                log.warning(
                    "audit: %d line(s) could not be written to %s: %s", len(lines), self.path, exc
                )

    def _write_lines(self, lines: list[bytes]) -> None:
        """*lines* in few writes, each at most half of ``max_bytes`` (or one line), so that
        the rotation still keeps every file within ``max_bytes``."""
        chunk: list[bytes] = []
        size = 0
        for line in lines:
            if chunk and size + len(line) > self.settings.max_bytes // 2:
                self._write(b"".join(chunk))
                chunk, size = [], 0
            chunk.append(line)
            size += len(line)
        if chunk:
            self._write(b"".join(chunk))

    # -- the file --------------------------------------------------------------------
    def _open(self) -> int:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(self.path, flags, 0o600)
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            raise OSError(f"{self.path} is not a regular file")
        if stat.S_IMODE(info.st_mode) != 0o600:
            os.fchmod(fd, 0o600)
        self._ino = info.st_ino
        return fd

    def _write(self, data: bytes) -> None:
        try:
            current = os.stat(self.path)
        except FileNotFoundError:
            current = None
        if self._fd is not None and (current is None or current.st_ino != self._ino):
            os.close(self._fd)  # another process rotated it (or it was removed)
            self._fd = None
        if current is not None and current.st_size + len(data) > self.settings.max_bytes:
            self._rotate()
        if self._fd is None:
            self._fd = self._open()
        os.write(self._fd, data)

    def _rotate(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        keep = self.settings.keep
        for index in range(keep - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{index}")
            if older.exists():
                os.replace(older, self.path.with_name(f"{self.path.name}.{index + 1}"))
        with contextlib.suppress(FileNotFoundError):
            os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))

    def close(self) -> None:
        if self.sink is not None:
            self.sink.flush()
        self.flush()
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


_open_logs: weakref.WeakSet[AuditInterceptor] = weakref.WeakSet()
_exit_hook: list[bool] = []


async def _row_written(done: asyncio.Future[None]) -> None:
    """Wait (at most :data:`WRITTEN_SECONDS`) for a record's row; replaces nothing."""
    import asyncio

    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(done), WRITTEN_SECONDS)


def _flush_at_exit(audit: AuditInterceptor) -> None:
    """Have *audit*'s waiting lines written at interpreter exit (if it is still alive then)."""
    if not _exit_hook:
        _exit_hook.append(True)
        atexit.register(_flush_open_logs)
    _open_logs.add(audit)


def _flush_open_logs() -> None:
    for audit in list(_open_logs):
        with contextlib.suppress(Exception):
            audit.flush()


def audit_files(home: Path) -> list[Path]:
    """The audit log's files, oldest first (the rotated ones, then ``audit.jsonl``)."""
    path = home / AUDIT_FILE
    rotated = []
    for candidate in path.parent.glob(f"{path.name}.*") if path.parent.is_dir() else ():
        suffix = candidate.name[len(path.name) + 1 :]
        if suffix.isdigit():
            rotated.append((int(suffix), candidate))
    return [p for _, p in sorted(rotated, reverse=True)] + [path]


def read_audit(home: Path) -> Iterator[JsonObject]:
    """Every readable line of the audit log, oldest first (bounded; regular files only)."""
    for path in audit_files(home):
        try:
            flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
            fd = os.open(path, flags)
        except OSError:
            continue
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                continue
            read = 0
            for raw in handle:
                read += len(raw)
                if read > MAX_READ_BYTES:
                    break
                if len(raw) > MAX_LINE_BYTES:
                    continue
                try:
                    record = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(record, dict):
                    yield record
