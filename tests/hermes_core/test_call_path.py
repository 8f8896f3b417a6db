"""The per-call path without polling: one timer per request, the connection's task asleep while
idle, and the deadline telling a timeout apart from a cancellation by the caller."""

from __future__ import annotations

import asyncio
import cProfile
import pstats
import sys
from pathlib import Path

import pytest

from hermes_core.host.connection.session_task import SessionTask
from hermes_core.host.host import HostServer, MCPHost

pytestmark = [pytest.mark.process, pytest.mark.slow]

HOSTILE = str(Path(__file__).parents[1] / "servers" / "hostile_server.py")


def hostile(**kwargs: object) -> HostServer:
    return HostServer("hostile", command=sys.executable, args=[HOSTILE], **kwargs)  # type: ignore[arg-type]


def test_an_idle_connection_is_not_woken() -> None:
    """Nothing polls: with keepalive off, a connected server's task is not resumed at all
    while nobody calls (it used to wake every 0.5 s to look at its stream)."""
    run = SessionTask.run.__code__

    async def scenario() -> int:
        async with MCPHost([hostile(keepalive_interval=0)]) as host:
            assert (await host.call_tool("mcp_hostile_echo", {"text": "x"}))["isError"] is False
            profile = cProfile.Profile()
            profile.enable()
            await asyncio.sleep(1.2)  # idle on purpose: what is measured is what does not happen
            profile.disable()
        stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
        return sum(
            calls
            for (file, line, _name), (_cc, calls, *_rest) in stats.items()
            if file == run.co_filename and line == run.co_firstlineno
        )

    assert asyncio.run(scenario()) == 0


def test_a_timed_out_call_leaves_its_task_uncancelled() -> None:
    async def scenario() -> None:
        async with MCPHost([hostile(timeout=0.5)]) as host:
            result = await host.call_tool("mcp_hostile_hang")
            assert "timed out after 0.5 s" in result["error"]
            task = asyncio.current_task()
            assert task is not None and task.cancelling() == 0
            # and the task goes on: the next await is not cancelled by a stray timer
            again = await host.call_tool("mcp_hostile_echo", {"text": "after"})
            assert again["content"][0]["text"] == "after"
            await asyncio.sleep(0.6)  # past where the first call's deadline was

    asyncio.run(scenario())


def test_cancelling_a_call_is_not_reported_as_a_timeout(tmp_path: Path) -> None:
    marker = tmp_path / "cancelled.txt"

    async def scenario() -> None:
        server = hostile(timeout=60, env={"HOSTILE_CANCEL_MARKER": str(marker)})
        async with MCPHost([server]) as host:
            connection = host._connections["hostile"]
            call = asyncio.create_task(host.call_tool("mcp_hostile_hang"))
            while not connection._inflight:  # the request is on its way
                await asyncio.sleep(0.01)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            for _ in range(100):  # the notification travels asynchronously
                if marker.exists():
                    break
                await asyncio.sleep(0.05)
            # the server is still there and answers
            echoed = await host.call_tool("mcp_hostile_echo", {"text": "still here"})
            assert echoed["content"][0]["text"] == "still here"

    asyncio.run(scenario())
    assert marker.read_text() == "cancelled\n"
