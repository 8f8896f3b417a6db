"""A running host whose OAuth authorization dies mid-session, with no terminal to log in on."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from hermes_core.auth import callback
from hermes_core.cli import main
from hermes_core.config.loader import load_config
from hermes_core.host.host import HostServer, MCPHost
from hermes_core.host.setup.from_config import host_servers
from servers.oauth_server import OAuthServer
from support.browser import Browser

pytestmark = [pytest.mark.network, pytest.mark.slow]


def test_a_dead_login_says_what_to_do_and_a_new_login_is_picked_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    monkeypatch.setattr(callback, "open_browser", Browser())
    server = OAuthServer().start()
    try:
        config = {"mcp_servers": {"acme": {"url": server.url, "auth": "oauth"}}}
        (tmp_path / "config.yaml").write_text(json.dumps(config))
        assert main(["mcp", "login", "acme"]) == 0  # "interactive": the CLI login command
        capsys.readouterr()

        async def scenario() -> tuple[dict[str, object], ...]:
            async with MCPHost(host_servers(load_config())) as host:  # no terminal here
                first = await host.call_tool("mcp_acme_whoami", {})
                server.provider.revoke_all()  # the authorization dies mid-session
                refused = await host.call_tool("mcp_acme_whoami", {})
                later = await host.call_tool("mcp_acme_whoami", {})
                # The user runs `hermes mcp login acme` in another terminal.
                assert await asyncio.to_thread(main, ["mcp", "login", "acme"]) == 0
                for _ in range(600):
                    if host.status()[0].connection == "connected":
                        break
                    await asyncio.sleep(0.05)
                again = await host.call_tool("mcp_acme_whoami", {})
                return first, refused, later, again

        first, refused, later, again = asyncio.run(scenario())
    finally:
        server.stop()
    assert first.get("isError") is False
    login = (
        "needs an OAuth login (the saved authorization was refused or has expired) and this "
        "session is not interactive. Run `hermes mcp login acme` in a terminal, then retry."
    )
    assert (
        refused["error"]
        == f"MCP server 'acme': the call to 'whoami' was not run: the server {login}"
    )
    # Later calls say the same, whether they find the server failed or try it once more.
    assert login in str(later["error"])
    assert str(later["error"]).count("MCP server 'acme'") == 1
    assert again.get("isError") is False, again


def test_http_errors_say_what_the_server_answered_and_what_to_do() -> None:
    server = OAuthServer().start()
    try:
        secret = "q-secret-4711"

        async def scenario() -> dict[str, str | None]:
            servers = [
                HostServer("acme", url=f"{server.url}?key={secret}", transport="streamable_http"),
                HostServer("typo", url=f"{server.base}/mpc", transport="streamable_http"),
            ]
            async with MCPHost(servers) as host:
                return {row.server: row.last_error for row in host.status()}

        errors = asyncio.run(scenario())
    finally:
        server.stop()
    acme = str(errors["acme"])
    assert acme.startswith("HTTP 401 Unauthorized for POST http://127.0.0.1:")
    assert 'resource_metadata="' in acme  # the challenge, as the server sent it
    assert acme.endswith(
        "the server asks for authorization: set `auth: oauth` for this server and run "
        "`hermes mcp login acme`, or give its token in `headers`"
    )
    assert secret not in acme
    assert errors["typo"] == (
        f"HTTP 404 Not Found for POST {server.base}/mpc; "
        "check the url (the path of the MCP endpoint, often /mcp)"
    )


def test_a_session_the_server_forgot_is_renewed_and_the_call_sent_again() -> None:
    # A restarted (or session-expiring) server refuses requests of the old session, which
    # therefore never ran: the host starts a new session and sends the call once more,
    # instead of failing every call from then on.
    server = OAuthServer(protected=False).start()
    try:

        async def scenario() -> list[dict[str, object]]:
            remote = HostServer("remote", url=server.url, transport="streamable_http")
            async with MCPHost([remote]) as host:
                answers = [await host.call_tool("mcp_remote_whoami", {})]
                server.forget_sessions()
                answers.append(await host.call_tool("mcp_remote_whoami", {}))
                answers.append(await host.call_tool("mcp_remote_whoami", {}))
                return answers

        answers = asyncio.run(scenario())
    finally:
        server.stop()
    assert [a.get("isError") for a in answers] == [False, False, False], answers
    assert len(server.sessions) == 2  # one new session, not one per call
