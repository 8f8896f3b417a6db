"""An HTTP server's SSE stream, with the events no server should send dropped before the SDK.

The ``mcp`` SDK ends a whole call when one event of its SSE answer does not parse (a
notification with invalid parameters, a line that is not JSON), and logs a pydantic traceback.
Over stdio our transport drops such a line with one warning; :func:`filtered_events` gives
Streamable HTTP and SSE the same treatment: each ``message`` event is checked as a stdio line
is (:func:`hermes_core.host.stdio_transport.parse_message`), and an event that fails is
dropped with one rate-limited warning naming the server.  Everything else passes byte for
byte.  Events larger than :data:`CHECKED_EVENT_BYTES` pass unchecked (results can be large and
are not parsed twice; the SDK bounds them by ``max_message_bytes``).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator

from hermes_core.host.server_warnings import ServerWarnings

__all__ = ["CHECKED_EVENT_BYTES", "filtered_events"]

CHECKED_EVENT_BYTES = 1024 * 1024


def _wanted(event: list[bytes], warnings: ServerWarnings) -> bool:
    """Whether an event (its lines, endings included) may reach the SDK."""
    from hermes_core.host.stdio_transport import parse_message

    kind = b"message"
    data: list[bytes] = []
    for raw in event:
        line = raw.rstrip(b"\r\n")
        field, _, value = line.partition(b":")
        value = value[1:] if value.startswith(b" ") else value
        if field == b"event":
            kind = value
        elif field == b"data":
            data.append(value)
    payload = b"\n".join(data)
    if kind != b"message" or not payload.strip():
        return True  # endpoint events, priming events, comments: the SDK's business
    return parse_message(payload, warnings, "an SSE event") is not None


async def filtered_events(
    stream: AsyncIterable[bytes], warnings: ServerWarnings
) -> AsyncIterator[bytes]:
    """*stream*'s bytes without the ``message`` events that are not valid JSON-RPC."""
    pending = b""
    event: list[bytes] = []
    size = 0
    unchecked = False  # the current event grew past CHECKED_EVENT_BYTES
    async for chunk in stream:
        buffer = pending + chunk if pending else chunk
        out: list[bytes] = []
        start = 0
        while (end := buffer.find(b"\n", start)) >= 0:
            line = buffer[start : end + 1]
            start = end + 1
            if unchecked:
                out.append(line)
            else:
                event.append(line)
                size += len(line)
            if line in (b"\n", b"\r\n"):  # a blank line ends the event
                if not unchecked and _wanted(event, warnings):
                    out.extend(event)
                event, size, unchecked = [], 0, False
            elif not unchecked and size > CHECKED_EVENT_BYTES:
                out.extend(event)
                event, size, unchecked = [], 0, True
        pending = buffer[start:]
        if len(pending) > CHECKED_EVENT_BYTES:  # one long line: pass it on as it comes
            out.extend(event)
            out.append(pending)
            event, size, pending, unchecked = [], 0, b"", True
        if out:
            yield b"".join(out)
    rest = b"".join(event) + pending
    if rest:
        yield rest
