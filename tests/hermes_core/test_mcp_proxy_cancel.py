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
            # `cancelled` waits (up to 60 s) for a cancelled `hang` and counts them.
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

        # `cancelled` waits (up to 60 s) for a cancelled `hang` and counts them: without the
        # cancel it would say "cancelled 0" after its wait.
        assert asyncio.run(asyncio.wait_for(told(), 120)) == "cancelled 1"


class RawStdio:
    """``hermes mcp proxy`` on pipes, written to and read as a raw client does."""

    def __init__(self, home: Path) -> None:
        self.proc = subprocess.Popen(
            proxy_argv(),
            env=proxy_env(home),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.early: dict[Any, dict[str, Any]] = {}

    def send(self, message: Any) -> None:
        assert self.proc.stdin is not None
        text = message if isinstance(message, str) else json.dumps(message)
        self.proc.stdin.write(text.encode() + b"\n")
        self.proc.stdin.flush()

    def call(self, request_id: Any, name: str, **params: Any) -> None:
        message = {"name": name, **params}
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": message})

    def answer(self, request_id: Any) -> dict[str, Any]:
        """The answer to *request_id* (answers to others read meanwhile are kept)."""
        assert self.proc.stdout is not None
        while request_id not in self.early:
            line = self.proc.stdout.readline()
            assert line, "the proxy closed stdout"
            message = json.loads(line)
            if "id" in message:
                self.early[message["id"]] = message
        return self.early.pop(request_id)

    def open(self) -> None:
        hello = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "r", "version": "0"},
        }
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
        assert self.answer(0)["result"]["serverInfo"]["name"] == "hermes-proxy"
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def close(self) -> int:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.proc.wait(60)
        self.proc.stdout.close()
        return self.proc.returncode


def test_the_stdio_wire_survives_garbage_and_answers_calls_in_full(tmp_path: Path) -> None:
    _config(tmp_path)
    wire = RawStdio(tmp_path)
    try:
        wire.send("this is not json {")
        wire.open()
        wire.call(2, "mcp_up_shout")
        shouted = wire.answer(2)["result"]
        assert shouted["isError"] is False
        assert "\x1b" not in shouted["content"][0]["text"]  # cleaned on the way down
        assert "\U000e0041" not in shouted["content"][0]["text"]
        wire.call("s", "nope")
        unknown = wire.answer("s")["result"]
        assert unknown["isError"] is True and "unknown tool 'nope'" in unknown["content"][0]["text"]
        wire.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"arguments": {}}})
        assert wire.answer(3)["error"]["code"] == -32602  # no name: the SDK's own answer
    finally:
        assert wire.close() == 0


def test_a_flood_of_calls_is_bounded_and_cancels_still_arrive(tmp_path: Path) -> None:
    from hermes_core.serve.proxy.fast_calls import MAX_IN_FLIGHT

    _config(tmp_path)
    wire = RawStdio(tmp_path)
    try:
        wire.open()
        flood = MAX_IN_FLIGHT + 4
        for request_id in range(1, flood + 1):  # each waits until it is cancelled
            wire.call(request_id, "mcp_up_hang")
        for request_id in range(MAX_IN_FLIGHT + 1, flood + 1):
            refused = wire.answer(request_id)["error"]
            assert refused["code"] == -32000 and "too many calls in flight" in refused["message"]
        for request_id in range(1, MAX_IN_FLIGHT + 1):
            cancel = {"requestId": request_id, "reason": "enough"}
            wire.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel})
        wire.call("after", "mcp_up_cancelled")
        said = wire.answer("after")["result"]["content"][0]["text"]
        assert said.startswith("cancelled ") and int(said.split()[1]) >= 1, said
        # A cancelled call is not answered; the proxy goes on answering.
        assert not [m for m in wire.early.values() if m.get("id") in range(1, flood + 1)]
        wire.call("peek", "mcp_up_peek")
        assert wire.answer("peek")["result"]["content"][0]["text"] == "peeked"
    finally:
        assert wire.close() == 0
