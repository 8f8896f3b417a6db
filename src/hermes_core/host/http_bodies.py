"""The bodies of an HTTP server's answers, bounded or filtered before the SDK reads them.

:func:`response_hook` is the ``response`` event hook of every HTTP client the host builds: an
SSE stream goes through :class:`~hermes_core.host.sse_events.EventFilter` (the SDK bounds its
events by ``max_sse_event_size``); any other body raises
:class:`~hermes_core.host.transports.MessageTooLargeError` past ``max_message_bytes``.

Cost per response: one wrapper object and one async generator, which httpx closes as it closes
its own.  Each wrapper closes the body's generator it iterates when it is done: one left open
would be finalised later by the event loop (a wake-up through its self-pipe and a task, per
response).  The classes are built once, here, not per response.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable, Coroutine
from typing import IO, Any

import httpx2

from hermes_core.host.server_warnings import ServerWarnings
from hermes_core.host.sse_events import EventFilter

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


class FilteredBody(httpx2.AsyncByteStream):
    """*stream* (an SSE body) without the events no server should send (``sse_events``)."""

    __slots__ = ("_stream", "_warnings")

    def __init__(self, stream: Any, warnings: ServerWarnings) -> None:
        self._stream = stream
        self._warnings = warnings

    async def __aiter__(self) -> AsyncIterator[bytes]:
        events = EventFilter(self._warnings)
        chunks = self._stream.__aiter__()
        try:
            async for chunk in chunks:
                out = events.feed(chunk)
                if out:
                    yield out
            rest = events.end()
            if rest:
                yield rest
        finally:
            if isinstance(chunks, AsyncGenerator):
                await chunks.aclose()

    async def aclose(self) -> None:
        await self._stream.aclose()


def _too_large(limit: int, errlog: IO[str] | None) -> Exception:
    from hermes_core.host.diagnostics import TransportNote, note
    from hermes_core.host.transports import MessageTooLargeError

    error = MessageTooLargeError(limit)
    if errlog is not None:
        note(errlog, TransportNote(str(error)))
    return error


def response_hook(
    limit: int, errlog: IO[str] | None, warnings: ServerWarnings | None = None
) -> Callable[[Any], Coroutine[Any, Any, None]]:
    """A response hook bounding every body but an SSE stream by *limit* bytes; an SSE stream
    loses the events that are not valid JSON-RPC (when *warnings* is given)."""

    async def bodies(response: Any) -> None:
        kind = response.headers.get("content-type", "")
        if kind[:17].lower() == "text/event-stream":
            if warnings is not None:
                response.stream = FilteredBody(response.stream, warnings)
            return
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            await response.aclose()
            raise _too_large(limit, None)
        response.stream = CappedBody(response.stream, limit, errlog)

    return bodies
