"""The wrappers around an HTTP server's answer bodies (``hermes_core.host.http_bodies``).

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

from hermes_core.host.http_bodies import CappedBody, FilteredBody
from hermes_core.host.server_warnings import ServerWarnings
from hermes_core.host.transports import MessageTooLargeError

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
