"""The transport's read stream as the session reads it, noting the moment it ends."""

from __future__ import annotations

import asyncio
import contextvars
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.client._transport import ReadStream
    from mcp.shared.message import SessionMessage

__all__ = ["EndWatch"]


class EndWatch:
    """The transport's read stream as the session reads it, noting when it ends.

    The session's receive loop is the only reader, so the end of the stream (the server
    exited, crashed or dropped the connection) is seen here the moment it happens: *gone* is
    set and :attr:`ended` becomes true, before the session fails the requests in flight.  The
    SDK's loop reads through ``__anext__`` either way, so this adds no call per message.
    """

    __slots__ = ("_gone", "_inner", "ended")

    def __init__(self, inner: ReadStream[SessionMessage | Exception], gone: asyncio.Event) -> None:
        self._inner = inner
        self._gone = gone
        self.ended = False

    def _end(self) -> None:
        self.ended = True
        self._gone.set()

    async def receive(self) -> SessionMessage | Exception:
        try:
            return await self._inner.receive()
        except _stream_ends():
            self._end()
            raise

    def __aiter__(self) -> EndWatch:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self._inner.receive()
        except _stream_ends() as exc:
            self._end()
            import anyio  # (once per stream: it ends once)

            if isinstance(exc, anyio.EndOfStream):
                raise StopAsyncIteration from None
            raise

    async def __aenter__(self) -> EndWatch:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc_val, exc_tb)

    async def aclose(self) -> None:
        await self._inner.aclose()

    last_context: Any = None  # (a property in _ContextEndWatch)
    """The sender's context of the last message (the SDK's HTTP streams keep one)."""

    def __getattr__(self, name: str) -> object:  # statistics, close, ... whatever the stream has
        return getattr(self._inner, name)

    @staticmethod
    def around(inner: ReadStream[SessionMessage | Exception], gone: asyncio.Event) -> EndWatch:
        if hasattr(inner, "last_context"):
            return _ContextEndWatch(inner, gone)
        return EndWatch(inner, gone)


class _ContextEndWatch(EndWatch):
    """:class:`EndWatch` over a stream that keeps each message's sender context."""

    __slots__ = ()

    @property  # (read through from the stream, not stored)
    def last_context(self) -> contextvars.Context | None:
        # A stream with a ``last_context`` (see ``around``).
        context: contextvars.Context | None = getattr(self._inner, "last_context")  # noqa: B009
        return context


def _stream_ends() -> tuple[type[BaseException], ...]:
    import anyio

    return (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError)
