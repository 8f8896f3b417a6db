"""Bogus notifications and garbage over HTTP get stdio's treatment: one rate-limited warning
line naming the server, never a pydantic traceback, and the call still gets its result.

The server (``hostile_http.py bogus``) is a Streamable HTTP MCP server written by hand: it
answers the handshake and listing properly, then streams 200 invalid notifications (or 200
events that are not JSON at all) before a tool's result.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_core.host.connection.server_warnings import ServerWarnings
from hermes_core.host.transports.sse_events import filtered_events
from servers.net import free_port, wait_for_port
from support.cli import run_hermes

SERVERS = Path(__file__).parents[1] / "servers"


def serve(tmp_path: Path, mode: str, entry: str) -> Iterator[Path]:
    port = free_port()
    process = subprocess.Popen([sys.executable, str(SERVERS / "hostile_http.py"), str(port), mode])
    try:
        wait_for_port(port)
        home = tmp_path / "home"
        home.mkdir()
        url = f"http://127.0.0.1:{port}"
        (home / "config.yaml").write_text("mcp_servers:\n  bogus:\n" + entry.format(url=url))
        yield home
    finally:
        process.kill()
        process.wait()


@pytest.fixture
def bogus_home(tmp_path: Path) -> Iterator[Path]:
    """The server over Streamable HTTP."""
    yield from serve(tmp_path, "bogus", "    url: {url}/mcp\n")


@pytest.fixture(params=["streamable_http", "sse"])
def any_bogus_home(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Path]:
    """The server over Streamable HTTP, then over the legacy HTTP+SSE transport."""
    if request.param == "sse":
        yield from serve(tmp_path, "bogus-sse", "    url: {url}/sse\n    transport: sse\n")
    else:
        yield from serve(tmp_path, "bogus", "    url: {url}/mcp\n")


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.network
@pytest.mark.slow
@pytest.mark.parametrize(
    ("tool", "warning"),
    [
        ("noisy", "MCP server 'bogus': ignoring an invalid 'notifications/progress' notification"),
        ("garbage", "MCP server 'bogus': ignoring an SSE event that is not JSON-RPC"),
    ],
)
def test_bogus_sse_events_are_one_warning_and_the_call_succeeds(
    any_bogus_home: Path, tool: str, warning: str
) -> None:
    env = {"HERMES_HOME": str(any_bogus_home)}
    result = run_hermes("mcp", "call", "--json", f"mcp_bogus_{tool}", env=env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["content"][0]["text"] == "after the noise"
    assert "Traceback" not in result.stderr
    assert "validation error" not in result.stderr
    assert result.stderr.splitlines() == [warning]  # 200 bad events: one line, rate-limited


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.network
@pytest.mark.slow
def test_a_json_body_that_is_not_json_fails_the_call_without_a_traceback(
    bogus_home: Path,
) -> None:
    result = run_hermes(
        "mcp", "call", "--json", "mcp_bogus_badjson", env={"HERMES_HOME": str(bogus_home)}
    )
    assert result.returncode == 1
    error = json.loads(result.stdout)["error"]
    assert error.startswith("MCP server 'bogus' answered with an error: ")
    assert "Failed to parse JSON response" in error
    assert "Traceback" not in result.stderr
    assert result.stderr == ""


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.network
def test_status_of_the_server_stays_clean(bogus_home: Path) -> None:
    result = run_hermes("mcp", "status", "--json", env={"HERMES_HOME": str(bogus_home)})
    assert result.returncode == 0, result.stderr
    (row,) = json.loads(result.stdout)
    assert row["connection"] == "connected" and row["tools"] == 3


def test_the_event_filter_keeps_everything_else_byte_for_byte() -> None:
    import asyncio

    good = (
        b": a comment\n\nevent: endpoint\ndata: /messages?s=1\n\n"
        b'id: 7\nevent: message\ndata: {"jsonrpc": "2.0", "id": 1, "result": {}}\n\n'
        b"event: message\ndata:\n\nretry: 100\n\n"
    )
    bad = b'event: message\ndata: {"jsonrpc": "2.0", "method": "notifications/progress"}\n\n'
    bad += b"data: not json\r\n\r\n"
    big = b"event: message\ndata: " + b"x" * (2 * 1024 * 1024) + b"\n\n"  # passes unchecked

    async def run(chunks: list[bytes]) -> bytes:
        async def stream() -> Iterator[bytes]:  # type: ignore[misc]
            for chunk in chunks:
                yield chunk

        out = [c async for c in filtered_events(stream(), ServerWarnings("t"))]  # type: ignore[arg-type]
        return b"".join(out)

    whole = good + bad + big + good
    assert asyncio.run(run([whole])) == good + big + good
    pieces = [whole[i : i + 7] for i in range(0, len(whole), 7)]  # split anywhere
    assert asyncio.run(run(pieces)) == good + big + good


def test_the_event_filter_ends_lines_as_the_sdk_does() -> None:
    """``\\n``, ``\\r\\n`` or a lone ``\\r`` (httpx2's SSE reader); a ``\\r`` at the end of a
    chunk waits for the next, which may begin with the ``\\n`` of the same line ending."""
    import asyncio

    good = b'event: message\rdata: {"jsonrpc": "2.0", "id": 1, "result": {}}\r\r'
    bad = b"event: message\r\ndata: not json\r\n\r\n"

    async def run(chunks: list[bytes]) -> bytes:
        async def stream() -> Iterator[bytes]:  # type: ignore[misc]
            for chunk in chunks:
                yield chunk

        out = [c async for c in filtered_events(stream(), ServerWarnings("t"))]  # type: ignore[arg-type]
        return b"".join(out)

    whole = bad + good + bad + good
    assert asyncio.run(run([whole])) == good + good
    for size in (1, 2, 3, 5):  # split anywhere, between a '\r' and its '\n' too
        pieces = [whole[i : i + size] for i in range(0, len(whole), size)]
        assert asyncio.run(run(pieces)) == good + good


def test_the_event_filter_drops_from_a_chunk_of_whole_events() -> None:
    """Whole ``\\n``-ended events in one chunk (what servers send) take a quicker way: the
    same verdicts, the kept events passed on as they came."""
    import asyncio

    good = b'id: 3\nevent: message\ndata: {"jsonrpc": "2.0", "id": 1, "result": {}}\n\n'
    notice = b'event: message\ndata: {"jsonrpc": "2.0", "method": "notifications/message",'
    notice += b' "params": {"level": "info", "data": "hi"}}\n\n'
    bad = b'event: message\ndata: {"jsonrpc": "2.0", "method": "notifications/progress"}\n\n'
    bad += b"data: not json\n\n"

    async def run(chunk: bytes) -> bytes:
        async def stream() -> Iterator[bytes]:  # type: ignore[misc]
            yield chunk

        out = [c async for c in filtered_events(stream(), ServerWarnings("t"))]  # type: ignore[arg-type]
        return b"".join(out)

    assert asyncio.run(run(good + notice)) == good + notice
    assert asyncio.run(run(bad + good + bad + notice)) == good + notice
    assert asyncio.run(run(bad)) == b""
