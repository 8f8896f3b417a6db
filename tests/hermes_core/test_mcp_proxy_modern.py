"""``hermes mcp proxy`` to a 2026-07-28 downstream client (the ``mcp`` SDK's ``Client``, which
probes ``server/discover``): listing and calling real servers, ``subscriptions/listen`` for
list changes, and what a call asks of its caller (an approval, an upstream server's
elicitation and sampling) as ``input_required`` rounds, over stdio and Streamable HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from servers.reference import EVERYTHING, node
from support.proxy import (
    MODERN,
    SERVERS,
    UPSTREAM,
    proxy_argv,
    proxy_env,
    running_http,
    text_of,
    write_config,
)

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]


def _config(home: Path, *, node_server: bool = False) -> None:
    servers: dict[str, Any] = {
        "up": {"command": sys.executable, "args": [str(UPSTREAM)], "trust": "untrusted"},
        "sampler": {"command": sys.executable, "args": [str(SERVERS / "sampling_server.py")]},
        "modern": {"command": sys.executable, "args": [str(MODERN)]},
    }
    if node_server:
        servers["everything"] = {"command": node(), "args": [str(EVERYTHING), "stdio"]}
    write_config(home, servers=servers)


class User:
    """The downstream client's user and model: answers every question, and keeps them."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.sampled: list[str] = []

    async def elicit(self, context: Any, params: Any) -> Any:
        from mcp import types

        self.asked.append(params.message)
        content = {"colour": "teal"} if "colour" in params.message else {}
        return types.ElicitResult(action="accept", content=content)

    async def sample(self, context: Any, params: Any) -> Any:
        from mcp import types

        self.sampled.append(params.messages[0].content.text)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="modern model says hi"),
            model="modern-model",
            stop_reason="endTurn",
        )


@contextlib.asynccontextmanager
async def modern_stdio(home: Path, user: User | None = None) -> AsyncIterator[Any]:
    from mcp import Client, StdioServerParameters

    argv = proxy_argv()
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=proxy_env(home))
    callbacks: dict[str, Any] = {}
    if user is not None:
        callbacks = {"elicitation_callback": user.elicit, "sampling_callback": user.sample}
    async with Client(params, **callbacks) as client:
        assert client.protocol_version == "2026-07-28"
        yield client


async def _questions_go_to_the_caller(client: Any, user: User) -> None:
    ran = await client.call_tool("mcp_up_note", {"text": "hi"})
    assert text_of(ran) == "noted hi", text_of(ran)
    assert len(user.asked) == 1 and "untrusted" in user.asked[0] and "'note'" in user.asked[0]
    assert text_of(await client.call_tool("mcp_up_ask", {})) == "colour teal"
    sampled = json.loads(text_of(await client.call_tool("mcp_sampler_ask", {"prompt": "hey"})))
    assert sampled["ok"] is True and sampled["model"] == "modern-model"
    assert user.sampled == ["hey"]


@pytest.mark.node
def test_a_modern_client_lists_calls_and_hears_list_changes(tmp_path: Path) -> None:
    _config(tmp_path, node_server=True)

    async def scenario() -> None:
        async with modern_stdio(tmp_path) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"mcp_everything_echo", "mcp_modern_echo", "mcp_up_peek"} <= names
            echoed = await client.call_tool("mcp_everything_echo", {"message": "2026"})
            assert text_of(echoed) == "Echo: 2026"
            assert text_of(await client.call_tool("mcp_modern_echo", {"text": "m"})) == "m"
            async with client.listen(tools_list_changed=True) as events:
                await client.call_tool("mcp_modern_grow", {})
                await asyncio.wait_for(events.__anext__(), 60)
            names = {t.name for t in (await client.list_tools()).tools}
            assert "mcp_modern_grown" in names

    asyncio.run(scenario())


def test_a_modern_clients_questions_come_as_input_required_rounds(tmp_path: Path) -> None:
    _config(tmp_path)
    user = User()

    async def answered() -> None:
        async with modern_stdio(tmp_path, user) as client:
            await _questions_go_to_the_caller(client, user)

    async def without_answers() -> None:
        async with modern_stdio(tmp_path) as client:  # no elicitation, no sampling declared
            refused = await client.call_tool("mcp_up_note", {"text": "hi"})
            assert refused.is_error and "was NOT run" in text_of(refused)
            assert text_of(await client.call_tool("mcp_up_ask", {})) == "no colour (decline)"

    asyncio.run(answered())
    asyncio.run(without_answers())


def test_a_request_state_opens_only_its_own_call(tmp_path: Path) -> None:
    from mcp import types
    from mcp.shared.exceptions import MCPError

    _config(tmp_path)

    async def scenario() -> None:
        async with modern_stdio(tmp_path, User()) as client:
            session = client.session
            first = await session.call_tool("mcp_up_note", {"text": "a"}, allow_input_required=True)
            assert isinstance(first, types.InputRequiredResult) and first.request_state
            (key,) = first.input_requests
            accept = {key: types.ElicitResult(action="accept", content={})}

            async def retry(text: str, state: str) -> Any:
                return await session.call_tool(
                    "mcp_up_note",
                    {"text": text},
                    input_responses=accept,
                    request_state=state,
                    allow_input_required=True,
                )

            # Other arguments, or a forged state, open nothing.
            with pytest.raises(MCPError, match="requestState"):
                await retry("b", first.request_state)
            with pytest.raises(MCPError, match="requestState"):
                await retry("a", "forged")
            assert text_of(await retry("a", first.request_state)) == "noted a"
            # A state is good for one retry.
            with pytest.raises(MCPError, match="requestState"):
                await retry("a", first.request_state)

    asyncio.run(scenario())


@pytest.mark.network
def test_a_modern_client_over_http(tmp_path: Path) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    _config(tmp_path)
    user = User()

    async def scenario(url: str, token: str) -> None:
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx2.AsyncClient(headers=headers, trust_env=False, timeout=60) as http:
            transport = streamable_http_client(url, http_client=http)
            async with Client(
                transport, elicitation_callback=user.elicit, sampling_callback=user.sample
            ) as client:
                assert client.protocol_version == "2026-07-28"
                names = {t.name for t in (await client.list_tools()).tools}
                assert {"mcp_up_note", "mcp_modern_echo"} <= names
                await _questions_go_to_the_caller(client, user)

    with running_http(tmp_path) as (url, token):
        asyncio.run(scenario(url, token))
