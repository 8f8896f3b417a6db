"""An HTTP server's SSE stream, with the events no server should send dropped before the SDK.

The ``mcp`` SDK ends a whole call when one event of its SSE answer does not parse (a
notification with invalid parameters, a line that is not JSON), and logs a pydantic traceback.
Over stdio our transport drops such a line with one warning; :class:`EventFilter` gives
Streamable HTTP and SSE the same treatment: each ``message`` event is checked as a stdio line
is (:func:`hermes_core.host.transports.stdio.parse_message`), and an event that fails is
dropped with one rate-limited warning naming the server.  Everything else passes byte for
byte.  Events larger than :data:`CHECKED_EVENT_BYTES` pass unchecked (results can be large and
are not parsed twice; the SDK bounds them by ``max_message_bytes``).

With a *limit* (the server's ``max_message_bytes``), an event still open past *limit* bytes
(counted as the SDK counts them: its lines without their endings, comments left out) raises
:class:`EventTooLarge` from :meth:`EventFilter.feed`, whatever the stream's chunks are: a
line that never ends is never held or passed on past the bound.

Lines end as the SDK's SSE reader (``httpx2``) ends them: ``\\n``, ``\\r\\n`` or a lone
``\\r``.  The filter is plain synchronous code over whole chunks (:meth:`EventFilter.feed`),
so wrapping a stream in it adds no async generator of its own to each response
(:func:`filtered_events` is the one generator, for tests and simple callers).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable

from hermes_core.host.connection.server_warnings import ServerWarnings
from hermes_core.host.transports.stdio import parse_message

__all__ = ["CHECKED_EVENT_BYTES", "EventFilter", "EventTooLarge", "filtered_events"]

CHECKED_EVENT_BYTES = 1024 * 1024

_BLANK = (b"\n", b"\r\n", b"\r")
_ONE_STEP_BYTES = 64 * 1024  # as stdio_transport's: larger payloads take the careful way
#: The SDK's message validator, its validation error and its notification type.
_Checks = tuple[Callable[..., object], type[Exception], type]
_checks: _Checks | None = None  # the SDK's validator and types, imported on first use


class EventTooLarge(Exception):
    """An SSE event grew past the filter's limit before it ended."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"Server-sent event exceeded the {limit} byte limit.")
        self.limit = limit


def _counted(line: bytes) -> int:
    """The bytes the SDK counts for one line of an event: none for a comment or a blank line,
    else the line without its ending."""
    if line.startswith(b":"):
        return 0
    return len(line.rstrip(b"\r\n"))


def _sdk_checks() -> _Checks:
    global _checks  # a cache of imports (they bring in the SDK)
    if _checks is None:
        import mcp_types
        from pydantic import ValidationError

        validate = mcp_types.jsonrpc_message_adapter.validate_json
        _checks = (validate, ValidationError, mcp_types.JSONRPCNotification)
    return _checks


def _valid(payload: bytes, warnings: ServerWarnings) -> bool:
    """Whether the SDK will take *payload* (one event's data): a small answer is validated
    once, in one step from its bytes, as the SDK will; a notification, anything refused and
    anything large take the careful way (``parse_message``, which warns)."""
    validate, validation_error, notification = _sdk_checks()
    if len(payload) <= _ONE_STEP_BYTES:
        try:
            message = validate(payload, by_name=False)
        except validation_error:
            message = None
        if message is not None and type(message) is not notification:
            return True
    return parse_message(payload, warnings, "an SSE event") is not None


def _wanted(event: list[bytes], warnings: ServerWarnings) -> bool:
    """Whether an event (its lines, with or without their endings) may reach the SDK."""
    kind = b"message"
    data: list[bytes] = []
    for raw in event:
        if raw.startswith(b"data:"):
            value = raw[5:].rstrip(b"\r\n")
            data.append(value[1:] if value[:1] == b" " else value)
            continue
        if raw.startswith((b"id:", b":")) or raw in _BLANK or not raw:
            continue
        field, _, value = raw.rstrip(b"\r\n").partition(b":")
        value = value[1:] if value[:1] == b" " else value
        if field == b"data":
            data.append(value)
        elif field == b"event":
            kind = value
    if kind != b"message" or not data:
        return True  # endpoint events, priming events, comments: the SDK's business
    payload = data[0] if len(data) == 1 else b"\n".join(data)
    if not payload.strip():
        return True
    return _valid(payload, warnings)


class EventFilter:
    """An SSE byte stream in, the same bytes out less the ``message`` events that are not
    valid JSON-RPC: :meth:`feed` each chunk as it comes, then :meth:`end`."""

    __slots__ = (
        "_continued",
        "_event",
        "_limit",
        "_open",
        "_parts",
        "_parts_size",
        "_pending",
        "_size",
        "_unchecked",
        "_warnings",
    )

    def __init__(self, warnings: ServerWarnings, limit: int | None = None) -> None:
        self._warnings = warnings
        self._limit = limit
        self._open = 0  # the SDK's count of the event in progress (its finished lines)
        self._continued = False  # the next line goes on one passed on unfinished
        self._pending = b""  # an unfinished line (or one ending in '\r': '\n' may follow)
        # Pieces of the unfinished line that came without a line end, joined once when it ends
        # (re-joining the whole line with every piece would be quadratic in its length).
        self._parts: list[bytes] = []
        self._parts_size = 0
        self._event: list[bytes] = []
        self._size = 0
        self._unchecked = False  # the current event grew past CHECKED_EVENT_BYTES

    def feed(self, chunk: bytes) -> bytes:
        """What of *chunk* (and what was held back before it) may go on now."""
        if (
            not self._pending
            and not self._event
            and not self._unchecked
            and chunk.endswith(b"\n\n")
            and b"\r" not in chunk
            and b"\n\n\n" not in chunk
            and not chunk.startswith(b"\n")
            and len(chunk) <= CHECKED_EVENT_BYTES
        ):  # whole events, '\n' endings (what servers send): split in C, passed on as they are
            events = chunk[:-2].split(b"\n\n")
            wanted = [_wanted(event.split(b"\n"), self._warnings) for event in events]
            if all(wanted):
                return chunk
            return b"".join(e + b"\n\n" for e, keep in zip(events, wanted, strict=True) if keep)
        if (
            self._pending
            and not self._pending.endswith(b"\r")
            and b"\n" not in chunk
            and b"\r" not in chunk
        ):
            # The unfinished line goes on: keep the piece; nothing can go on yet.
            self._parts.append(chunk)
            self._parts_size += len(chunk)
            self._check(len(self._pending) + self._parts_size)
            if len(self._pending) + self._parts_size <= CHECKED_EVENT_BYTES:
                return b""
            chunk = b""  # long enough to pass on: joined below, once
        if self._parts:
            chunk = b"".join(self._parts) + chunk
            self._parts, self._parts_size = [], 0
        buffer = self._pending + chunk if self._pending else chunk
        lines = buffer.splitlines(keepends=True)  # bytes: only '\n', '\r\n' and '\r' end lines
        if lines and not lines[-1].endswith(b"\n"):
            self._pending = lines.pop()
        else:
            self._pending = b""
        out: list[bytes] = []
        event = self._event
        for line in lines:
            continued, self._continued = self._continued, False  # (its end, not a blank line)
            if self._limit is not None:
                if continued:
                    self._open += len(line.rstrip(b"\r\n"))
                elif line in _BLANK:
                    self._open = 0
                else:
                    self._open += _counted(line)
                self._check(0)
            if self._unchecked:
                out.append(line)
                if line in _BLANK and not continued:
                    self._unchecked = False
                continue
            event.append(line)
            self._size += len(line)
            if line in _BLANK:  # a blank line ends the event
                if _wanted(event, self._warnings):
                    out.extend(event)
                event.clear()
                self._size = 0
            elif self._size > CHECKED_EVENT_BYTES:
                out.extend(event)
                event.clear()
                self._size, self._unchecked = 0, True
        self._check(len(self._pending))
        if len(self._pending) > CHECKED_EVENT_BYTES:  # one long line: pass it on as it comes
            out.extend(event)
            out.append(self._pending)
            event.clear()
            self._open += len(self._pending)
            self._continued = True
            self._size, self._pending, self._unchecked = 0, b"", True
        return b"".join(out)

    def _check(self, pending: int) -> None:
        """Raise :class:`EventTooLarge` when the open event and *pending* bytes of its
        unfinished line pass the limit."""
        if self._limit is not None and self._open + pending > self._limit:
            raise EventTooLarge(self._limit)

    def end(self) -> bytes:
        """What is left when the stream ends (an event without its blank line: the SDK's)."""
        rest = b"".join(self._event) + self._pending + b"".join(self._parts)
        self._parts, self._parts_size = [], 0
        self._event.clear()
        self._pending, self._size, self._open, self._continued = b"", 0, 0, False
        return rest


async def filtered_events(
    stream: AsyncIterable[bytes], warnings: ServerWarnings
) -> AsyncIterator[bytes]:
    """*stream*'s bytes without the ``message`` events that are not valid JSON-RPC."""
    events = EventFilter(warnings)
    async for chunk in stream:
        out = events.feed(chunk)
        if out:
            yield out
    rest = events.end()
    if rest:
        yield rest
