"""``hermes mcp proxy --http``'s hot path: a plain ``tools/call`` answered as one JSON body,
everything else (a progress token, a client that can be asked questions, a hostile request)
the SDK's as before.  One proxy for the module; raw HTTP where the wire is the point."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from support.desktop import wait_for
from support.proxy import UPSTREAM, http_session, running_http, text_of, write_config

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.network, pytest.mark.slow]

ERA = "2025-11-25"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("home")


@pytest.fixture(scope="module")
def proxy(home: Path) -> Iterator[tuple[str, str]]:
    write_config(home, servers={"up": {"command": sys.executable, "args": [str(UPSTREAM)]}})
    with running_http(home) as (url, token):
        yield url, token


class Raw:
    """A raw client of one 2025-11-25 session (initialized), posting JSON-RPC by hand."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.http = httpx2.Client(trust_env=False, timeout=120)
        self.headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "MCP-Protocol-Version": ERA,
        }
        hello = {
            "protocolVersion": ERA,
            "capabilities": {},
            "clientInfo": {"name": "r", "version": "0"},
        }
        opened = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
        self.headers["Mcp-Session-Id"] = opened.headers["mcp-session-id"]
        assert (
            self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}).status_code == 202
        )

    def post(self, message: Any = None, *, content: bytes | None = None, **headers: str) -> Any:
        return self.http.post(
            self.url,
            headers={**self.headers, **headers},
            json=message if content is None else None,
            content=content,
        )


@pytest.fixture(scope="module")
def raw(proxy: tuple[str, str]) -> Iterator[Raw]:
    client = Raw(*proxy)
    yield client
    client.http.close()


def _call(request_id: int, name: str, arguments: dict[str, Any], **meta: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if meta:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def test_a_plain_call_is_one_json_body_and_a_progress_call_a_stream(raw: Raw) -> None:
    got = raw.post(_call(7, "mcp_up_note", {"text": "hi"}))
    assert got.status_code == 200
    assert got.headers["content-type"] == "application/json"
    assert got.headers["mcp-session-id"] == raw.headers["Mcp-Session-Id"]
    answer = got.json()
    assert answer["id"] == 7 and answer["jsonrpc"] == "2.0"
    assert answer["result"]["content"] == [{"type": "text", "text": "noted hi"}]
    assert answer["result"]["isError"] is False

    unknown = raw.post(_call("x", "mcp_up_nothing", {})).json()
    assert unknown["id"] == "x" and unknown["result"]["isError"] is True

    streamed = raw.post(_call(8, "mcp_up_note", {"text": "p"}, progressToken="t"))
    assert streamed.headers["content-type"].startswith("text/event-stream")
    assert "noted p" in streamed.text


def test_hostile_requests_get_the_sdks_answers(proxy: tuple[str, str], raw: Raw) -> None:
    assert raw.post(content=b'{"jsonrpc": "2.0", "id": 1, "method": ').status_code == 400
    assert raw.post(content=b"[1, 2").status_code == 400
    wrong = raw.post(_call(2, "mcp_up_note", {"text": "x"}), **{"Mcp-Session-Id": "nope"})
    assert wrong.status_code == 404
    bad_token = raw.post(_call(3, "mcp_up_note", {"text": "x"}), Authorization="Bearer nope")
    assert bad_token.status_code == 401
    rebound = raw.post(_call(4, "mcp_up_note", {"text": "x"}), Host="evil.example")
    assert rebound.status_code == 421
    foreign = raw.post(_call(5, "mcp_up_note", {"text": "x"}), Origin="http://evil.example")
    assert foreign.status_code == 403
    assert raw.post(_call(6, "mcp_up_note", {"text": "x"}), Accept="text/plain").status_code == 406
    huge = b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"mcp_up_note",'
    huge += b'"arguments":{"text":"' + b"a" * (5 * 1024 * 1024) + b'"}}}'
    assert raw.post(content=huge).status_code == 413
    # the session still answers
    assert raw.post(_call(10, "mcp_up_note", {"text": "ok"})).json()["result"]["isError"] is False


def test_a_client_that_can_elicit_is_asked_during_its_call(proxy: tuple[str, str]) -> None:
    from mcp_types import ElicitResult

    async def colour(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"colour": "teal"})

    async def scenario() -> str:
        async with http_session(*proxy, elicitation_callback=colour) as session:
            return text_of(await session.call_tool("mcp_up_ask", {}))

    assert asyncio.run(asyncio.wait_for(scenario(), 120)) == "colour teal"


def _started(home: Path, count: int) -> None:
    """Wait until the upstream ``hang`` has started *count* times (the proxy logs each)."""
    log = home / "proxy.err"
    wait_for(lambda: log.read_text().count("hang started") >= count, 60, "hang started")


def test_a_plain_call_cancelled_or_dropped_by_its_client_cancels_the_upstream_call(
    proxy: tuple[str, str], raw: Raw, home: Path
) -> None:
    async def cancelled(session: Any, count: int) -> str:
        """``cancelled``'s answer once *count* hang calls were cancelled upstream."""
        told = ""
        for _ in range(3000):
            told = text_of(await session.call_tool("mcp_up_cancelled", {}))
            if told == f"cancelled {count}":
                break
        return told

    async def scenario() -> None:
        async with http_session(*proxy) as session:
            call = asyncio.ensure_future(session.call_tool("mcp_up_hang", {}))
            await asyncio.to_thread(_started, home, 1)  # the call runs upstream
            call.cancel()  # the SDK's client sends notifications/cancelled
            with pytest.raises(asyncio.CancelledError):
                await call
            assert await cancelled(session, 1) == "cancelled 1"

            port = urllib.parse.urlsplit(proxy[0]).port
            sock = socket.create_connection(("127.0.0.1", port or 0), timeout=60)
            body = json.dumps(_call(99, "mcp_up_hang", {})).encode()
            head = "".join(f"{k}: {v}\r\n" for k, v in raw.headers.items())
            sock.sendall(
                f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{head}"
                f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            await asyncio.to_thread(_started, home, 2)
            sock.close()  # the client goes while its call runs upstream
            assert await cancelled(session, 2) == "cancelled 2"

    asyncio.run(asyncio.wait_for(scenario(), 180))


def test_a_head_that_never_ends_is_cut_at_its_size_limit(proxy: tuple[str, str]) -> None:
    port = urllib.parse.urlsplit(proxy[0]).port
    with socket.create_connection(("127.0.0.1", port or 0), timeout=60) as sock:
        sock.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
        line = b"X-Pad: " + b"a" * 1000 + b"\r\n"
        with pytest.raises(OSError):  # closed at 16 KiB, long before the header timeout
            for _ in range(100 * 1024):  # 100 MiB, if nothing stopped it
                sock.sendall(line)
