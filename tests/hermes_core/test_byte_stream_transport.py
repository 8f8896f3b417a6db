"""``open_byte_stream``: a plugin's socket transport in a few lines, against a real server on a
real Unix socket (``tests/servers/unix_socket_server.py``, framed by the SDK's own stdio code).

The transport below is the one docs/plugin-authors.md shows; the last test installs it as a
plugin distribution and calls a tool through the ``hermes`` CLI.
"""

from __future__ import annotations

import io
import json
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO

import anyio
import pytest
from mcp import ClientSession

from hermes_core.host.server_spec import HostServer
from hermes_core.host.transports import open_byte_stream
from hermes_core.plugins.types import ServerSpec, TransportStreams

pytestmark = [pytest.mark.process]

SERVER = Path(__file__).parents[1] / "servers" / "unix_socket_server.py"


@asynccontextmanager
async def unix_connect(spec: ServerSpec, errlog: IO[str]) -> AsyncIterator[TransportStreams]:
    with anyio.fail_after(spec.connect_timeout):
        stream = await anyio.connect_unix(spec.options["socket"])
    async with open_byte_stream(stream, spec, errlog) as streams:
        yield streams


@pytest.fixture
def socket_path(tmp_path: Path) -> Iterator[str]:
    path = str(tmp_path / "mcp.sock")
    child = subprocess.Popen([sys.executable, str(SERVER), path], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "listening\n"
        yield path
    finally:
        child.kill()
        child.wait()
        if child.stdout is not None:
            child.stdout.close()


def _spec(path: str, **settings: object) -> HostServer:
    return HostServer("sock", transport="unix_socket", options={"socket": path}, **settings)  # type: ignore[arg-type]


def test_a_session_runs_over_a_unix_socket(socket_path: str) -> None:
    async def session() -> tuple[list[str], str]:
        streams = unix_connect(_spec(socket_path), io.StringIO())
        async with streams as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            tools = [t.name for t in (await client.list_tools()).tools]
            echoed = await client.call_tool("echo", {"text": "über the socket"})
            return tools, echoed.content[0].text  # type: ignore[union-attr]

    assert anyio.run(session) == (["echo", "sized"], "über the socket")


def test_a_message_over_max_message_bytes_ends_the_connection(socket_path: str) -> None:
    async def session() -> tuple[str, Exception | None]:
        streams = unix_connect(_spec(socket_path, max_message_bytes=4096), io.StringIO())
        async with streams as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            small = await client.call_tool("sized", {"n": 100})
            try:
                with anyio.fail_after(20):
                    await client.call_tool("sized", {"n": 20_000})
            except Exception as exc:  # what the session says is the point
                return small.content[0].text, exc  # type: ignore[union-attr]
            return small.content[0].text, None  # type: ignore[union-attr]

    small, failure = anyio.run(session)
    assert small == "x" * 100
    assert failure is not None and not isinstance(failure, TimeoutError), failure


def test_garbage_lines_are_dropped_and_the_peer_closing_ends_the_stream(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()

    async def session() -> tuple[list[object], bytes]:
        ours, theirs = socket.socketpair()
        stream = await anyio.abc.SocketStream.from_socket(ours)
        theirs.sendall(b"not json at all\n" + ping + b"\n")
        theirs.shutdown(socket.SHUT_WR)  # the peer is done: the read stream must end
        async with open_byte_stream(stream, _spec("-"), io.StringIO()) as (read, write):
            with anyio.fail_after(10):
                received = [item async for item in read]
                from mcp.shared.message import SessionMessage
                from mcp_types import JSONRPCResponse

                await write.send(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=1, result={})))
        answer = theirs.recv(4096)
        theirs.close()
        return received, answer

    with caplog.at_level("WARNING"):
        received, answer = anyio.run(session)
    assert [type(item).__name__ for item in received] == ["SessionMessage"]
    assert received[0].message.method == "ping"  # type: ignore[attr-defined]
    assert json.loads(answer) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert answer.endswith(b"\n")
    assert "MCP server 'sock'" in caplog.text and "not JSON-RPC" in caplog.text
