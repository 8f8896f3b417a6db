"""The plain-call lane: a usual ``tools/call`` on a stdio server goes on the pipe directly
(``host/transports/raw_calls.py``), and gives exactly what the SDK's session gives — the same
result, the same refusal of a bad result, the same error, the same cancel sent to the server,
the same failure when the server dies — while any other call still takes the session."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from hermes_core.host.host import HostServer, MCPHost
from hermes_core.host.transports.raw_calls import RawCalls

pytestmark = [pytest.mark.process]

SERVERS = Path(__file__).parents[1] / "servers"
LINE_SERVER = str(SERVERS / "line_server.py")


def line_server(tmp_path: Path, **kwargs: Any) -> HostServer:
    env = {
        "LINE_SERVER_IDS": str(tmp_path / "ids.txt"),
        "LINE_SERVER_CANCELS": str(tmp_path / "cancels.txt"),
    }
    return HostServer("line", command=sys.executable, args=[LINE_SERVER], env=env, **kwargs)


def ids(path: Path) -> list[object]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def both_ways(host: MCPHost, name: str, arguments: dict[str, Any]) -> tuple[Any, Any]:
    """The call's result on the plain lane, then with the lane off (the SDK's session)."""
    connection = host._connections["line"]
    assert connection.raw_calls is not None
    raw = await host.call_tool(name, arguments)
    lane, connection.raw_calls = connection.raw_calls, None
    try:
        sdk = await host.call_tool(name, arguments)
    finally:
        connection.raw_calls = lane
    return raw, sdk


@pytest.mark.parametrize("tool", ["ok", "fancy", "error", "bad"])
def test_the_lane_gives_what_the_sdks_session_gives(tmp_path: Path, tool: str) -> None:
    async def scenario() -> tuple[Any, Any]:
        async with MCPHost([line_server(tmp_path)]) as host:
            return await both_ways(host, f"mcp_line_{tool}", {"message": "ping"})

    raw, sdk = asyncio.run(scenario())
    assert raw == sdk
    sent = ids(tmp_path / "ids.txt")
    assert isinstance(sent[0], str) and isinstance(sent[1], int)  # the lane's id, the SDK's
    if tool == "ok":
        assert raw["content"] == [{"type": "text", "text": "Echo: ping"}]
    elif tool == "fancy":
        assert "\U000e0041" not in raw["content"][0]["text"]  # sanitised the general way
        assert raw["content"][0]["annotations"] == {"audience": ["user"]}
    else:
        assert "error" in raw and raw.get("isError") is not False


def test_a_line_with_the_calls_id_but_no_answer_is_dropped_and_the_answer_still_comes(
    tmp_path: Path,
) -> None:
    async def scenario() -> Any:
        async with MCPHost([line_server(tmp_path)]) as host:
            return await host.call_tool("mcp_line_twice", {})

    assert asyncio.run(scenario())["content"] == [{"type": "text", "text": "second"}]


def test_a_call_past_its_deadline_is_cancelled_on_the_server(tmp_path: Path) -> None:
    cancels = tmp_path / "cancels.txt"

    async def scenario() -> tuple[Any, Any]:
        async with MCPHost([line_server(tmp_path, timeout=0.5)]) as host:
            late = await host.call_tool("mcp_line_hang", {})
            after = await host.call_tool("mcp_line_ok", {"message": "after"})
            return late, after

    late, after = asyncio.run(scenario())
    assert "timed out after 0.5 s" in late["error"]
    assert after["content"][0]["text"] == "Echo: after"
    sent = ids(tmp_path / "ids.txt")
    assert ids(cancels) == [sent[0]] and isinstance(sent[0], str)


def test_a_call_cancelled_by_its_caller_is_cancelled_on_the_server(tmp_path: Path) -> None:
    cancels = tmp_path / "cancels.txt"

    async def scenario() -> None:
        async with MCPHost([line_server(tmp_path, timeout=60)]) as host:
            call = asyncio.create_task(host.call_tool("mcp_line_hang", {}))
            ids_file = tmp_path / "ids.txt"
            while not ids_file.exists():  # the server has the request
                await asyncio.sleep(0.01)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            # the cancel is on its way: the server notes it before it answers a ping
            await host.call_tool("mcp_line_ok", {"message": "x"})

    asyncio.run(scenario())
    sent = ids(tmp_path / "ids.txt")
    assert ids(cancels) == [sent[0]]


def test_a_server_that_dies_mid_call_fails_the_call_at_once_and_comes_back(
    tmp_path: Path,
) -> None:
    async def scenario() -> tuple[Any, Any, RawCalls | None]:
        async with MCPHost([line_server(tmp_path, timeout=60)]) as host:
            lane = host._connections["line"].raw_calls
            died = await asyncio.wait_for(host.call_tool("mcp_line_die", {}), 30)
            again = await host.call_tool("mcp_line_ok", {"message": "back"})
            return died, again, lane

    died, again, lane = asyncio.run(scenario())
    assert "error" in died and "timed out" not in died["error"]
    assert again["content"][0]["text"] == "Echo: back"
    assert lane is not None and lane.closed  # the old process's lane ended with it


def test_arguments_beyond_json_are_written_as_the_sdks_serialiser_writes_them(
    tmp_path: Path,
) -> None:
    """The lane writes with the SDK's own codec (pydantic-core): a ``str`` subclass and a set
    go as a string and an array, on the lane; what no codec can write (an ``object()``) takes
    the SDK's way and fails there as an error result, never a traceback."""

    class Loud(str):
        pass

    async def scenario() -> tuple[Any, Any]:
        async with MCPHost([line_server(tmp_path)]) as host:
            written = await host.call_tool("mcp_line_ok", {"message": Loud("x"), "n": {1, 2}})
            unwritable = await host.call_tool("mcp_line_ok", {"message": "y", "n": object()})
            return written, unwritable

    written, unwritable = asyncio.run(scenario())
    sent = ids(tmp_path / "ids.txt")
    assert len(sent) == 1 and isinstance(sent[0], str)  # the lane sent the first, once
    assert written["content"] == [{"type": "text", "text": "Echo: x"}]
    assert "error" in unwritable and "content" not in unwritable, unwritable


def test_a_modern_server_is_never_called_on_the_lane() -> None:
    modern = str(SERVERS / "modern_server.py")

    async def scenario() -> tuple[str | None, RawCalls | None]:
        async with MCPHost([HostServer("modern", command=sys.executable, args=[modern])]) as host:
            connection = host._connections["modern"]
            return connection.protocol, connection.raw_calls

    assert asyncio.run(scenario()) == ("2026-07-28", None)


def test_a_notice_sent_before_the_answer_is_handled_before_the_call_returns(
    tmp_path: Path,
) -> None:
    """As the SDK's session orders them: the server's ``tools/list_changed``, written in the
    same piece as the answer, has started its re-list by the time the call returns."""

    async def scenario() -> tuple[Any, bool]:
        async with MCPHost([line_server(tmp_path)]) as host:
            connection = host._connections["line"]
            result = await host.call_tool("mcp_line_notify", {})
            relisting = connection._tools_worker is not None
            return result, relisting

    result, relisting = asyncio.run(scenario())
    assert result["content"] == [{"type": "text", "text": "told"}]
    assert relisting


def test_a_result_of_any_size_comes_back(tmp_path: Path) -> None:
    """A result line larger than any size the lane might have left to the session (12 MB) is
    still its answer: every line is looked at while a plain call waits."""
    size = 12 * 1024 * 1024

    async def scenario() -> Any:
        async with MCPHost([line_server(tmp_path, timeout=120)]) as host:
            return await host.call_tool("mcp_line_big", {"size": size})

    result = asyncio.run(scenario())
    assert len(result["content"][0]["text"]) == size
