"""The HTTP headers a request carries, as a real server of ours sees them (SEP-2575, SEP-2243).

``headers_server.py`` (``mcp`` SDK, Streamable HTTP) answers the headers each call arrived
with.  With ``MODERN_ONLY`` it speaks only 2026-07-28, where every POST names its revision
(``MCP-Protocol-Version``), its method (``Mcp-Method``) and, for a tool call, the tool
(``Mcp-Name``) and each argument the tool designates as a header (``Mcp-Param-*``); a tool whose
designations are invalid is not offered.  Without it, the server gets the handshake era,
where only ``MCP-Protocol-Version`` is sent.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_core.host.host import HostServer, MCPHost
from servers.net import PORT, http_server
from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.network, pytest.mark.slow]

SERVER = Path(__file__).parents[1] / "servers" / "headers_server.py"


def _serve(modern: bool) -> Iterator[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MODERN_ONLY", "REQUIRE_AUTHORIZATION")}
    if modern:
        env["MODERN_ONLY"] = "1"
    with http_server([sys.executable, str(SERVER), PORT], env=env) as url:
        yield url


@pytest.fixture(scope="module")
def modern_url() -> Iterator[str]:
    yield from _serve(modern=True)


@pytest.fixture(scope="module")
def handshake_url() -> Iterator[str]:
    yield from _serve(modern=False)


def seen(result: dict[str, object]) -> dict[str, str]:
    assert "error" not in result, result
    content = result["content"]
    assert isinstance(content, list)
    lines = str(content[0]["text"]).splitlines()
    return dict(line.split(": ", 1) for line in lines)


def test_a_modern_call_names_revision_method_tool_and_designated_arguments(
    modern_url: str,
) -> None:
    async def scenario() -> None:
        web = HostServer("web", transport="streamable_http", url=modern_url)
        async with MCPHost([web]) as host:
            (row,) = host.status()
            assert row.protocol == "2026-07-28"
            plain = seen(await host.call_tool("mcp_web_region_seen", {"region": "eu west 1"}))
            assert plain["mcp-protocol-version"] == "2026-07-28"
            assert plain["mcp-method"] == "tools/call"
            assert plain["mcp-name"] == "region_seen"
            assert plain["mcp-param-region"] == "eu west 1"
            # A value a header cannot carry as is travels base64-encoded.
            odd = seen(
                await host.call_tool("mcp_web_region_seen", {"region": "Zürich", "note": "n"})
            )
            encoded = base64.b64encode("Zürich".encode()).decode()
            assert odd["mcp-param-region"] == f"=?base64?{encoded}?="
            # Only designated arguments become headers.
            params = [name for name in odd if name.startswith("mcp-param-")]
            assert params == ["mcp-param-region"]

    asyncio.run(scenario())


def test_a_tool_with_an_invalid_header_designation_is_skipped_the_others_work(
    modern_url: str,
) -> None:
    async def scenario() -> None:
        web = HostServer("web", transport="streamable_http", url=modern_url)
        async with MCPHost([web]) as host:
            names = {entry.tool for entry in host.tools() if not entry.utility}
            assert names == {"headers_seen", "region_seen"}
            (skipped,) = host.skipped_tools["web"]
            assert skipped.startswith("'bad_designation': invalid x-mcp-header")
            assert "'My Region' is not an RFC 9110 token" in skipped
            assert seen(await host.call_tool("mcp_web_headers_seen"))["mcp-name"] == "headers_seen"

    asyncio.run(scenario())


def test_the_handshake_era_sends_only_the_protocol_version(handshake_url: str) -> None:
    async def scenario() -> None:
        web = HostServer("web", transport="streamable_http", url=handshake_url)
        async with MCPHost([web]) as host:
            (row,) = host.status()
            assert row.protocol == "2025-11-25"
            headers = seen(await host.call_tool("mcp_web_headers_seen"))
            assert headers["mcp-protocol-version"] == "2025-11-25"
            assert "mcp-name" not in headers and "mcp-method" not in headers

    asyncio.run(scenario())


def test_hermes_mcp_call_and_status_on_a_modern_http_server(
    modern_url: str, tmp_path: Path
) -> None:
    (tmp_path / "config.yaml").write_text(f"mcp_servers:\n  web:\n    url: {modern_url}\n")
    env = {"HERMES_HOME": str(tmp_path)}
    done = run_hermes(
        "mcp", "call", "--json", "mcp_web_region_seen", "--args", '{"region": "us-west1"}', env=env
    )
    assert done.returncode == 0, done.stderr
    headers = seen(json.loads(done.stdout))
    assert headers["mcp-param-region"] == "us-west1"
    assert headers["mcp-method"] == "tools/call"
    status = run_hermes("mcp", "status", env=env)
    assert status.returncode == 0, status.stderr
    assert "protocol: 2026-07-28" in status.stdout
    # The invalid tool is named, with why, when the server connects.
    assert "skipping tool 'bad_designation': invalid x-mcp-header" in status.stderr
