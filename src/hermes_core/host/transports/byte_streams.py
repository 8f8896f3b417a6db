"""MCP over any anyio byte stream: the toolkit behind a plugin's socket (or pipe) transport.

:func:`open_byte_stream` turns a connected :class:`anyio.abc.ByteStream` (a Unix or TCP socket
from ``anyio.connect_unix``/``connect_tcp``, a pipe, a websocket's bytes wrapped as one) into
the ``(read, write)`` pair an MCP session runs on (:data:`~hermes_core.plugins.types.
TransportStreams`), with the same framing and bounds as Hermes' own stdio transport:

* newline-delimited JSON-RPC, one message a line (the MCP stdio framing);
* a line longer than the server's ``max_message_bytes`` ends the connection with a reason (a
  record in *errlog*, shown when the server fails), never memory growing without bound;
* a line that is not JSON-RPC, or a notification with bad parameters, is dropped with one
  rate-limited warning naming the server, never a traceback;
* the read stream carries ``SessionMessage`` (and ends when the peer closes), the write stream
  takes ``SessionMessage``; leaving the context closes the byte stream.

It is public API for plugin transports (``docs/plugins/transport.md``), re-exported by
:mod:`hermes_core.host.transports`.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import IO, TYPE_CHECKING

from hermes_core.host.connection.diagnostics import TransportNote, note
from hermes_core.host.connection.server_warnings import ServerWarnings
from hermes_core.host.transports.message_limit import message_limit
from hermes_core.host.transports.stdio import LineFramer, MessageTooLarge, parse_message
from hermes_core.plugins.types import ServerSpec, TransportStreams

if TYPE_CHECKING:
    from anyio.abc import ByteStream
    from mcp.shared.message import SessionMessage

__all__ = ["open_byte_stream"]

log = logging.getLogger(__name__)

_QUIET = (OSError,)
_FLUSH_SECONDS = 2.0
"""How long closing waits for the messages already handed to the write stream to be sent."""


@asynccontextmanager
async def open_byte_stream(
    stream: ByteStream,
    spec: ServerSpec,
    errlog: IO[str],
    *,
    max_message_bytes: int | None = None,
) -> AsyncIterator[TransportStreams]:
    """Run an MCP session's streams over *stream*, a connected anyio byte stream.

    *spec* is the server's :class:`~hermes_core.plugins.types.ServerSpec` as ``connect`` got
    it: its ``name`` labels warnings and its ``max_message_bytes`` bounds one incoming line
    (*max_message_bytes* overrides it).  *errlog* is ``connect``'s: a message over the bound is
    noted there, so the server's failure says why.  *stream* is closed on exit, whatever
    happened; the caller only opens it (``await anyio.connect_unix(path)``).
    """
    import anyio
    from mcp.shared.message import SessionMessage

    limit = max_message_bytes if max_message_bytes and max_message_bytes > 0 else None
    limit = limit or message_limit(spec)
    name = spec.name or "server"
    warnings = ServerWarnings(name)
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    ended = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, *_QUIET)

    async def read_lines() -> None:
        framer = LineFramer(limit)
        async with read_writer:
            try:
                while True:
                    chunk = await stream.receive()
                    for line in framer.feed(chunk):
                        message = parse_message(line, warnings, "a line")
                        if message is not None:
                            await read_writer.send(message)
            except MessageTooLarge:
                reason = (
                    f"the server sent a message larger than max_message_bytes "
                    f"({limit} bytes); disconnected"
                )
                log.warning("MCP server '%s': %s", name, reason)
                note(errlog, TransportNote(reason))
            except ended:
                pass

    written = anyio.Event()

    async def write_lines() -> None:
        async with write_reader:
            try:
                async for message in write_reader:
                    await stream.send(_line(message))
            except ended:
                await read_writer.aclose()  # the requests in flight fail now, not at deadline
            finally:
                written.set()

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(read_lines)
            group.start_soon(write_lines)
            try:
                yield read_stream, write_stream
            finally:
                read_stream.close()
                write_stream.close()
                # What the session sent last (a response, a cancellation) still goes out.
                with anyio.move_on_after(_FLUSH_SECONDS, shield=True):
                    await written.wait()
                group.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True), contextlib.suppress(*ended):
            await stream.aclose()


def _line(message: SessionMessage) -> bytes:
    text: str = message.message.model_dump_json(by_alias=True, exclude_unset=True)
    return (text + "\n").encode()
