"""The wrappers around an HTTP server's answer bodies (``hermes_core.host.transports.http_bodies``).

Each wrapper reads the body's own async generator; when httpx closes the wrapper (the SDK
closes the response once it has the answer), the generator it reads is closed with it, not
left to the event loop's finaliser (which costs a wake-up through the loop's self-pipe and a
task, per response).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest

from hermes_core.host.connection.server_warnings import ServerWarnings
from hermes_core.host.transports.http_bodies import CappedBody, FilteredBody
from hermes_core.host.transports.message_limit import MessageTooLargeError

ANSWER = b'event: message\ndata: {"jsonrpc": "2.0", "id": 1, "result": {}}\n\n'


class Body(httpx2.AsyncByteStream):
    """A body that records whether the generator reading it was closed."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks
        self.closed: list[str] = []

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            for chunk in self.chunks:
                yield chunk
        finally:
            self.closed.append("generator")

    async def aclose(self) -> None:
        self.closed.append("body")


def wrappers(body: Body) -> list[Any]:
    return [FilteredBody(body, ServerWarnings("t")), CappedBody(body, 1024, None)]


@pytest.mark.parametrize("kind", ["filtered", "capped"])
def test_a_body_left_after_its_answer_is_closed_with_the_response(kind: str) -> None:
    body = Body([ANSWER, b"event: message\ndata: more\n\n"])
    wrapper = wrappers(body)[0 if kind == "filtered" else 1]

    async def read_the_answer_then_close() -> bytes:
        response = httpx2.Response(200, stream=wrapper)
        chunks = response.aiter_raw()
        first = await chunks.__anext__()
        await chunks.aclose()  # what closing the SDK's event reader comes to
        return first

    assert asyncio.run(read_the_answer_then_close()) == ANSWER
    assert body.closed == ["generator", "body"]


def test_a_body_read_to_its_end_is_passed_whole() -> None:
    async def read(wrapper: Any) -> bytes:
        return await httpx2.Response(200, stream=wrapper).aread()

    for wrapper in wrappers(Body([ANSWER[:10], ANSWER[10:]])):
        assert asyncio.run(read(wrapper)) == ANSWER


def test_a_capped_body_past_its_limit_fails_and_is_closed() -> None:
    body = Body([b"x" * 600, b"x" * 600])

    async def read() -> bytes:
        return await httpx2.Response(200, stream=CappedBody(body, 1000, None)).aread()

    with pytest.raises(MessageTooLargeError):
        asyncio.run(read())
    assert body.closed[0] == "generator"


# -- the end of an answer's stream: the connection stays in the pool ----------------------------
class Stream(httpx2.AsyncByteStream):
    """An SSE body: *chunks*, then (with *endless*) more chunks for ever, or a wait for ever
    (*stall*); records how much of it was read and whether it was read to its end."""

    def __init__(self, chunks: list[bytes], endless: bool = False, stall: bool = False) -> None:
        self.chunks = chunks
        self.endless = endless
        self.stall = stall
        self.read = 0
        self.ended = False
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            self.read += len(chunk)
            yield chunk
        while self.endless:
            self.read += 1024
            yield b": " + b"x" * 1020 + b"\n\n"
            await asyncio.sleep(0)
        if self.stall:
            await asyncio.Event().wait()
        self.ended = True

    async def aclose(self) -> None:
        self.closed = True


def answer_then_close(stream: Stream, drain: bool) -> bytes:
    """What the SDK does with an answer's stream: read up to the response, then close it."""

    async def scenario() -> bytes:
        response = httpx2.Response(200, stream=FilteredBody(stream, ServerWarnings("t"), drain))
        first = await response.aiter_raw().__anext__()
        await response.aclose()
        return first

    return asyncio.run(scenario())


def test_closing_an_answer_reads_the_rest_of_its_stream_to_the_end() -> None:
    stream = Stream([ANSWER, b": bye\n\n"])
    assert answer_then_close(stream, drain=True) == ANSWER
    assert stream.ended and stream.closed  # read to its end: httpx keeps the connection


def test_a_stream_that_is_not_an_answer_is_closed_without_reading() -> None:
    stream = Stream([ANSWER, b": bye\n\n"])
    answer_then_close(stream, drain=False)  # the standalone GET stream: closed as it is
    assert not stream.ended and stream.closed
    assert stream.read == len(ANSWER)


def test_a_stream_that_does_not_end_is_closed_after_the_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from hermes_core.host.transports import http_bodies

    monkeypatch.setattr(http_bodies, "DRAIN_SECONDS", 0.05)
    stream = Stream([ANSWER], stall=True)
    assert answer_then_close(stream, drain=True) == ANSWER
    assert not stream.ended and stream.closed


def test_a_stream_that_keeps_sending_is_read_no_further_than_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from hermes_core.host.transports import http_bodies

    monkeypatch.setattr(http_bodies, "DRAIN_SECONDS", 3600.0)  # the byte bound must stop it
    stream = Stream([ANSWER], endless=True)
    answer_then_close(stream, drain=True)
    assert stream.closed and not stream.ended
    assert stream.read <= len(ANSWER) + http_bodies.DRAIN_BYTES + 2048


# -- an SSE line that never ends (issue 27, item 1) ---------------------------------------------
class EndlessLine(httpx2.AsyncByteStream):
    """``data: `` and then *size* byte chunks without a line end, for ever (a socket read
    between chunks); records how much was read and whether its generator was closed."""

    def __init__(self, size: int = 1024 * 1024) -> None:
        self.size = size
        self.read = 0
        self.closed: list[str] = []

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            yield b"data: "
            while True:
                await asyncio.sleep(0)
                self.read += self.size
                yield b"x" * self.size
        finally:
            self.closed.append("generator")

    async def aclose(self) -> None:
        self.closed.append("body")


def read_events(body: FilteredBody, sdk_bound: int | None) -> tuple[str, list[object]]:
    """What the SDK does with an answer's SSE stream: read its events (bounded by the SDK's
    *sdk_bound*), then close the response; the error, and what the event loop reported."""
    reported: list[object] = []

    async def scenario() -> str:
        asyncio.get_running_loop().set_exception_handler(lambda _, ctx: reported.append(ctx))
        request = httpx2.Request("POST", "http://127.0.0.1/mcp")
        headers = {"content-type": "text/event-stream"}
        response = httpx2.Response(200, stream=body, headers=headers, request=request)
        try:
            async for _ in httpx2.EventSource(response, max_event_size=sdk_bound):
                pass
        except httpx2.SSEError as error:
            return str(error)
        finally:
            await response.aclose()
            for _ in range(20):  # let the loop finalise what was left to it
                await asyncio.sleep(0)
        return "ended"

    return asyncio.run(scenario()), reported


def test_a_line_that_never_ends_fails_at_the_limit_with_the_sdk_error() -> None:
    stream = EndlessLine()
    limit = 4 * 1024 * 1024
    error, reported = read_events(FilteredBody(stream, ServerWarnings("t"), True, limit), None)
    assert error == f"Server-sent event exceeded the {limit} byte limit."
    assert stream.read <= limit + 1024 * 1024  # not one chunk more than the bound
    assert stream.closed == ["generator", "body"]
    assert reported == []


def test_an_event_the_sdk_refuses_leaves_nothing_to_the_event_loop() -> None:
    # The SDK's bound trips first (a lower one): the readers above the body are left
    # unfinished; closing the response drains the body while the loop finalises them.
    stream = EndlessLine(16 * 1024)  # (the drain reads a few chunks, as from a socket)
    body = FilteredBody(stream, ServerWarnings("t"), True, 64 * 1024 * 1024)
    error, reported = read_events(body, 2 * 1024 * 1024)
    assert "exceeded the 2097152 byte limit" in error
    assert reported == []  # no "Task exception was never retrieved"
    assert "generator" in stream.closed and "body" in stream.closed


def test_an_event_within_the_limit_passes_whole() -> None:
    # The limit counts as the SDK does: the lines without their endings, comments left out.
    payload = b'{"jsonrpc": "2.0", "id": 1, "result": {"x": "' + b"y" * 3000 + b'"}}'
    event = b"data: " + payload + b"\r\n: a comment\n\n"
    chunks = [event[i : i + 1000] for i in range(0, len(event), 1000)]

    async def read(limit: int) -> bytes:
        body = FilteredBody(Body(chunks), ServerWarnings("t"), False, limit)
        return await httpx2.Response(200, stream=body).aread()

    assert asyncio.run(read(len(payload) + 6)) == event
    with pytest.raises(httpx2.SSEError, match="exceeded the"):
        asyncio.run(read(len(payload) + 5))
