"""A downstream client of ``hermes mcp proxy`` that cancels, or goes, mid-call cancels the
upstream call: a cancel on stdio (the proxy's hot path: no progress token), an HTTP client that
drops its connection (a 2025-11-25 session, and a 2026-07-28 request), and the proxy's stdio
wire as a raw client writes it (a garbage line, then calls)."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from support.proxy import (
    UPSTREAM,
    http_session,
    proxy_argv,
    proxy_env,
    proxy_session,
    running_http,
    text_of,
    write_config,
)

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _config(home: Path) -> None:
    write_config(home, servers={"up": {"command": sys.executable, "args": [str(UPSTREAM)]}})


def test_a_cancel_on_stdio_cancels_the_upstream_call(tmp_path: Path) -> None:
    _config(tmp_path)

    started = asyncio.Event()

    async def on_log(params: Any) -> None:
        if "hang started" in str(params.data):
            started.set()

    async def scenario() -> None:
        async with proxy_session(tmp_path, logging_callback=on_log) as session:
            call = asyncio.ensure_future(session.call_tool("mcp_up_hang", {}))
            await asyncio.wait_for(started.wait(), 60)  # the call runs upstream
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            # `up` runs one call at a time: `cancelled` runs once `hang` has ended.
            told = await session.call_tool("mcp_up_cancelled", {})
            assert text_of(told) == "cancelled 1"

    asyncio.run(scenario())


def _post(port: int, headers: dict[str, str], message: dict[str, Any]) -> socket.socket:
    """A POST of *message* on a raw socket, read until the call's progress shows it is in
    flight upstream; the socket is returned open (the caller drops it)."""
    body = json.dumps(message).encode()
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    lines = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    head = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{lines}"
    sock.sendall(f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body)
    seen = b""
    while b"notifications/progress" not in seen:
        chunk = sock.recv(65536)
        assert chunk, seen
        seen += chunk
    return sock


@pytest.mark.network
@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
def test_an_http_client_that_drops_its_connection_cancels_the_call(
    tmp_path: Path, era: str
) -> None:
    import httpx2

    _config(tmp_path)
    with running_http(tmp_path) as (url, token):
        port = urllib.parse.urlsplit(url).port
        assert port is not None
        headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "MCP-Protocol-Version": era,
        }
        meta: dict[str, Any] = {"progressToken": "p"}
        if era == "2025-11-25":
            with httpx2.Client(trust_env=False, timeout=60) as http:
                hello = {
                    "protocolVersion": era,
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"},
                }
                opened = http.post(
                    url,
                    headers=headers,
                    json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
                )
                headers["mcp-session-id"] = opened.headers["mcp-session-id"]
                http.post(
                    url,
                    headers=headers,
                    json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                )
        else:
            meta |= MODERN_META
            headers |= {"Mcp-Method": "tools/call", "Mcp-Name": "mcp_up_hang"}
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "mcp_up_hang", "arguments": {}, "_meta": meta},
        }
        _post(port, headers, call).close()  # the client goes while the call runs upstream

        async def told() -> str:
            async with http_session(url, token) as session:
                return text_of(await session.call_tool("mcp_up_cancelled", {}))

        # `cancelled` runs only after `hang` ended (`up` runs one call at a time), and says
        # whether it was cancelled; without the cancel it would wait for ever.
        assert asyncio.run(asyncio.wait_for(told(), 60)) == "cancelled 1"


def test_the_stdio_wire_survives_garbage_and_answers_calls_in_full(tmp_path: Path) -> None:
    _config(tmp_path)
    proc = subprocess.Popen(
        proxy_argv(),
        env=proxy_env(tmp_path),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: Any) -> None:
        assert proc.stdin is not None
        text = message if isinstance(message, str) else json.dumps(message)
        proc.stdin.write(text.encode() + b"\n")
        proc.stdin.flush()

    def answer(request_id: int) -> dict[str, Any]:
        assert proc.stdout is not None
        while True:
            line = proc.stdout.readline()
            assert line, "the proxy closed stdout"
            message = json.loads(line)
            if message.get("id") == request_id:
                return dict(message)

    try:
        send("this is not json {")
        hello = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "r", "version": "0"},
        }
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        assert answer(1)["result"]["serverInfo"]["name"] == "hermes-proxy"
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "mcp_up_shout"}}
        )
        shouted = answer(2)["result"]
        assert shouted["isError"] is False
        assert "\x1b" not in shouted["content"][0]["text"]  # cleaned on the way down
        assert "\U000e0041" not in shouted["content"][0]["text"]
        send({"jsonrpc": "2.0", "id": "s", "method": "tools/call", "params": {"name": "nope"}})
        unknown = answer("s")["result"]  # type: ignore[arg-type]
        assert unknown["isError"] is True and "unknown tool 'nope'" in unknown["content"][0]["text"]
        send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"arguments": {}}})
        assert answer(3)["error"]["code"] == -32602  # no name: the SDK's own answer
    finally:
        proc.stdin.close()
        proc.wait(60)
        proc.stdout.close()
    assert proc.returncode == 0
