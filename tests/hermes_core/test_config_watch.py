"""Editing config.yaml while a host runs: the watcher applies the edit, never breaking a login."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_core.auth import callback
from hermes_core.config.loader import load_config
from hermes_core.host.config_watch import ConfigWatcher, config_loader
from hermes_core.host.host import MCPHost
from hermes_core.host.setup.from_config import host_servers
from servers.oauth_server import OAuthServer
from support.browser import Browser

pytestmark = [pytest.mark.process, pytest.mark.network, pytest.mark.slow]

HOSTILE = str(Path(__file__).parents[1] / "servers" / "hostile_server.py")


def stdio_entry() -> dict[str, Any]:
    return {"command": sys.executable, "args": [HOSTILE]}


def write_config(home: Path, servers: dict[str, Any]) -> None:
    # JSON is YAML; a new file each time, as an editor saving would.
    text = json.dumps({"mcp_servers": servers}, indent=2)
    target = home / "config.yaml"
    temporary = home / "config.yaml.tmp"
    temporary.write_text(text)
    temporary.replace(target)


async def until(condition: Callable[[], bool], what: str) -> None:
    for _ in range(600):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never happened: {what}")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    monkeypatch.delenv("SSH_CLIENT", raising=False)
    monkeypatch.delenv("SSH_TTY", raising=False)
    return tmp_path


def test_an_edit_is_applied_to_the_running_host(home: Path) -> None:
    write_config(home, {"keep": stdio_entry(), "drop": stdio_entry()})

    async def scenario() -> None:
        async with MCPHost(host_servers(load_config())) as host:
            kept = host._connections["keep"]
            watcher = host.watch_config(interval=0.05)
            write_config(home, {"keep": stdio_entry(), "new": {**stdio_entry(), "timeout": 9}})
            await until(lambda: host.registry.get("mcp_new_echo") is not None, "new connected")
            await until(lambda: host.registry.get("mcp_drop_echo") is None, "drop removed")
            assert host._connections["keep"] is kept  # untouched
            assert [s.server for s in host.status()] == ["keep", "new"]
            assert watcher.reloads == 1

    asyncio.run(scenario())


def test_a_bad_edit_changes_nothing_and_says_why(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_config(home, {"keep": stdio_entry()})

    async def scenario() -> None:
        async with MCPHost(host_servers(load_config())) as host:
            load, paths = config_loader()
            watcher = ConfigWatcher(host, load, paths)
            (home / "config.yaml").write_text(
                "mcp_servers:\n  keep:\n    command: python\n    timeout: soon\n"
            )
            assert await watcher.check() is None
            assert watcher.last_error is not None
            assert "config.yaml:4" in watcher.last_error
            assert "mcp_servers.keep.timeout" in watcher.last_error
            assert host.registry.get("mcp_keep_echo") is not None
            assert await watcher.check() is None  # nothing changed since: not read again

    with caplog.at_level(logging.ERROR):
        asyncio.run(scenario())
    assert "the running MCP servers are kept" in caplog.text


def test_the_env_file_is_watched_too(home: Path) -> None:
    write_config(home, {"keep": {**stdio_entry(), "env": {"LEVEL": "${LEVEL}"}}})
    (home / ".env").write_text("LEVEL=1\n")

    async def scenario() -> dict[str, list[str]]:
        async with MCPHost(host_servers(load_config())) as host:
            load, paths = config_loader()
            watcher = ConfigWatcher(host, load, paths)
            (home / ".env").write_text("LEVEL=22\n")
            task = await watcher.check()
            assert task is not None
            return dict(await task)

    assert asyncio.run(scenario())["changed"] == ["keep"]


@pytest.fixture
def oauth_server() -> Iterator[OAuthServer]:
    server = OAuthServer().start()
    yield server
    server.stop()


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Browser:
    browser = Browser(approve=threading.Event())
    monkeypatch.setattr(callback, "open_browser", browser)
    monkeypatch.setattr("hermes_core.auth.settings.is_interactive", lambda: True)
    return browser


def test_config_edits_during_a_browser_login_never_interrupt_it(
    home: Path, oauth_server: OAuthServer, held: Browser
) -> None:
    acme = {"url": oauth_server.url, "auth": "oauth"}
    write_config(home, {"acme": acme})

    async def scenario() -> dict[str, Any]:
        host = MCPHost(host_servers(load_config()))
        starting = asyncio.create_task(host.start())
        try:
            await until(lambda: bool(held.opened), "the login started")
            connection = host._connections["acme"]
            watcher = host.watch_config(interval=0.05)
            # 1. Another server is added: acme's entry is unchanged and left alone.
            write_config(home, {"acme": acme, "other": stdio_entry()})
            await until(lambda: host.registry.get("mcp_other_echo") is not None, "other up")
            assert host._connections["acme"] is connection
            assert connection.status.state == "connecting"
            # 2. acme's own entry changes while the user is still in the browser.
            write_config(home, {"acme": {**acme, "timeout": 42}, "other": stdio_entry()})
            await until(lambda: watcher.reloads == 2, "the second edit applied")
            assert host._connections["acme"] is connection  # still the same login
            held.approve.set()  # type: ignore[union-attr]
            assert (await starting)["acme"] is None
            # The change is applied once the login is over, with the tokens it saved.
            await until(
                lambda: (
                    host._connections["acme"] is not connection
                    and host.registry.get("mcp_acme_whoami") is not None
                ),
                "acme restarted with its new config",
            )
            assert host._connections["acme"].spec.timeout == 42
            return await host.call_tool("mcp_acme_whoami", {})
        finally:
            await host.close()

    result = asyncio.run(scenario())
    assert result.get("isError") is False, result
    assert oauth_server.provider.calls["authorize"] == 1  # one login, never restarted
    assert len(held.opened) == 1


def test_removing_a_server_stops_its_login(
    home: Path, oauth_server: OAuthServer, held: Browser
) -> None:
    write_config(home, {"acme": {"url": oauth_server.url, "auth": "oauth"}})

    async def scenario() -> dict[str, str | None]:
        host = MCPHost(host_servers(load_config()))
        starting = asyncio.create_task(host.start())
        try:
            await until(lambda: bool(held.opened), "the login started")
            load, paths = config_loader()
            watcher = ConfigWatcher(host, load, paths)
            write_config(home, {})
            task = await watcher.check()
            assert task is not None and (await task)["removed"] == ["acme"]
            return await starting
        finally:
            held.approve.set()  # type: ignore[union-attr]
            await host.close()

    result = asyncio.run(scenario())
    assert result["acme"] is not None
    assert oauth_server.provider.calls.get("token", 0) == 0


def test_a_thread_safe_host_follows_the_config_too(home: Path) -> None:
    import time

    from hermes_core.host.sync import SyncMCPHost

    write_config(home, {"old": stdio_entry()})
    with SyncMCPHost(host_servers(load_config())) as host:
        watcher = host.watch_config(interval=0.05)
        write_config(home, {"new": stdio_entry()})
        for _ in range(400):
            if {t.server for t in host.tools()} == {"new"}:
                break
            time.sleep(0.05)
        assert {t.server for t in host.tools()} == {"new"}
        assert watcher.reloads == 1
