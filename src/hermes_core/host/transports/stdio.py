"""The stdio transport: a server subprocess speaking newline-delimited JSON-RPC.

Our own reader instead of the SDK's ``stdio_client``, on the same SDK streams
(``SessionMessage`` in and out), because a server is untrusted:

* **Linear reading.**  The SDK re-joins its whole pending buffer with every
  64 KiB chunk (``(buffer + chunk).split("\\n")``), so one large line costs time
  quadratic in its length (10 MB 0.8 s, 40 MB 17.6 s).  Here chunks are kept in
  a list and only each new chunk is searched for the newline.
* **Bounded messages.**  A line longer than ``max_message_bytes`` (default
  64 MiB) ends the connection with a clear reason instead of growing forever.
* **Garbage and bogus notifications.**  A line that is not JSON-RPC, or a
  notification with a known method and invalid parameters, is dropped with one
  warning line naming the server (at most one every few seconds, with a count of
  what was left unsaid), never a traceback.
* **Bounded stderr.**  The server's stderr is read here and written line by line
  (each line cut at :data:`MAX_STDERR_LINE`) to the connection's bounded log,
  never to a file that grows forever.
* **No writer task.**  The session's write stream is :class:`PipeSender`: a message is
  framed by its sender and written by one loop callback, requests sent together share a few
  writes, and a lone request costs no hop through a memory stream to a writer task (about
  200 Python calls and 80 µs of CPU per call less than the SDK's transport).
* **The whole process group ends.**  The server starts in a new session (POSIX);
  on every way out of this context its stdin is closed, it gets a moment to
  exit, and then the *group* is terminated, so grandchildren never outlive it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import IO, TYPE_CHECKING, TypeAlias

from hermes_core.host.connection.diagnostics import TransportNote, note
from hermes_core.host.connection.server_warnings import ServerWarnings
from hermes_core.host.transports.raw_calls import RawCalls

if TYPE_CHECKING:
    import asyncio

    from anyio.abc import ByteReceiveStream, ByteSendStream, Process
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
    from mcp.shared.message import SessionMessage

SessionWrite: TypeAlias = "PipeSender | MemoryObjectSendStream[SessionMessage]"
"""The session's write stream: the pipe itself, or a memory stream to a writer task."""

__all__ = [
    "DEFAULT_MAX_MESSAGE_BYTES",
    "MAX_STDERR_LINE",
    "LineFramer",
    "PipeSender",
    "message_of",
    "open_stdio_process",
    "parse_message",
]

log = logging.getLogger(__name__)

DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""``max_message_bytes`` when a server sets none (the config's default)."""
MAX_STDERR_LINE = 4096
"""Characters of one stderr line that are kept (the rest is cut, with a count)."""
_EXIT_GRACE_SECONDS = 2.0
_KILL_TIMEOUT_SECONDS = 2.0
_ONE_STEP_BYTES = 64 * 1024
_WRITE_BATCH_COUNT = 32
"""At most this many queued messages go into one write to the server's stdin (see
:class:`PipeSender` and, where anyio keeps no asyncio writer, :func:`_frame_waiting`)."""
_WRITE_BATCH_BYTES = 256 * 1024
"""Bytes unread in the pipe above which senders wait (:class:`PipeSender`); about the most
one write of the writer task joins (:func:`_frame_waiting`)."""


class MessageTooLarge(Exception):
    """A line longer than the limit."""


class LineFramer:
    """Split a byte stream into lines in linear time, refusing lines over *limit* bytes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._parts: list[bytes] = []
        self._pending = 0

    def feed(self, chunk: bytes) -> list[bytes]:
        """The complete lines (without ``\\n``) that *chunk* finishes."""
        lines: list[bytes] = []
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                break
            piece = chunk[start:end]
            if self._pending + len(piece) > self.limit:
                raise MessageTooLarge
            if self._parts:
                self._parts.append(piece)
                lines.append(b"".join(self._parts))
                self._parts, self._pending = [], 0
            else:
                lines.append(piece)
            start = end + 1
        rest = chunk[start:]
        if rest:
            self._pending += len(rest)
            if self._pending > self.limit:
                raise MessageTooLarge
            self._parts.append(rest)
        return lines


#: A task's status pushed by the server (2025-11-25, 2026-07-28): not in the SDK's tables.
TASK_STATUS_NOTIFICATIONS = frozenset({"notifications/tasks/status", "notifications/tasks"})


def _check_notification(raw: Mapping[str, object]) -> str | None:
    """Why a notification with a known method is invalid, or ``None``."""
    import mcp_types as types
    from pydantic import ValidationError

    method = raw.get("method")
    if not isinstance(method, str) or not method.startswith("notifications/"):
        return None
    if method in TASK_STATUS_NOTIFICATIONS:
        return None  # the session drops them; the host follows a task by tasks/get
    try:
        types.server_notification_adapter.validate_python(
            {"method": method, "params": raw.get("params") or {}}
        )
    except ValidationError as exc:
        if any(e.get("type") == "union_tag_invalid" for e in exc.errors()):
            return None  # a method this SDK does not know: the session drops it quietly
        return f"ignoring an invalid {method!r} notification"
    return None


def parse_message(
    line: bytes, warnings: ServerWarnings, where: str = "output on stdout"
) -> SessionMessage | None:
    """The ``SessionMessage`` of one line (or SSE event's data), or ``None`` (dropped, with a
    warning)."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage
    from pydantic import ValidationError
    from pydantic_core import from_json

    # A small message (most of them) in one step, parsed and validated from its bytes; anything
    # else takes the careful way.  Above 64 KiB the SDK's validate_json gets slower than json
    # (about 3x at 200 KB), so large results take the careful way too.
    try:
        message = (
            types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            if len(line) <= _ONE_STEP_BYTES
            else None
        )
    except ValidationError:
        message = None
    if message is not None:
        if isinstance(message, types.JSONRPCNotification):
            problem = _check_notification({"method": message.method, "params": message.params})
            if problem is not None:
                warnings.warn("notification", problem)
                return None
        return SessionMessage(message)
    try:
        # Bytes straight to objects (pydantic-core's parser): no decoded copy of the whole
        # line, and 8-16x faster than decode + json.loads on a large result.
        raw = from_json(line)
    except ValueError:
        # Not UTF-8, a lone surrogate escape, or not JSON: the standard library's reading,
        # which replaces bad bytes and keeps lone surrogates, decides.
        text = line.decode("utf-8", "replace").strip()
        if not text:
            return None
        try:
            raw = json.loads(text)
        except ValueError:
            warnings.warn("garbage", f"ignoring {where} that is not JSON-RPC")
            return None
    return message_of(raw, warnings, where)


def message_of(
    raw: object, warnings: ServerWarnings, where: str = "output on stdout"
) -> SessionMessage | None:
    """The ``SessionMessage`` of one message already parsed from JSON, or ``None`` (dropped,
    with a warning)."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage
    from pydantic import ValidationError

    if isinstance(raw, dict) and "id" not in raw:
        problem = _check_notification(raw)
        if problem is not None:
            warnings.warn("notification", problem)
            return None
    try:
        message = types.jsonrpc_message_adapter.validate_python(raw, by_name=False)
    except ValidationError:
        warnings.warn("garbage", f"ignoring {where} that is not JSON-RPC")
        return None
    return SessionMessage(message)


def _frame_waiting(
    message: SessionMessage,
    waiting: MemoryObjectReceiveStream[SessionMessage],
    nothing_more: tuple[type[BaseException], ...],
) -> bytes:
    """*message* and the messages already waiting behind it, as one write.

    Calls started together (200 at once through ``asyncio.gather``) each hand the writer a
    request before it runs; it takes those already waiting too and writes them in one system
    call instead of one each, in the order they were sent, and the server reads them in one
    piece.  A write carries at most :data:`_WRITE_BATCH_COUNT` messages (about
    :data:`_WRITE_BATCH_BYTES`), so the server starts on the first ones while the rest are
    still being written: the two sides keep working side by side.  A message alone is written
    at once, as before: nothing waits for company.
    """
    lines = [message.message.model_dump_json(by_alias=True, exclude_unset=True)]
    size = len(lines[0])
    while size < _WRITE_BATCH_BYTES and len(lines) < _WRITE_BATCH_COUNT:
        try:
            more = waiting.receive_nowait()
        except nothing_more:
            break
        line = more.message.model_dump_json(by_alias=True, exclude_unset=True)
        lines.append(line)
        size += len(line)
    lines.append("")
    return "\n".join(lines).encode()


class PipeSender:
    """The session's write stream over the server's stdin, with no writer task between them.

    ``send`` frames the message.  The first message of a turn of the event loop is written at
    once, so the server starts on it while this process finishes its turn (the SDK's own
    transport hands every message through a memory stream to a writer task, which writes it
    a turn later); what else is sent in that turn is queued, and one loop callback writes the
    queue, at most :data:`_WRITE_BATCH_COUNT` messages a turn, in the order they were sent.
    Requests sent together (200 calls at once) thus share a few writes, and the server starts
    on the first ones while the rest are still being written.  When the pipe holds more than
    :data:`_WRITE_BATCH_BYTES` unread (the server reads slower than we write), senders wait for
    it to drain.  A pipe that breaks ends the session's read stream (*on_broken*), as a failed
    write always did: the requests in flight fail at once instead of waiting for their
    deadlines.
    """

    __slots__ = (
        "_closed",
        "_loop",
        "_on_broken",
        "_pending",
        "_scheduled",
        "_writer",
        "raw_calls",
    )

    def __init__(self, writer: asyncio.StreamWriter, on_broken: Callable[[], None]) -> None:
        import asyncio

        self._writer = writer  # the asyncio StreamWriter of the child's stdin
        self._on_broken = on_broken
        self._loop = asyncio.get_running_loop()
        self._pending: list[str] = []
        self._scheduled = False
        self._closed = False
        #: Plain ``tools/call`` requests on this pipe (set by :func:`open_stdio_process`).
        self.raw_calls: RawCalls | None = None

    async def send(self, item: SessionMessage) -> None:
        await self.send_text(item.message.model_dump_json(by_alias=True, exclude_unset=True))

    async def send_text(self, line: str) -> None:
        """Send one message already framed as JSON text (one line, no ``\n``)."""
        if self._closed:
            import anyio

            raise anyio.ClosedResourceError
        transport = self._writer.transport
        if self._scheduled:
            self._pending.append(line)  # written with the others sent this turn
        else:
            # The first message of a turn goes out at once: the server starts on it while
            # this process finishes its turn.  What else is sent this turn is batched.
            self._scheduled = True
            self._loop.call_soon(self._flush)
            if not transport.is_closing():
                try:
                    self._writer.write((line + "\n").encode())
                except (ConnectionError, RuntimeError):
                    self._broken()
                    return
        if transport.is_closing():
            self._broken()
        elif transport.get_write_buffer_size() > _WRITE_BATCH_BYTES:
            try:
                await self._writer.drain()
            except (ConnectionError, RuntimeError):
                self._broken()

    def _flush(self) -> None:
        pending = self._pending
        if len(pending) > _WRITE_BATCH_COUNT:
            batch, self._pending = pending[:_WRITE_BATCH_COUNT], pending[_WRITE_BATCH_COUNT:]
            self._loop.call_soon(self._flush)  # the rest on the loop's next turn
        else:
            batch, self._pending = pending, []
            self._scheduled = False
        if not batch:
            return  # closed or broken since this callback was scheduled
        transport = self._writer.transport
        if transport.is_closing():
            self._broken()
            return
        batch.append("")
        try:
            self._writer.write("\n".join(batch).encode())
        except (ConnectionError, RuntimeError):
            self._broken()
            return
        if transport.is_closing():  # the write failed at once (the server closed its stdin)
            self._broken()

    def _broken(self) -> None:
        if not self._closed:
            self._closed = True
            self._pending = []
            self._on_broken()

    def close(self) -> None:
        """No more messages; what is queued is still written."""
        if self._pending and not self._writer.transport.is_closing():
            self._scheduled = True  # (a callback still due finds nothing to write)
            lines, self._pending = self._pending, []
            lines.append("")
            with contextlib.suppress(ConnectionError, RuntimeError):
                self._writer.write("\n".join(lines).encode())
        self._closed = True

    async def aclose(self) -> None:
        self.close()

    async def __aenter__(self) -> PipeSender:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()


def _stdin_writer(stdin: ByteSendStream) -> asyncio.StreamWriter | None:
    """The asyncio ``StreamWriter`` under anyio's stdin stream, or ``None`` (another backend,
    or an anyio that no longer keeps it there: the writer task takes over then)."""
    import asyncio

    writer = getattr(stdin, "_stream", None)
    return writer if isinstance(writer, asyncio.StreamWriter) else None


class _StderrLines:
    """Split stderr into lines in linear time, keeping the first *keep* bytes of each."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self._line = bytearray()
        self._cut = 0

    def feed(self, chunk: bytes) -> list[str]:
        done: list[str] = []
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            room = max(0, self.keep - len(self._line))
            self._line += piece[:room]
            self._cut += max(0, len(piece) - room)
            if end < 0:
                return done
            done.append(self._finish())
            start = end + 1

    def _finish(self) -> str:
        text = self._line.decode("utf-8", "replace").rstrip("\r")
        if self._cut:
            text += f" … ({self._cut} bytes cut)"
        self._line, self._cut = bytearray(), 0
        return text


async def _end_process_group(process: Process) -> None:
    """Close stdin, wait briefly, then end the whole group (grandchildren included)."""
    import anyio

    stdin = process.stdin
    if stdin is not None:
        with contextlib.suppress(Exception):
            await stdin.aclose()
    with anyio.move_on_after(_EXIT_GRACE_SECONDS):
        while process.returncode is None:
            await anyio.sleep(0.02)
    if sys.platform != "win32":
        from mcp.os.posix.utilities import terminate_posix_process_tree

        # Always, even when the leader exited: its children may still be running.
        await terminate_posix_process_tree(process, _KILL_TIMEOUT_SECONDS)
    elif process.returncode is None:  # pragma: no cover - Windows
        with contextlib.suppress(ProcessLookupError):
            process.kill()
    with anyio.move_on_after(_KILL_TIMEOUT_SECONDS):
        await process.wait()


async def _pump_stdout(
    stdout: ByteReceiveStream,
    read_writer: MemoryObjectSendStream[SessionMessage | Exception],
    warnings: ServerWarnings,
    max_message_bytes: int,
    errlog: IO[str],
    raw: RawCalls | None = None,
) -> None:
    """The server's stdout, framed into messages for the session (a message past the bound
    disconnects, with a transport note in the server's log); the answers of *raw*'s calls go
    to it.  However the stdout ends, *raw*'s calls in flight fail."""
    import anyio
    from pydantic_core import from_json

    framer = LineFramer(max_message_bytes)
    others = False  # messages went to the session while a plain call waited
    async with read_writer:
        try:
            async for chunk in stdout:
                for line in framer.feed(chunk):
                    if raw is not None and raw.waiting:
                        # A plain call is waiting: parsed once, its answer taken here.
                        try:
                            parsed = from_json(line)
                        except ValueError:
                            message = parse_message(line, warnings)
                        else:
                            if raw.take(parsed, after_others=others):
                                others = False
                                continue
                            message = message_of(parsed, warnings)
                        others = others or message is not None
                    else:
                        message = parse_message(line, warnings)
                    if message is not None:
                        await read_writer.send(message)
        except MessageTooLarge:
            reason = (
                f"the server sent a message larger than max_message_bytes "
                f"({max_message_bytes} bytes); disconnected"
            )
            log.warning("MCP server '%s': %s", warnings.server, reason)
            note(errlog, TransportNote(reason))  # a record, never a line of its stderr
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        finally:
            if raw is not None:
                raw.close()


async def _pump_stderr(stderr: ByteReceiveStream, errlog: IO[str]) -> None:
    """The server's stderr into *errlog*, line by line, each line bounded."""
    import anyio

    lines = _StderrLines(MAX_STDERR_LINE)
    with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        async for chunk in stderr:
            for line in lines.feed(chunk):
                errlog.write(line + "\n")
            errlog.flush()


async def _pump_stdin(
    stdin: ByteSendStream,
    write_reader: MemoryObjectReceiveStream[SessionMessage],
    read_writer: MemoryObjectSendStream[SessionMessage | Exception],
) -> None:
    """The session's messages to the server's stdin (where no direct pipe writer exists)."""
    import anyio

    async with write_reader:
        try:
            nothing_more = (anyio.WouldBlock, anyio.EndOfStream)
            async for message in write_reader:
                await stdin.send(_frame_waiting(message, write_reader, nothing_more))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_writer.aclose()


def _broken(
    read_writer: MemoryObjectSendStream[SessionMessage | Exception], raw: RawCalls | None
) -> None:
    """The server's stdin broke: the session's reading ends and the plain calls in flight fail
    at once (the server is gone)."""
    read_writer.close()
    if raw is not None:
        raw.close()


@asynccontextmanager
async def open_stdio_process(
    command: list[str],
    *,
    server: str,
    env: dict[str, str],
    cwd: str | None,
    errlog: IO[str],
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    on_spawn: Callable[[Process], None] | None = None,
) -> AsyncIterator[tuple[MemoryObjectReceiveStream[SessionMessage | Exception], SessionWrite]]:
    """Start *command*; yield the SDK's (read stream, write stream) pair for a session."""
    import anyio
    from mcp.shared.message import SessionMessage

    process = await anyio.open_process(
        command,
        env=env,
        cwd=cwd,
        start_new_session=sys.platform != "win32",
    )
    if on_spawn is not None:
        on_spawn(process)
    stdin, stdout, stderr = process.stdin, process.stdout, process.stderr
    assert stdin is not None and stdout is not None and stderr is not None
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    pipe = _stdin_writer(stdin)
    write_stream: SessionWrite
    raw = None
    if pipe is not None:
        sender = PipeSender(pipe, lambda: _broken(read_writer, raw))
        raw = sender.raw_calls = RawCalls(sender.send_text)
        write_stream, write_reader = sender, None
    else:
        write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    warnings = ServerWarnings(server)

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(
                _pump_stdout, stdout, read_writer, warnings, max_message_bytes, errlog, raw
            )
            group.start_soon(_pump_stderr, stderr, errlog)
            if write_reader is not None:
                group.start_soon(_pump_stdin, stdin, write_reader, read_writer)
            try:
                yield read_stream, write_stream
            finally:
                with anyio.CancelScope(shield=True):
                    if raw is not None:
                        raw.close()
                    read_stream.close()
                    write_stream.close()
                    await _end_process_group(process)
                group.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            if process.returncode is None:  # an error before the group was entered
                await _end_process_group(process)
        with contextlib.suppress(Exception):
            await process.aclose()


def child_cwd(cwd: str | None) -> str | None:
    """*cwd* when it is an existing folder; ``ValueError`` otherwise."""
    if cwd is not None and not os.path.isdir(cwd):
        raise ValueError(f"cwd {cwd!r} is not an existing folder")
    return cwd
