"""Per-server protocol negotiation: a server that speaks only 2026-07-28 (the per-request
envelope, ``server/discover``) and a handshake-era one (``initialize``), over stdio and HTTP."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_core.host.host import HostServer, MCPHost
from servers.net import PORT, free_port, http_server, wait_for_port
from servers.reference import EVERYTHING, node
from support.cli import run_hermes

pytestmark = [
    pytest.mark.process,
    pytest.mark.node,
    pytest.mark.cli,
    pytest.mark.network,
    pytest.mark.slow,
]

MODERN = str(Path(__file__).parents[1] / "servers" / "modern_server.py")


def modern(name: str = "modern") -> HostServer:
    return HostServer(name, command=sys.executable, args=[MODERN])


async def _until_listed(host: MCPHost, name: str) -> None:
    while host.registry.get(name) is None:
        await asyncio.sleep(0.05)


def test_a_modern_only_stdio_server_lists_calls_and_reports_list_changed() -> None:
    async def scenario() -> None:
        async with MCPHost([modern()]) as host:
            names = {t.name for t in host.tools()}
            assert {"mcp_modern_echo", "mcp_modern_grow"} <= names
            assert "mcp_modern_grown" not in names
            (row,) = host.status()
            assert (row.connection, row.protocol) == ("connected", "2026-07-28")
            result = await host.call_tool("mcp_modern_echo", {"text": "héllo"})
            assert result["content"][0]["text"] == "héllo" and result["isError"] is False
            # list_changed reaches us through the subscriptions/listen stream.
            await host.call_tool("mcp_modern_grow")
            await asyncio.wait_for(_until_listed(host, "mcp_modern_grown"), 30)
            assert (await host.call_tool("mcp_modern_grown"))["content"][0]["text"] == "grown"
            # Prompts are not cached (as on the handshake era): the listing is live.
            prompts = await host.call_tool("mcp_modern_list_prompts")
            listed = prompts["structuredContent"]["prompts"]
            assert [p["name"] for p in listed] == ["grown_prompt"]

    asyncio.run(scenario())


def test_a_handshake_era_server_still_gets_the_handshake() -> None:
    everything = HostServer("everything", command=node(), args=[str(EVERYTHING), "stdio"])

    async def scenario() -> None:
        async with MCPHost([modern(), everything]) as host:
            rows = {row.server: row for row in host.status()}
            assert rows["modern"].protocol == "2026-07-28"
            assert rows["everything"].connection == "connected"
            assert rows["everything"].protocol is not None
            assert not rows["everything"].protocol.startswith("2026")
            result = await host.call_tool("mcp_everything_echo", {"message": "hi"})
            assert "hi" in result["content"][0]["text"]

    asyncio.run(scenario())


@pytest.fixture(scope="module")
def modern_http() -> Iterator[str]:
    with http_server([sys.executable, MODERN, PORT]) as url:
        yield url


def test_a_modern_only_http_server(modern_http: str) -> None:
    async def scenario() -> None:
        web = HostServer("web", transport="streamable_http", url=modern_http)
        async with MCPHost([web]) as host:
            (row,) = host.status()
            assert (row.connection, row.protocol) == ("connected", "2026-07-28")
            result = await host.call_tool("mcp_web_echo", {"text": "over http"})
            assert result["content"][0]["text"] == "over http"

    asyncio.run(scenario())


def test_status_shows_each_servers_revision(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        f"mcp_servers:\n  modern:\n    command: {sys.executable}\n    args: [{MODERN!r}]\n"
    )
    env = {"HERMES_HOME": str(tmp_path)}
    shown = run_hermes("mcp", "status", env=env)
    assert shown.returncode == 0, shown.stderr
    assert "protocol: 2026-07-28" in shown.stdout
    rows = json.loads(run_hermes("mcp", "status", "--json", env=env).stdout)
    assert [(r["server"], r["protocol"]) for r in rows] == [("modern", "2026-07-28")]


def test_a_modern_server_is_filtered_recycled_and_restarted_like_any_other() -> None:
    server = HostServer(
        "modern",
        command=sys.executable,
        args=[MODERN],
        include=("echo",),
        idle_timeout_seconds=1.0,
    )

    async def until_recycled(host: MCPHost) -> None:
        while host.status()[0].connection != "recycled":
            await asyncio.sleep(0.05)

    async def scenario() -> None:
        async with MCPHost([server]) as host:
            names = {t.name for t in host.tools() if not t.utility}
            assert names == {"mcp_modern_echo"}  # `include` applies as on the handshake era
            await asyncio.wait_for(until_recycled(host), 60)
            # The next call starts the server again and negotiates 2026-07-28 again.
            result = await host.call_tool("mcp_modern_echo", {"text": "back"})
            assert result["content"][0]["text"] == "back"
            # (It may be idle long enough to be recycled again already on a busy machine.)
            (row,) = host.status()
            assert row.protocol == "2026-07-28"
            assert host._connections["modern"].status.connects == 2  # started twice

    asyncio.run(scenario())


def test_a_modern_http_server_that_goes_away_fails_the_next_call_at_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, MODERN, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_for_port(port)

        async def scenario() -> None:
            url = f"http://127.0.0.1:{port}/mcp"
            web = HostServer("web", transport="streamable_http", url=url)
            async with MCPHost([web]) as host:
                assert (await host.call_tool("mcp_web_echo", {"text": "1"}))["isError"] is False
                # SIGKILL: a graceful stop would wait for the open list_changed stream.
                process.kill()
                process.wait(10)
                result = await host.call_tool("mcp_web_echo", {"text": "2"})
                assert "the server went away during the call to 'echo'" in result["error"]

        asyncio.run(scenario())
    finally:
        process.kill()
        process.wait(10)
    # The lost list_changed stream is one line, never a background task's traceback.
    assert not [r for r in caplog.records if "background task" in r.getMessage()]
