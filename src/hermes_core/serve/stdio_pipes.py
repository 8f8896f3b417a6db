"""A server's stdio transport on asyncio pipes: this process's stdin and stdout as the SDK's
(read stream, write stream) pair, with no thread between the wire and the event loop.

The SDK's ``stdio_server`` reads each line and writes and flushes each message in a worker
thread (three thread hand-offs a call at least); ``hermes mcp proxy`` puts a hop in front of
every call it forwards, so its own hop has to cost little.  Here the stdin pipe is read by the
event loop itself, split into lines by the host's :class:`LineFramer` (linear time, each line
bounded by *max_message_bytes*), and messages go out through the host's :class:`PipeSender`
(framed by the sender, the first of a turn written at once).

As with the SDK's transport, while serving fd 0 reads the null device and fd 1 points at
stderr, so a stray ``print`` or a child that inherits them cannot tear a frame; both are put
back on the way out.  Where stdin or stdout is not a pipe, socket or terminal (a regular file:
``hermes mcp proxy < requests.jsonl``), :func:`stdio_pipes` yields ``None`` and the caller uses
the SDK's transport.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
import sys
from collections.abc import AsyncIterator, Callable, Iterator

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.shared.message import SessionMessage
from pydantic_core import from_json

from hermes_core.host.transports.stdio import (
    DEFAULT_MAX_MESSAGE_BYTES,
    LineFramer,
    MessageTooLarge,
    PipeSender,
)

__all__ = ["Intercept", "stdio_pipes"]

log = logging.getLogger(__name__)
_CHUNK = 64 * 1024


def _pipe_like(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


@contextlib.contextmanager
def _claimed(fd: int, diversion: int) -> Iterator[int]:
    """A private duplicate of *fd* (the wire); *fd* itself points at *diversion* meanwhile."""
    private = os.dup(fd)
    os.set_inheritable(private, False)
    try:
        os.dup2(diversion, fd)
        try:
            yield private
        finally:
            os.dup2(private, fd)
    finally:
        os.close(private)


async def _writer(fd: int) -> asyncio.StreamWriter:
    loop = asyncio.get_running_loop()
    pipe = os.fdopen(fd, "wb", buffering=0, closefd=False)
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.streams.FlowControlMixin(loop=loop), pipe
    )
    return asyncio.StreamWriter(transport, protocol, None, loop)


async def _reader(fd: int, limit: int) -> tuple[asyncio.StreamReader, asyncio.BaseTransport]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=limit, loop=loop)
    pipe = os.fdopen(fd, "rb", buffering=0, closefd=False)
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader, loop=loop), pipe
    )
    return reader, transport


#: A filter of the read side: given each parsed message, ``True`` when it took the message
#: (the server never sees it).
Intercept = Callable[[object], bool]


def _parse(line: bytes, intercept: Intercept | None) -> SessionMessage | Exception | None:
    if not line.strip():
        return None
    try:
        if intercept is None:
            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        else:
            raw = from_json(line)
            if intercept(raw):
                return None
            message = types.jsonrpc_message_adapter.validate_python(raw, by_name=False)
        return SessionMessage(message)
    except Exception as exc:  # noqa: BLE001 - the server answers a bad line, as the SDK's does
        return exc


@contextlib.asynccontextmanager
async def stdio_pipes(
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    intercept: Callable[[PipeSender], Intercept] | None = None,
) -> AsyncIterator[tuple[MemoryObjectReceiveStream[SessionMessage | Exception], PipeSender] | None]:
    """This process's stdin/stdout as (read stream, write stream), or ``None`` where either
    is not pipe-like (see the module's docstring).  *intercept*, given the write side, makes
    the read side's filter: what it takes never reaches the read stream."""
    if sys.platform == "win32" or not (_pipe_like(0) and _pipe_like(1)):
        yield None
        return
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        with _claimed(0, null) as stdin_fd, _claimed(1, 2) as stdout_fd:
            reader, read_transport = await _reader(stdin_fd, _CHUNK)
            writer = await _writer(stdout_fd)
            read_writer, read_stream = anyio.create_memory_object_stream[
                SessionMessage | Exception
            ](0)
            sender = PipeSender(writer, read_writer.close)
            taken = intercept(sender) if intercept is not None else None

            async def pump() -> None:
                framer = LineFramer(max_message_bytes)
                async with read_writer:
                    try:
                        while chunk := await reader.read(_CHUNK):
                            for line in framer.feed(chunk):
                                item = _parse(line, taken)
                                if item is not None:
                                    await read_writer.send(item)
                    except MessageTooLarge:
                        log.warning(
                            "the client sent a message larger than %d bytes; disconnected",
                            max_message_bytes,
                        )
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                        pass

            try:
                async with anyio.create_task_group() as group:
                    group.start_soon(pump)
                    try:
                        yield read_stream, sender
                    finally:
                        sender.close()
                        read_stream.close()
                        group.cancel_scope.cancel()
            finally:
                read_transport.close()
                with contextlib.suppress(Exception):
                    await writer.drain()
                writer.close()
                with contextlib.suppress(Exception):
                    await writer.wait_closed()
    finally:
        os.close(null)
