"""Canary: the ``mcp`` SDK's private API that Hermes relies on (hermes_core._sdk_compat) is
still there and still behaves, on the installed SDK.  A failure here means an SDK upgrade
broke something the host needs: fix hermes_core/_sdk_compat/ (and the pin in pyproject.toml), do not
relax this test."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from hermes_core import _sdk_compat
from hermes_core._sdk_compat.oauth import OAuthProviderBase

HOSTILE = Path(__file__).parents[1] / "servers" / "hostile_server.py"


def test_the_installed_sdk_is_the_minor_version_checked() -> None:
    installed = ".".join(version("mcp").split(".")[:2])
    assert installed == _sdk_compat.TESTED_SDK, (
        f"mcp {version('mcp')} is installed but hermes_core/_sdk_compat/ was checked against "
        f"{_sdk_compat.TESTED_SDK}.x: re-check every private touch there, then move the pin"
    )


def test_every_private_name_is_still_there() -> None:
    assert _sdk_compat.missing() == [], "the mcp SDK changed under hermes_core/_sdk_compat/"


def test_the_oauth_providers_context_still_has_what_hermes_reads() -> None:
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    class Storage:
        async def get_tokens(self) -> None:
            return None

        async def set_tokens(self, tokens: object) -> None:
            return None

        async def get_client_info(self) -> None:
            return None

        async def set_client_info(self, info: object) -> None:
            return None

    provider = OAuthClientProvider(
        server_url="https://mcp.example/mcp",
        client_metadata=OAuthClientMetadata(redirect_uris=["http://127.0.0.1:1/callback"]),
        storage=Storage(),  # type: ignore[arg-type]
    )
    lacking = [n for n in _sdk_compat.OAUTH_PROVIDER_CONTEXT if not hasattr(provider.context, n)]
    assert lacking == [], f"OAuthClientProvider.context no longer has {lacking}"
    assert hasattr(provider, "_initialized")


def test_the_oauth_provider_base_routes_every_private_hook_of_the_sdk() -> None:
    """OAuthProviderBase's names reach the SDK's private hooks, and the SDK still calls the
    overridden ones while it drives a request (no network: the flow is driven as httpx2 does,
    with answers built here)."""
    import httpx2
    from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

    saved = OAuthToken(access_token="old", token_type="Bearer", refresh_token="r1")
    client = OAuthClientInformationFull(
        client_id="hermes", redirect_uris=["http://127.0.0.1:1/callback"]
    )

    class Storage:
        def __init__(self) -> None:
            self.tokens: OAuthToken | None = saved

        async def get_tokens(self) -> OAuthToken | None:
            return self.tokens

        async def set_tokens(self, tokens: OAuthToken) -> None:
            self.tokens = tokens

        async def get_client_info(self) -> OAuthClientInformationFull:
            return client

        async def set_client_info(self, info: object) -> None:
            return None

    seen: list[str] = []

    class Provider(OAuthProviderBase):
        async def after_initialize(self) -> None:
            seen.append(f"initialized with {self.current_tokens.access_token}")
            self.token_expiry_time = None  # set through the base: the SDK's context

        async def around_auth_flow(self, request, sdk_flow):  # type: ignore[no-untyped-def,override]
            seen.append("around")
            flow = sdk_flow()
            response = yield await flow.__anext__()
            try:
                await flow.asend(response)
            except StopAsyncIteration:
                return

    storage = Storage()
    provider = Provider(
        server_url="https://mcp.example/mcp",
        client_metadata=OAuthClientMetadata(redirect_uris=["http://127.0.0.1:1/callback"]),
        storage=storage,  # type: ignore[arg-type]
    )

    async def scenario() -> None:
        request = httpx2.Request("POST", "https://mcp.example/mcp")
        flow = provider.async_auth_flow(request)
        sent = await flow.__anext__()
        assert sent.headers["Authorization"] == "Bearer old"
        with contextlib.suppress(StopAsyncIteration):
            await flow.asend(httpx2.Response(200, request=sent))
        assert seen == ["around", "initialized with old"]
        assert provider.can_refresh_token() and provider.client_info is client
        assert provider.oauth_metadata is None and provider.client_metadata_url is None

        refresh = await provider.refresh_request()
        assert refresh.url == "https://mcp.example/token"
        assert b"grant_type=refresh_token" in refresh.content and b"r1" in refresh.content
        answer = httpx2.Response(
            200, json={"access_token": "new", "token_type": "Bearer"}, request=refresh
        )
        assert await provider.accept_refresh(answer)
        assert storage.tokens is not None and storage.tokens.access_token == "new"
        again = httpx2.Request("GET", "https://mcp.example/mcp")
        provider.authorize(again)
        assert again.headers["Authorization"] == "Bearer new"

        provider.forget_initialization()  # the next request loads the storage again
        storage.tokens = OAuthToken(access_token="reloaded", token_type="Bearer")
        flow = provider.async_auth_flow(httpx2.Request("POST", "https://mcp.example/mcp"))
        assert (await flow.__anext__()).headers["Authorization"] == "Bearer reloaded"
        await flow.aclose()
        assert seen[-1] == "initialized with reloaded"

    asyncio.run(scenario())


@pytest.mark.process
@pytest.mark.slow
def test_raw_listing_absorb_and_spawn_capture_work_against_a_real_server() -> None:
    from mcp import ClientSession, types

    from hermes_core.host.connection.server_log import ServerLog
    from hermes_core.host.host import HostServer
    from hermes_core.host.transports import capture_spawned, open_stdio

    async def scenario() -> None:
        spec = HostServer("canary", command=sys.executable, args=[str(HOSTILE)])
        with capture_spawned() as spawned:
            async with (
                open_stdio(spec, ServerLog()) as (read, write),  # type: ignore[arg-type]
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                raw = await _sdk_compat.send_raw_request(session, "tools/list", None)
                assert isinstance(raw, dict)
                tools = raw["tools"]  # plain JSON: the host checks each tool itself
                assert "echo" in {t["name"] for t in tools}
                assert all(types.Tool.model_validate(t) for t in tools)
                kept, dropped = _sdk_compat.absorb_tool_listing(session, tools, None, complete=True)
                assert (kept, dropped) == (tools, [])  # the handshake era drops nothing
                result = await session.call_tool("echo", {"text": "canary"})
                assert result.content[0].text == "canary"  # type: ignore[union-attr]
        assert len(spawned) == 1, "the stdio transport no longer reports the server process"

    asyncio.run(scenario())


def test_nothing_else_touches_the_sdks_private_api() -> None:
    """The private names live in the _sdk_compat package only."""
    compat = Path(_sdk_compat.__file__).parent
    root = compat.parent
    needles = (
        "._dispatcher",
        "_absorb_tool_listing",
        "session._stamp",
        "_session_read_timeout_seconds",
        "_create_platform_compatible_process",
        "mcp.client._input_required",
        # The OAuth provider's private hooks and state (OAuthProviderBase routes them).
        "self.context.",
        "def _initialize",
        "def _auth_flow",
        "._auth_flow(",
        "_initialized =",
        "._refresh_token(",
        "_handle_refresh_response",
        "_add_auth_header",
        "session._stamp",
    )
    offenders = [
        f"{path.relative_to(root)}: {needle}"
        for path in root.rglob("*.py")
        if compat not in path.parents
        for needle in needles
        if needle in path.read_text(encoding="utf-8")
    ]
    assert offenders == []


def test_a_2026_answer_to_initialize_is_told_apart_from_other_refusals() -> None:
    said = "Unsupported protocol version from the server: "
    assert _sdk_compat.modern_answer_to_initialize(RuntimeError(said + "2026-07-28")) == (
        "2026-07-28"
    )
    assert _sdk_compat.modern_answer_to_initialize(RuntimeError(said + "2024-01-01")) is None
    assert _sdk_compat.modern_answer_to_initialize(RuntimeError("something else")) is None
    assert _sdk_compat.modern_answer_to_initialize(ValueError(said + "2026-07-28")) is None
