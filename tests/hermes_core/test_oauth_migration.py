"""SEP-2352: the MCP server moves to another authorization server.  Its protected resource metadata
names the new one and only that one's tokens count (``OAuthServer.move_to``); the client must
register there afresh and never show it the old server's client credentials."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_core.auth import callback
from hermes_core.config.loader import load_config
from hermes_core.host.host import MCPHost
from hermes_core.host.setup.from_config import host_servers
from servers.oauth_server import OAuthServer
from support.browser import Browser, browser_env
from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.network, pytest.mark.slow]


def hermes(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_hermes(*args, env={"HERMES_HOME": str(home), **browser_env(home)})


@pytest.fixture
def servers() -> Iterator[tuple[OAuthServer, OAuthServer]]:
    old, new = OAuthServer().start(), OAuthServer().start()
    yield old, new
    old.stop()
    new.stop()


def only_client(server: OAuthServer) -> str:
    (client_id,) = server.provider.clients
    return client_id


def test_after_the_move_a_new_login_registers_with_the_new_server(
    tmp_path: Path, servers: tuple[OAuthServer, OAuthServer]
) -> None:
    old, new = servers
    (tmp_path / "config.yaml").write_text(
        f"mcp_servers:\n  acme:\n    url: {old.url}\n    auth: oauth\n"
    )
    assert hermes(tmp_path, "mcp", "login", "acme").returncode == 0
    first = hermes(tmp_path, "mcp", "call", "--json", "mcp_acme_whoami")
    assert first.returncode == 0, first.stderr
    old_client = only_client(old)
    assert old_client in first.stdout

    old.move_to(new)
    refused = hermes(tmp_path, "mcp", "call", "--json", "mcp_acme_whoami")  # no terminal: no login
    assert refused.returncode != 0
    assert "Run `hermes mcp login acme` in a terminal" in refused.stdout + refused.stderr
    assert sum(new.provider.calls.values()) == 0  # nothing was sent to the new server

    login = hermes(tmp_path, "mcp", "login", "acme")
    assert login.returncode == 0, login.stderr
    assert new.provider.calls["register"] == 1
    new_client = only_client(new)
    assert new_client != old_client
    assert {r["client"] for r in new.provider.token_requests} == {new_client}
    saved = json.loads((tmp_path / "mcp-tokens" / "acme.json").read_text())
    assert saved["client_info"]["client_id"] == new_client
    assert saved["client_info"]["issuer"].rstrip("/") == new.base

    after = hermes(tmp_path, "mcp", "call", "--json", "mcp_acme_whoami")
    assert after.returncode == 0, after.stderr
    assert new_client in after.stdout


def test_a_session_that_sees_the_move_registers_again_in_the_same_login(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, servers: tuple[OAuthServer, OAuthServer]
) -> None:
    old, new = servers
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    monkeypatch.setattr("hermes_core.auth.settings.is_interactive", lambda: True)
    browser = Browser()
    monkeypatch.setattr(callback, "open_browser", browser)
    config = {"mcp_servers": {"acme": {"url": old.url, "auth": "oauth"}}}
    (tmp_path / "config.yaml").write_text(json.dumps(config))

    async def scenario() -> tuple[dict[str, object], dict[str, object]]:
        async with MCPHost(host_servers(load_config())) as host:
            before = await host.call_tool("mcp_acme_whoami", {})
            old.move_to(new)
            after = await host.call_tool("mcp_acme_whoami", {})
            return before, after

    before, after = asyncio.run(scenario())
    old_client, new_client = only_client(old), only_client(new)
    assert old_client in json.dumps(before)
    assert after.get("isError") is False, after
    assert new_client in json.dumps(after)
    assert new.provider.calls["register"] == 1 and new.provider.calls["authorize"] == 1
    # The old server's client ID reached the new server nowhere: not at authorize (the test
    # browser's URLs), not at the token endpoint.
    assert {r["client"] for r in new.provider.token_requests} == {new_client}
    assert not any(old_client in url for url in browser.opened if url.startswith(new.base))
