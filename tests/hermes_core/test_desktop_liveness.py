"""A desktop app's server followed live in an embedding host (issue 47 items 1-3): the app's
runtime file says where it serves; the host connects while it runs, withdraws its tools at
once when it quits, refuses calls with "<App> is not running; start <App>", and connects
again when it comes back on a new port with a new token."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_core.host.host import MCPHost
from hermes_core.host.server_spec import HostServer
from hermes_platform import declaration
from support.desktop import DesktopApp, app_block
from support.proxy import UPSTREAM

pytestmark = [pytest.mark.process, pytest.mark.network, pytest.mark.slow]


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "app" / "mcp.json"
    path.parent.mkdir()
    decl = declaration.parse_declaration("desk", app_block(path), where="desk/plugin.yaml")
    declaration.register("desk", decl)
    try:
        yield path
    finally:
        declaration.unregister("desk")


async def until(predicate: object, seconds: float) -> float:
    """Seconds until *predicate()* holds (the loop runs meanwhile); fails after *seconds*."""
    started = time.monotonic()
    while not predicate():  # type: ignore[operator]
        if time.monotonic() - started > seconds:
            raise AssertionError(f"not after {seconds:g} s")
        await asyncio.sleep(0.02)
    return time.monotonic() - started


def test_the_host_follows_the_app_as_it_starts_quits_and_moves(
    runtime: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    app = DesktopApp(runtime)
    tokens: list[str] = []

    async def scenario() -> None:
        server = HostServer("desk", transport="streamable_http", display_name="Desk App")
        async with MCPHost([server]) as host:
            # Not running: not started, nothing offered, calls refused with the sentence.
            (row,) = host.status()
            assert row.connection == "not running"
            assert row.gate == "Desk App is not running; start Desk App"
            refused = await host.call_tool("mcp_desk_hello", {})
            assert refused["error"] == "Desk App is not running; start Desk App"
            assert refused["state"] == "not_running"

            def names() -> set[str]:
                return {t.name for t in host.tools()}

            first = await asyncio.to_thread(app.start)
            tokens.append(first["token"])
            await until(lambda: "mcp_desk_hello" in names(), 30)
            result = await host.call_tool("mcp_desk_port", {})
            assert result["content"][0]["text"] == first["http"].rsplit(":", 1)[1]
            (row,) = host.status()
            assert row.connection == "connected"

            # Quit: withdrawn within 2 s, calls refused with the sentence (not a connect error).
            await asyncio.to_thread(app.quit)
            took = await until(lambda: not names(), 5)
            assert took < 2.0, took
            refused = await host.call_tool("mcp_desk_hello", {})
            assert refused["error"] == "Desk App is not running; start Desk App", refused
            (row,) = host.status()
            assert row.connection == "not running"

            # Back on a new port with a new token: connected again within 2 s (one poll of
            # the runtime file, 1 s, then one connect; measured 0.2-1.2 s on a 2-core machine
            # under a load of 8).
            second = await asyncio.to_thread(app.start)
            tokens.append(second["token"])
            assert second["http"] != first["http"] and second["token"] != first["token"]
            took = await until(lambda: "mcp_desk_port" in names(), 30)
            assert took < 2.0, took
            result = await host.call_tool("mcp_desk_port", {})
            assert result["content"][0]["text"] == second["http"].rsplit(":", 1)[1]
            shown = repr(host.status()) + repr(host._servers) + repr(host._connections)
            assert not any(token in shown for token in tokens)

    try:
        asyncio.run(scenario())
    finally:
        if app.process is not None:
            app.quit()
    logged = caplog.text
    assert tokens and not any(token in logged for token in tokens)


def test_a_stdio_bridge_that_needs_the_app_runs_only_while_the_app_runs(runtime: Path) -> None:
    """A ``command`` server with liveness: not started while the app is not running, started
    when its runtime file says it runs, stopped (tools withdrawn) when the file goes."""
    alive = os.getppid()  # a live process that is not this one

    async def scenario() -> None:
        server = HostServer("desk", command=sys.executable, args=[str(UPSTREAM)])
        async with MCPHost([server]) as host:
            (row,) = host.status()
            assert row.connection == "not running" and not host.tools()
            runtime.write_text(json.dumps({"pid": alive, "http": "http://127.0.0.1:9"}))
            await until(lambda: "mcp_desk_note" in {t.name for t in host.tools()}, 30)
            noted = await host.call_tool("mcp_desk_note", {"text": "bridged"})
            assert noted["content"][0]["text"] == "noted bridged"
            runtime.unlink()
            took = await until(lambda: not host.tools(), 5)
            assert took < 2.0, took
            refused = await host.call_tool("mcp_desk_note", {"text": "x"})
            assert refused["error"] == "desk is not running; start desk"

    asyncio.run(scenario())
