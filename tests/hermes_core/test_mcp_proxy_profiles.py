"""``hermes mcp proxy`` profiles keep their clients to their own servers: a profile's client
hears no log message and no tool list change of a server outside it, and a config edit never
starts a server outside the profile.  The proxy is a real subprocess, the clients the raw
``mcp`` SDK client (stdio and Streamable HTTP), the servers real ones
(tests/servers/proxy_upstream.py twice, tests/servers/modern_server.py); the log filter is
also checked on its own, with real log records (a Streamable HTTP client of this SDK does not
take log messages outside a request)."""

from __future__ import annotations

import asyncio
import json
import logging
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hermes_core.serve.proxy.logs import LogForwarder
from hermes_core.serve.proxy.profiles import Profile
from support.proxy import MODERN, UPSTREAM, http_session, proxy_session, start_http, write_config

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

READERS_TOKEN = "readers-token-0123456789"
READERS = f"""
proxy:
  profiles:
    readers:
      servers: [up]
      token: {READERS_TOKEN}
"""


def _servers(**more: dict[str, Any]) -> dict[str, dict[str, Any]]:
    upstream = {"command": sys.executable, "args": [str(UPSTREAM)]}
    return {
        "up": dict(upstream),
        "up2": dict(upstream),
        "modern": {"command": sys.executable, "args": [str(MODERN)]},
        **more,
    }


class Heard:
    """What one downstream client heard: tool list changes and log messages."""

    def __init__(self) -> None:
        self.changes = 0
        self.changed = asyncio.Event()
        self.logs: list[Any] = []
        self.logged = asyncio.Event()

    async def on_message(self, message: Any) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/tools/list_changed":
            self.changes += 1
            self.changed.set()

    async def on_log(self, params: Any) -> None:
        self.logs.append(params)
        self.logged.set()


async def _until(event: asyncio.Event) -> None:
    await asyncio.wait_for(event.wait(), 60)
    event.clear()


@pytest.mark.network
def test_http_a_profile_hears_only_its_own_servers_list_changes(tmp_path: Path) -> None:
    from servers.net import free_port, stop, wait_for_port

    upstream = {"command": sys.executable, "args": [str(UPSTREAM)]}
    config = write_config(
        tmp_path,
        servers={"up": upstream, "modern": {"command": sys.executable, "args": [str(MODERN)]}},
        extra=READERS.replace("servers: [up]", "servers: [modern]"),
    )
    port = free_port()
    proc = start_http(tmp_path, port)
    try:
        wait_for_port(port, 60)
        main_token = (tmp_path / "proxy-token").read_text().strip()
        url = f"http://127.0.0.1:{port}/mcp"
        everything, readers = Heard(), Heard()

        async def scenario() -> None:
            async with (
                http_session(url, main_token, message_handler=everything.on_message) as main,
                http_session(url, READERS_TOKEN, message_handler=readers.on_message) as reader,
            ):
                names = {t.name for t in (await reader.list_tools()).tools}
                assert names and all(n.startswith("mcp_modern_") for n in names)
                # a server outside the profile comes (a config edit): only the unnamed
                # profile, which keeps every server, hears of it
                body = config.read_text().replace(
                    "\nproxy:",
                    f"  extra:\n    command: {json.dumps(sys.executable)}\n"
                    f"    args: [{json.dumps(str(UPSTREAM))}]\n\nproxy:",
                )
                config.write_text(body)
                while not any(t.name == "mcp_extra_peek" for t in (await main.list_tools()).tools):
                    await _until(everything.changed)
                # its own server's list changes: the first change the profile's client hears
                # (one of another server, had it been sent, would have come first)
                await main.call_tool("mcp_modern_grow", {})
                await _until(readers.changed)
                while "mcp_modern_grown" not in {t.name for t in (await reader.list_tools()).tools}:
                    await _until(readers.changed)
                assert readers.changes == 1

        asyncio.run(scenario())
    finally:
        stop(proc)


def test_a_config_edit_never_starts_a_server_outside_the_profile(tmp_path: Path) -> None:
    marker = tmp_path / "outsider-started"
    outsider = f"touch {shlex.quote(str(marker))}; exec {shlex.quote(sys.executable)} " + (
        shlex.quote(str(UPSTREAM))
    )
    config = write_config(tmp_path, servers=_servers(), extra=READERS)
    errlog = tmp_path / "proxy.err"
    heard = Heard()

    async def scenario() -> None:
        async with proxy_session(
            tmp_path, "--profile", "readers", "-v", errlog=errlog, message_handler=heard.on_message
        ) as session:
            names = {t.name for t in (await session.list_tools()).tools}
            assert "mcp_up_shout" in names
            # one edit: a new server outside the profile, and a change of the profile's own
            body = config.read_text().replace(
                "mcp_servers:\n  up:\n", 'mcp_servers:\n  up:\n    tools: {exclude: ["shout"]}\n'
            )
            body = body.replace(
                "\nproxy:",
                f"  outsider:\n    command: sh\n    args: {json.dumps(['-c', outsider])}\n\nproxy:",
            )
            config.write_text(body)
            await _until(heard.changed)
            names = {t.name for t in (await session.list_tools()).tools}
            assert "mcp_up_shout" not in names
            assert not any(n.startswith("mcp_outsider_") for n in names)
            # the reload is over (every server it starts is started) once it says so
            deadline = time.monotonic() + 60
            while "config reloaded" not in errlog.read_text():
                assert time.monotonic() < deadline, errlog.read_text()
                await asyncio.sleep(0.05)  # another process's log: nothing here to wait on

    asyncio.run(scenario())
    assert not marker.exists()  # the outsider never ran
    assert "outsider" not in errlog.read_text()


def test_a_profile_s_clients_get_the_log_messages_of_its_servers_only() -> None:
    profile = Profile("readers", servers=("up",))

    class Session:
        def __init__(self) -> None:
            self.got: list[tuple[str, str, str]] = []
            self.arrived = asyncio.Event()

        async def send_log_message(self, level: str, text: str, logger: str) -> None:
            self.got.append((level, text, logger))
            self.arrived.set()

    async def scenario() -> list[tuple[str, str, str]]:
        session = Session()
        forwarder = LogForwarder(
            asyncio.get_running_loop(), lambda: [session], profile.keeps_server
        )
        root = logging.getLogger("hermes.mcp")
        root.addHandler(forwarder)
        level = root.level
        root.setLevel(logging.INFO)
        try:
            logging.getLogger("hermes.mcp.up2").info("from up2")
            logging.getLogger("hermes.mcp.up.x").info("from a server named up.x")
            logging.getLogger("hermes.mcp.up").warning("from up")
            await asyncio.wait_for(session.arrived.wait(), 60)
        finally:
            root.removeHandler(forwarder)
            root.setLevel(level)
            forwarder.close()
        return session.got

    assert asyncio.run(scenario()) == [("warning", "from up", "mcp_up")]
