"""The bodies of an HTTP server's answers, bounded or filtered before the SDK reads them.

:func:`response_hook` is the ``response`` event hook of every HTTP client the host builds: an
SSE stream goes through :class:`~hermes_core.host.transports.sse_events.EventFilter` (the SDK
bounds its events by ``max_sse_event_size``); any other body raises
:class:`~hermes_core.host.transports.message_limit.MessageTooLargeError` past ``max_message_bytes``.

Cost per response: one wrapper object and one async generator, which httpx closes as it closes
its own.  Each wrapper closes the body's generator it iterates when it is done: one left open
would be finalised later by the event loop (a wake-up through its self-pipe and a task, per
response).  The classes are built once, here, not per response.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable, Coroutine
from typing import IO, Any

import httpx2

from hermes_core.host.connection.diagnostics import TransportNote, note
from hermes_core.host.connection.server_warnings import ServerWarnings
from hermes_core.host.transports.message_limit import MessageTooLargeError
from hermes_core.host.transports.sse_events import EventFilter, EventTooLarge

__all__ = ["CappedBody", "FilteredBody", "response_hook"]


class CappedBody(httpx2.AsyncByteStream):
    """*stream* (an HTTP body) raising ``MessageTooLargeError`` past *limit* bytes."""

    __slots__ = ("_errlog", "_limit", "_stream")

    def __init__(self, stream: Any, limit: int, errlog: IO[str] | None) -> None:
        self._stream = stream
        self._limit = limit
        self._errlog = errlog

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        chunks = self._stream.__aiter__()
        try:
            async for chunk in chunks:
                seen += len(chunk)
                if seen > self._limit:
                    raise _too_large(self._limit, self._errlog)
                yield chunk
        finally:
            if isinstance(chunks, AsyncGenerator):
                await chunks.aclose()

    async def aclose(self) -> None:
        await self._stream.aclose()


DRAIN_SECONDS = 0.25
"""How long closing an answer's SSE stream waits for the stream's end (see
:meth:`FilteredBody.aclose`)."""
DRAIN_BYTES = 64 * 1024
"""How much of an answer's SSE stream closing it reads, at most, looking for its end."""


class FilteredBody(httpx2.AsyncByteStream):
    """*stream* (an SSE body) without the events no server should send (``sse_events``).

    With *limit*, an event still open past *limit* bytes (a line that never ends, say) fails
    the body with the ``SSEError`` the SDK raises for an event over its bound, before the
    bytes pile up anywhere; the error rises through the readers above in the task reading
    them, so every generator on the way is finished there, none is left to the event loop.

    With *drain* (the answer to a POST), closing the body first reads what is left of it,
    for at most :data:`DRAIN_SECONDS` and :data:`DRAIN_BYTES`, and drops it.  The SDK closes
    an answer's stream as soon as the JSON-RPC response is in, usually just before the
    server's end of the stream arrives; httpx then cannot reuse the connection, so every call
    paid for a new TCP connection (an address lookup in a worker thread, a connect, the
    server's accept) and a close on both sides.  Read to its end, the body leaves the
    connection in the pool for the next request.  The SDK has the response already: the wait
    delays no call, and a stream that does not end in time is closed as before.

    The body's generator has one owner at a time: the reading generator until
    :meth:`aclose` takes it (to drain it, then close it), or until the reader closes it
    itself.  Both closing it at once (the reader finalised by the event loop while the
    drain reads) failed with "aclose(): asynchronous generator is already running"."""

    __slots__ = ("_chunks", "_drain", "_ended", "_errlog", "_limit", "_stream", "_warnings")

    def __init__(
        self,
        stream: Any,
        warnings: ServerWarnings,
        drain: bool = False,
        limit: int | None = None,
        errlog: IO[str] | None = None,
    ) -> None:
        self._stream = stream
        self._warnings = warnings
        self._drain = drain
        self._limit = limit
        self._errlog = errlog
        self._chunks: AsyncIterator[bytes] | None = None
        self._ended = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        events = EventFilter(self._warnings, self._limit)
        chunks = self._chunks = self._stream.__aiter__()
        try:
            async for chunk in chunks:
                try:
                    out = events.feed(chunk)
                except EventTooLarge as error:
                    raise _event_too_large(error, self._errlog) from None
                if out:
                    yield out
            self._ended = True
            rest = events.end()
            if rest:
                yield rest
        finally:
            if self._chunks is chunks:  # still ours: aclose() has not taken it
                self._chunks = None
                await _close(chunks)

    async def aclose(self) -> None:
        chunks, self._chunks = self._chunks, None
        try:
            if chunks is not None:
                try:
                    if self._drain and not self._ended:
                        await _read_to_end(chunks)
                finally:
                    await _close(chunks)
        finally:
            await self._stream.aclose()


async def _close(chunks: AsyncIterator[bytes]) -> None:
    """Close a body's generator (a plain iterator has nothing to close)."""
    if isinstance(chunks, AsyncGenerator):
        await chunks.aclose()


def _event_too_large(error: EventTooLarge, errlog: IO[str] | None) -> Exception:
    """The SDK's own error for an event over its bound (it reports it as such), noted."""
    if errlog is not None:
        note(errlog, TransportNote(str(MessageTooLargeError(error.limit))))
    return httpx2.SSEError(str(error))


async def _read_to_end(chunks: AsyncIterator[bytes]) -> None:
    """Read and drop what is left of *chunks*, within the bounds above; a stream that does
    not end in time, or fails, is left for the caller to close."""
    import anyio

    seen = 0
    with anyio.move_on_after(DRAIN_SECONDS):
        try:
            async for chunk in chunks:
                seen += len(chunk)
                if seen > DRAIN_BYTES:
                    return
        except (httpx2.HTTPError, RuntimeError, OSError):
            return


def _too_large(limit: int, errlog: IO[str] | None) -> Exception:
    error = MessageTooLargeError(limit)
    if errlog is not None:
        note(errlog, TransportNote(str(error)))
    return error


def response_hook(
    limit: int, errlog: IO[str] | None, warnings: ServerWarnings | None = None
) -> Callable[[Any], Coroutine[Any, Any, None]]:
    """A response hook bounding every body by *limit* bytes (an SSE stream: each event); an
    SSE stream loses the events that are not valid JSON-RPC (when *warnings* is given)."""

    async def bodies(response: Any) -> None:
        kind = response.headers.get("content-type", "")
        if kind[:17].lower() == "text/event-stream":
            if warnings is not None:
                drain = response.request.method == "POST"
                response.stream = FilteredBody(response.stream, warnings, drain, limit, errlog)
            return
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            await response.aclose()
            raise _too_large(limit, None)
        response.stream = CappedBody(response.stream, limit, errlog)

    return bodies
