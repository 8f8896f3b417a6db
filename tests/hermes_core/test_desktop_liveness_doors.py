"""A desktop app's server through the doors a user runs (issue 47 items 1-3): a plugin declares
the app with ``liveness``, config.yaml says only ``desk: {}``; ``hermes mcp proxy`` follows the
app (its raw SDK client hears ``tools/list_changed`` as it starts and quits) and ``hermes mcp
status`` / ``get`` say "not running"; ``hermes mcp doctor`` says how to fix it, and connects
while the app runs; the app's token is in no output."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from support.cli import run_hermes
from support.desktop import DesktopApp, plugin_home
from support.dists import site_env
from support.proxy import proxy_session, text_of

pytestmark = [pytest.mark.process, pytest.mark.network, pytest.mark.cli, pytest.mark.slow]


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(home, site, runtime file): the plugin installed, config.yaml naming ``desk: {}``."""
    return plugin_home(tmp_path)


def hermes(home: Path, site: Path, *args: str) -> Any:
    return run_hermes(*args, env=site_env(site, HERMES_HOME=str(home)))


def test_status_and_get_say_not_running(setup: tuple[Path, Path, Path]) -> None:
    home, site, runtime = setup
    status = hermes(home, site, "mcp", "status", "--json")
    assert status.returncode == 1, status.stderr  # not offered, as a missing app is
    (row,) = json.loads(status.stdout)
    assert row["connection"] == "not running"
    assert row["gate"] == "Desk App is not running; start Desk App"
    shown = hermes(home, site, "mcp", "status")
    assert "not running" in shown.stdout, shown.stdout + shown.stderr
    assert "desk: not running (no runtime file" in shown.stderr, shown.stderr  # never "connected"
    got = hermes(home, site, "mcp", "get", "desk")
    assert "not running" in got.stdout, got.stdout
    listed = hermes(home, site, "mcp", "list")
    assert listed.returncode == 0, listed.stderr
    assert "desk  [streamable_http]  not running (no runtime file" in listed.stdout, listed.stdout
    apps = hermes(home, site, "apps", "check", "--explain")
    assert "running:     not running (no runtime file (the app is not running))" in apps.stdout
    assert "Desk App is not running; start Desk App" in apps.stdout
    assert f"runtime file: {runtime}" in apps.stdout, apps.stdout


def test_the_proxy_follows_the_app(setup: tuple[Path, Path, Path]) -> None:
    home, site, runtime = setup
    app = DesktopApp(runtime)
    errlog = home / "proxy.err"
    tokens: list[str] = []
    changes: asyncio.Queue[float] = asyncio.Queue()

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/tools/list_changed":
            changes.put_nowait(time.monotonic())

    async def listed(session: Any) -> set[str]:
        return {t.name for t in (await session.list_tools()).tools}

    async def until_listed(session: Any, want: bool, seconds: float) -> float:
        """Seconds until ``mcp_desk_hello`` is (*want*) listed, each list after a change."""
        started = time.monotonic()
        while ("mcp_desk_hello" in await listed(session)) != want:
            await asyncio.wait_for(changes.get(), seconds)
        return time.monotonic() - started

    async def scenario() -> None:
        async with proxy_session(
            home, errlog=errlog, env=site_env(site), message_handler=on_message
        ) as session:
            assert "mcp_desk_hello" not in await listed(session)
            refused = await session.call_tool("mcp_desk_hello", {})
            assert refused.is_error and "Desk App is not running; start Desk App" in text_of(
                refused
            )
            tokens.append((await asyncio.to_thread(app.start))["token"])
            await until_listed(session, True, 30)
            hello = await session.call_tool("mcp_desk_hello", {"name": "proxy"})
            assert text_of(hello) == "hello proxy from the desktop app"
            await asyncio.to_thread(app.quit)
            assert await until_listed(session, False, 5) < 2.0
            refused = await session.call_tool("mcp_desk_hello", {})
            assert "Desk App is not running; start Desk App" in text_of(refused)
            tokens.append((await asyncio.to_thread(app.start))["token"])
            assert await until_listed(session, True, 30) < 2.0  # one poll, one connect
            hello = await session.call_tool("mcp_desk_hello", {})
            assert text_of(hello) == "hello world from the desktop app"

    try:
        asyncio.run(scenario())
    finally:
        if app.process is not None:
            app.quit()
    logged = errlog.read_text()
    assert len(tokens) == 2 and not any(token in logged for token in tokens)


def test_the_warm_host_follows_the_app(setup: tuple[Path, Path, Path]) -> None:
    home, site, runtime = setup
    app = DesktopApp(runtime)
    tokens: list[str] = []

    def tools() -> str:
        shown = hermes(home, site, "mcp", "tools", "desk")
        assert "using the warm host" in shown.stderr, shown.stderr
        return str(shown.stdout)

    def until(listed: bool) -> None:
        deadline = time.monotonic() + 60
        while ("mcp_desk_hello" in tools()) != listed:
            assert time.monotonic() < deadline, f"mcp_desk_hello listed: not {listed} after 60 s"

    up = hermes(home, site, "mcp", "up")
    assert up.returncode == 0, up.stderr
    try:
        refused = hermes(home, site, "mcp", "call", "mcp_desk_hello")
        assert "Desk App is not running; start Desk App" in refused.stdout + refused.stderr
        tokens.append(app.start()["token"])
        until(True)
        called = hermes(home, site, "mcp", "call", "--json", "mcp_desk_hello")
        assert called.returncode == 0, called.stderr
        assert json.loads(called.stdout)["content"][0]["text"] == "hello world from the desktop app"
        app.quit()
        until(False)
        refused = hermes(home, site, "mcp", "call", "mcp_desk_hello")
        assert "Desk App is not running; start Desk App" in refused.stdout + refused.stderr
        status = hermes(home, site, "mcp", "status", "--json")
        assert json.loads(status.stdout)[0]["connection"] == "not running"
    finally:
        if app.process is not None:
            app.quit()
        hermes(home, site, "mcp", "down")
    log = (home / "logs" / "warm-host.log").read_text()
    assert tokens and tokens[0] not in log and tokens[0] not in refused.stdout + status.stdout


def test_doctor_says_the_app_is_not_running_and_connects_while_it_runs(
    setup: tuple[Path, Path, Path],
) -> None:
    home, site, runtime = setup
    app = DesktopApp(runtime)
    config = (home / "config.yaml").read_text()
    quiet = hermes(home, site, "mcp", "doctor", "desk")
    assert quiet.returncode == 1, quiet.stdout + quiet.stderr
    assert "desk (streamable_http, not checked): 1 problem(s)" in quiet.stdout, quiet.stdout
    assert "[PROBLEM] app running: Desk App is not running: no runtime file" in quiet.stdout
    assert "fix: start Desk App, then run doctor again" in quiet.stdout
    token = app.start()["token"]
    try:
        well = hermes(home, site, "mcp", "doctor", "--json", "desk")
        assert well.returncode == 0, well.stdout + well.stderr
        (row,) = json.loads(well.stdout)["servers"]
        assert row["ok"] and row["connection"] == "connected" and row["tools"] == 2, row
        found = {f["check"]: f for f in row["findings"]}
        assert found["app running"]["text"] == "Desk App: it runs"
        shown = hermes(home, site, "mcp", "doctor", "desk")
        assert shown.returncode == 0 and "[ok] tools: 2 tool(s) listed" in shown.stdout
    finally:
        app.quit()
    assert token not in well.stdout + well.stderr + shown.stdout + shown.stderr
    assert (home / "config.yaml").read_text() == config  # doctor changes nothing
