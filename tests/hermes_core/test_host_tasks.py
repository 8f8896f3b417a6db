"""The host owns its background tasks: whole lifecycles leave nothing running, nothing unretrieved.

Each scenario runs on a fresh event loop in asyncio debug mode, with every warning recorded,
the loop's exception handler and ``sys.unraisablehook`` captured, and a ``gc.collect()`` after
the loop closed: "Task was destroyed but it is pending", "Task exception was never retrieved",
"coroutine ... was never awaited" and unclosed resources all show up there.  Real servers:
the hostile stdio server (list_changed storms, a crash mid-call) and an HTTP URL nobody
listens on (the reconnector backs off in the background).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import socket
import sys
import warnings
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from hermes_core.host.host import HostServer, MCPHost
from hermes_core.host.supervisor import TaskSupervisor
from hermes_core.host.sync import SyncMCPHost

pytestmark = [pytest.mark.process, pytest.mark.network, pytest.mark.slow]

HOSTILE = str(Path(__file__).parents[1] / "servers" / "hostile_server.py")


@dataclass
class Leftovers:
    """What a run left behind; every list must be empty."""

    tasks: list[str] = field(default_factory=list)
    """Tasks still pending right after the host's ``close()`` returned."""
    loop_reports: list[str] = field(default_factory=list)
    unraisable: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def assert_clean(self) -> None:
        assert self == Leftovers(), self


def run_checked(scenario: Callable[[], Coroutine[Any, Any, list[str]]]) -> Leftovers:
    """Run *scenario* (it returns the tasks it saw pending after closing its host) as
    ``asyncio.run`` would, but without cancelling what it left, and collect what leaked."""
    found = Leftovers()
    loop = asyncio.new_event_loop()
    loop.set_debug(True)
    loop.slow_callback_duration = 3600.0  # slowness is not the question (busy CI)

    def report(_loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        found.loop_reports.append(str(context.get("message")))

    loop.set_exception_handler(report)
    previous = sys.unraisablehook
    sys.unraisablehook = lambda hook: found.unraisable.append(f"{hook.exc_value!r}")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                found.tasks = loop.run_until_complete(scenario())
                loop.run_until_complete(loop.shutdown_asyncgens())
                loop.run_until_complete(loop.shutdown_default_executor())
            finally:
                loop.close()
                del loop
                gc.collect()
        found.warnings = [f"{w.category.__name__}: {w.message}" for w in caught]
    finally:
        sys.unraisablehook = previous
    return found


def pending_tasks() -> list[str]:
    current = asyncio.current_task()
    left = [t for t in asyncio.all_tasks() if t is not current and not t.done()]
    return sorted(f"{t.get_name()} ({getattr(t.get_coro(), '__qualname__', '?')})" for t in left)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def evil(**kwargs: Any) -> HostServer:
    return HostServer(
        "evil",
        command=sys.executable,
        args=[HOSTILE],
        env={"HOSTILE_FLOOD": "1"},
        idle_timeout_seconds=600.0,  # the recycler runs
        **kwargs,
    )


def nobody(port: int) -> HostServer:
    return HostServer(
        "nobody", url=f"http://127.0.0.1:{port}/mcp", transport="streamable_http", connect_timeout=5
    )


async def until(condition: Callable[[], bool], what: str) -> None:
    for _ in range(1200):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never happened: {what}")


def test_a_whole_host_lifecycle_leaves_no_task_behind(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("mcp_servers: {}\n")
    port = free_port()

    async def scenario() -> list[str]:
        servers = [evil(), nobody(port)]
        host = MCPHost(servers)
        started = await host.start()
        assert started["evil"] is None and started["nobody"] is not None
        nobody_connection = host._connections["nobody"]
        await until(lambda: nobody_connection.reconnecting, "the HTTP server is retried")

        # A list_changed storm, a crash in the middle of a call, the restart on the next call.
        assert (await host.call_tool("mcp_evil_storm"))["content"][0]["text"] == "stormed"
        crashed = await host.call_tool("mcp_evil_crash")
        assert "went away during the call to 'crash'" in crashed["error"]
        again = await host.call_tool("mcp_evil_echo", {"text": "back"})
        assert again["content"][0]["text"] == "back"

        # A reload through the config watcher: the changed server is restarted.
        current = [evil(timeout=120.0), nobody(port)]
        watcher = host.watch_config(config, load=lambda: current, interval=0.05)
        config.write_text("mcp_servers: {} # edited\n")
        await until(lambda: watcher.reloads == 1, "the edit is applied")
        assert host._servers["evil"].timeout == 120.0

        # Another storm, another edit, and close while the re-lists and the reload (it is
        # starting the changed server) are still going on.
        assert (await host.call_tool("mcp_evil_storm"))["content"][0]["text"] == "stormed"
        current = [evil(timeout=130.0), nobody(port)]
        config.write_text("mcp_servers: {} # edited again\n")
        await until(lambda: host._servers["evil"].timeout == 130.0, "the reload begins")
        await host.close()
        return pending_tasks()

    run_checked(scenario).assert_clean()


def test_closing_while_servers_start_leaves_no_task_behind() -> None:
    port = free_port()

    async def scenario() -> list[str]:
        host = MCPHost([evil(), nobody(port), replace(evil(), name="evil2")])
        starting = asyncio.ensure_future(host.start())
        await until(lambda: bool(host._connections), "a server starts")
        await host.close()
        starting.cancel()
        await asyncio.gather(starting, return_exceptions=True)
        return pending_tasks()

    run_checked(scenario).assert_clean()


def test_the_sync_facade_closes_its_loop_with_nothing_pending() -> None:
    found = Leftovers()
    previous = sys.unraisablehook
    sys.unraisablehook = lambda hook: found.unraisable.append(f"{hook.exc_value!r}")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sync = SyncMCPHost([evil()])
            sync._loop.set_debug(True)
            sync._loop.slow_callback_duration = 3600.0
            sync._loop.set_exception_handler(
                lambda _loop, context: found.loop_reports.append(str(context.get("message")))
            )
            with sync:
                assert sync.call_tool("mcp_evil_storm")["content"][0]["text"] == "stormed"
            del sync
            gc.collect()
        found.warnings = [f"{w.category.__name__}: {w.message}" for w in caught]
    finally:
        sys.unraisablehook = previous
    found.assert_clean()


def test_a_failing_background_task_is_logged_by_name(caplog: pytest.LogCaptureFixture) -> None:
    async def boom() -> None:
        raise ValueError("the listing broke")

    async def never_started() -> None:
        raise AssertionError("a closed supervisor must not start anything")

    async def scenario() -> list[str]:
        tasks = TaskSupervisor("MCP host")
        connection = tasks.child("MCP server 'acme'")
        failing = connection.spawn(boom(), name="re-list")
        sleeper = connection.spawn(asyncio.sleep(3600), name="reconnect")
        assert failing is not None and sleeper is not None
        await asyncio.wait([failing])
        assert tasks.pending() == ["MCP server 'acme': reconnect"]
        await connection.close()  # a child's close ends its tasks only
        assert sleeper.cancelled() and connection.spawn(never_started(), name="late") is None
        other = tasks.spawn(asyncio.sleep(3600), name="recycler")
        await tasks.close()
        assert other is not None and other.cancelled()
        assert tasks.spawn(never_started(), name="late") is None
        return pending_tasks()

    with caplog.at_level(logging.WARNING, logger="hermes_core.host.supervisor"):
        run_checked(scenario).assert_clean()
    assert [r.getMessage() for r in caplog.records] == [
        "MCP server 'acme': background task \"MCP server 'acme': re-list\" failed: "
        "ValueError: the listing broke"
    ]
