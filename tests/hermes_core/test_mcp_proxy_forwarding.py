"""``hermes mcp proxy`` forwarding what an upstream server asks of its client to the
downstream client: sampling (stdio and Streamable HTTP), and the host's own refusal and limits
when the downstream client cannot sample.  The raw ``mcp`` SDK client drives the proxy as a
real subprocess; the upstream is a real SDK server (tests/servers/sampling_server.py)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from support.proxy import SERVERS, http_session, proxy_session, running_http, text_of, write_config

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

SAMPLER = SERVERS / "sampling_server.py"


def _config(home: Path, extra: str = "") -> None:
    write_config(
        home,
        servers={"sampler": {"command": sys.executable, "args": [str(SAMPLER)]}},
        extra=extra,
    )


class Downstream:
    """The downstream client's model: answers each request with what it was sent."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def __call__(self, context: Any, params: Any) -> Any:
        from mcp import types

        self.seen.append(params)
        said = params.messages[0].content.text
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=f"downstream heard: {said}"),
            model="downstream-model",
            stop_reason="endTurn",
        )


def _outcome(result: Any) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    return dict(json.loads(text_of(result)))


def test_sampling_goes_to_a_downstream_client_that_can_sample(tmp_path: Path) -> None:
    _config(tmp_path, "sampling:\n  max_rpm: 3\n  max_tokens_cap: 64\n")
    model = Downstream()

    async def scenario() -> None:
        async with proxy_session(tmp_path, sampling_callback=model) as session:
            asked = await session.call_tool(
                "mcp_sampler_ask", {"prompt": "hi\u200b the\x1b[31mre", "max_tokens": 100000}
            )
            outcome = _outcome(asked)
            assert outcome["ok"] is True and outcome["model"] == "downstream-model"
            # What the server wrote reaches the client cleaned, and within the host's bounds.
            # (control and invisible characters go; the rest of an escape is plain text)
            assert outcome["text"] == "downstream heard: hi the[31mre"
            assert model.seen[0].max_tokens == 64
            # The host's rate limit holds for forwarded requests too (3 a minute here).
            burst = await session.call_tool("mcp_sampler_burst", {"count": 3})
            assert json.loads(text_of(burst)) == ["ok", "ok", "rate_limited"]
            assert len(model.seen) == 3

    asyncio.run(scenario())


def test_without_a_sampling_client_or_a_model_the_request_is_refused(tmp_path: Path) -> None:
    _config(tmp_path)

    async def scenario() -> None:
        async with proxy_session(tmp_path) as session:
            outcome = _outcome(await session.call_tool("mcp_sampler_ask", {"prompt": "hi"}))
            assert outcome["reason"] == "unavailable"
            assert "cannot sample" in outcome["message"]
            assert "no sampling model configured" in outcome["message"]

    asyncio.run(scenario())


@pytest.mark.network
def test_sampling_is_forwarded_over_http_on_the_calls_own_stream(tmp_path: Path) -> None:
    _config(tmp_path)
    model = Downstream()

    async def scenario(url: str, token: str) -> None:
        async with http_session(url, token, sampling_callback=model) as session:
            outcome = _outcome(await session.call_tool("mcp_sampler_ask", {"prompt": "web"}))
            assert outcome["text"] == "downstream heard: web"
        async with http_session(url, token) as session:  # this one cannot sample
            outcome = _outcome(await session.call_tool("mcp_sampler_ask", {"prompt": "x"}))
            assert outcome["reason"] == "unavailable"

    with running_http(tmp_path) as (url, token):
        asyncio.run(scenario(url, token))
