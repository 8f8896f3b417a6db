"""Requests to a stdio server: waiting ones share a write, in order, bounded.

Calls started together hand the transport's writer their requests before it runs; it writes
those already waiting in one system call (at most 32 messages or about 256 KiB), so 200 calls
at once cost the client a few writes instead of 200.  Here: the batching itself on the real
stream the transport reads, and 200 calls at once through the host against real servers,
each answered with its own result.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage

from hermes_core.host.host import HostServer, MCPHost
from hermes_core.host.transports.stdio import (
    _WRITE_BATCH_BYTES,
    _frame_waiting,
)
from servers.reference import EVERYTHING, node

HOSTILE = str(Path(__file__).parents[1] / "servers" / "hostile_server.py")
NOTHING_MORE = (anyio.WouldBlock, anyio.EndOfStream)


def _request(number: int, padding: str = "") -> SessionMessage:
    params = {"name": "echo", "arguments": {"text": f"{number}{padding}"}}
    return SessionMessage(
        types.JSONRPCRequest(jsonrpc="2.0", id=number, method="tools/call", params=params)
    )


async def _frames(messages: list[SessionMessage]) -> list[list[dict[str, Any]]]:
    """Send *messages* from tasks of their own (as concurrent calls do), then take them the
    way the writer does; each write decoded back into its messages."""
    send, receive = anyio.create_memory_object_stream[SessionMessage](0)
    frames: list[list[dict[str, Any]]] = []
    async with send, receive, anyio.create_task_group() as group:
        for message in messages:
            group.start_soon(send.send, message)
        await anyio.wait_all_tasks_blocked()  # every sender waits at the stream, as in a burst
        taken = 0
        while taken < len(messages):
            data = _frame_waiting(await receive.receive(), receive, NOTHING_MORE)
            assert data.endswith(b"\n")
            frames.append([json.loads(line) for line in data.decode().splitlines()])
            taken += len(frames[-1])
    return frames


def test_waiting_requests_share_writes_in_order_at_most_32_each() -> None:
    frames = anyio.run(_frames, [_request(n) for n in range(70)])
    assert [len(frame) for frame in frames] == [32, 32, 6]
    assert [m["id"] for frame in frames for m in frame] == list(range(70))


def test_a_lone_request_is_written_at_once() -> None:
    frames = anyio.run(_frames, [_request(7)])
    assert frames == [
        [
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "7"}},
            }
        ]
    ]


def test_large_requests_are_not_joined_past_the_byte_bound() -> None:
    padding = "x" * (100 * 1024)
    frames = anyio.run(_frames, [_request(n, padding) for n in range(8)])
    assert len(frames) > 1
    for frame in frames:
        # A write stops taking messages once it holds the bound; the last one may cross it.
        assert sum(len(json.dumps(m)) for m in frame[:-1]) < _WRITE_BATCH_BYTES
    assert [m["id"] for frame in frames for m in frame] == list(range(8))


@pytest.mark.process
@pytest.mark.node
def test_two_hundred_calls_at_once_each_get_their_own_answer() -> None:
    async def scenario() -> tuple[list[str], list[str]]:
        servers = [
            HostServer(
                "py", command=sys.executable, args=[HOSTILE], supports_parallel_tool_calls=True
            ),
            HostServer(
                "node",
                command=node(),
                args=[str(EVERYTHING), "stdio"],
                supports_parallel_tool_calls=True,
            ),
        ]
        async with MCPHost(servers) as host:
            py = await asyncio.gather(
                *(host.call_tool("mcp_py_echo", {"text": f"call {n}"}) for n in range(200))
            )
            js = await asyncio.gather(
                *(host.call_tool("mcp_node_echo", {"message": f"call {n}"}) for n in range(200))
            )
        return [r["content"][0]["text"] for r in py], [r["content"][0]["text"] for r in js]

    py, js = asyncio.run(scenario())
    assert py == [f"call {n}" for n in range(200)]
    assert js == [f"Echo: call {n}" for n in range(200)]


# -- the pipe sender (no writer task) -------------------------------------------------------
# A stdio "server" (standard library only) that answers initialize and tools/list, then closes
# its stdin and stays alive with stdout open: the next request finds the pipe broken.
CLOSES_STDIN = r"""
import json, os, sys, time
def answer(request, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}) + "\n")
    sys.stdout.flush()
tool = {"name": "x", "inputSchema": {"type": "object"}}
for line in sys.stdin:
    request = json.loads(line)
    if request.get("method") == "initialize":
        info = {"name": "s", "version": "1"}
        answer(request, {"protocolVersion": request["params"]["protocolVersion"],
                         "capabilities": {"tools": {}}, "serverInfo": info})
    elif request.get("method") == "tools/list":
        answer(request, {"tools": [tool]})
        break
sys.stdin.close()
os.close(0)
open(sys.argv[1], "w").close()  # tells the test its stdin is closed
time.sleep(600)
"""


@pytest.mark.process
def test_the_host_writes_to_stdin_without_a_writer_task(tmp_path: Path) -> None:
    """With the installed anyio the session's write stream is the pipe sender: an anyio that
    stops keeping the asyncio writer where we read it fails here, not silently slower."""
    from hermes_core.host.transports.stdio import PipeSender, open_stdio_process

    async def scenario() -> str:
        with (tmp_path / "err.log").open("w") as errlog:
            async with open_stdio_process(
                [sys.executable, HOSTILE],
                server="s",
                env=dict(os.environ),
                cwd=None,
                errlog=errlog,
            ) as (_read, write):
                return type(write).__name__

    assert asyncio.run(scenario()) == PipeSender.__name__


@pytest.mark.process
def test_requests_sent_together_share_writes_through_a_real_pipe() -> None:
    from hermes_core.host.transports.stdio import PipeSender

    async def scenario() -> tuple[list[int], list[int]]:
        process = await asyncio.create_subprocess_exec(
            "cat", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )
        assert process.stdin is not None and process.stdout is not None
        writes: list[int] = []
        real_write = process.stdin.write

        def counted(data: bytes) -> None:  # a spy on the real writer: counts, then writes
            writes.append(data.count(b"\n"))
            real_write(data)

        process.stdin.write = counted  # type: ignore[method-assign]
        sender = PipeSender(process.stdin, on_broken=lambda: None)
        await asyncio.gather(*(sender.send(_request(n)) for n in range(70)))
        echoed = [json.loads(await process.stdout.readline())["id"] for _ in range(70)]
        await sender.send(_request(70))  # alone, once the others are through
        echoed.append(json.loads(await process.stdout.readline())["id"])
        await sender.aclose()
        process.stdin.close()
        await process.wait()
        return writes, echoed

    writes, echoed = asyncio.run(scenario())
    # The first of the 70 goes out at once (the server starts on it while this process sends
    # the rest); the other 69 follow at most 32 a write, in order; the lone one is alone.
    assert writes == [1, 32, 32, 5, 1]
    assert echoed == list(range(71))


@pytest.mark.process
@pytest.mark.slow
def test_a_server_that_closes_its_stdin_fails_the_call_at_once(tmp_path: Path) -> None:
    closed = tmp_path / "stdin-closed"

    async def scenario() -> dict[str, Any]:
        args = ["-c", CLOSES_STDIN, str(closed)]
        server = HostServer("s", command=sys.executable, args=args, timeout=30)
        host = MCPHost([server])
        try:
            assert await host.start() == {"s": None}
            # The call is written once the server's end is closed: a request written before
            # would sit unread in the pipe, and no write could tell (a loaded machine).
            for _ in range(3000):
                if closed.exists():
                    break
                await asyncio.sleep(0.01)
            assert closed.exists(), "the server never closed its stdin"
            return await host.call_tool("mcp_s_x", {})
        finally:
            await host.close()

    result = asyncio.run(scenario())
    error = str(result.get("error"))
    assert "error" in result and "timed out" not in error, result
