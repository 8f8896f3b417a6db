"""The plugin author's test toolkit (issue 45 item 5), used as an author uses it: the fixtures
of the ``hermes`` pytest plugin (``hermes_home``, ``hermes``, ``hermes_factory``) and
``make_call``, against the real CLI and a real MCP server."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_core.plugins import hookimpl
from hermes_core.plugins.interceptors import CallInterceptor, Decision, InterceptedCall
from hermes_core.testing import HermesRunner, make_call

SERVER = Path(__file__).parents[1] / "servers" / "intercept_server.py"


def deny_delete(call: InterceptedCall) -> Decision | None:
    if call.tool.startswith("delete_"):
        return Decision.refuse(f"{call.tool} deletes data")
    return None


class Plugin:
    @hookimpl
    def call_interceptor(self) -> list[CallInterceptor]:
        return [CallInterceptor("deny_delete", before=deny_delete)]


def test_hermes_home_is_empty_and_is_the_environments(hermes_home: Path) -> None:
    assert list(hermes_home.iterdir()) == []
    assert os.environ["HERMES_HOME"] == str(hermes_home)


def test_make_call_is_the_call_an_interceptor_gets() -> None:
    call = make_call("delete_note", {"name": "x"}, server="notes-app")
    assert (call.name, call.server, call.tool) == (
        "mcp_notes_app_delete_note",
        "notes-app",
        "delete_note",
    )
    assert (call.trust, call.transport, call.command, call.url) == (
        "full",
        "stdio",
        "demo-mcp",
        None,
    )
    decided = deny_delete(call)
    assert decided is not None and decided.reason == "delete_note deletes data"
    assert deny_delete(make_call("read_note")) is None
    remote = make_call(url="https://mcp.example.com/mcp", trust="untrusted")
    assert (remote.transport, remote.command, remote.trust) == (
        "streamable_http",
        None,
        "untrusted",
    )


@pytest.mark.process
@pytest.mark.cli
def test_the_hermes_runner_in_a_child_and_in_process(
    hermes: HermesRunner, hermes_home: Path
) -> None:
    (hermes_home / "config.yaml").write_text(
        f"mcp_servers:\n  notes:\n    command: {sys.executable}\n    args: [{SERVER}]\n"
    )
    child, inside = hermes("mcp", "list"), hermes.in_process("mcp", "list")
    assert child.exit_code == inside.exit_code == 0, child.stderr + inside.stderr
    assert "notes" in child.stdout and "notes" in inside.stdout
    (hermes_home / "config.yaml").write_text(
        "mcp_servers:\n  notes:\n    command: x\n    enabeld: false\n"
    )
    for result in (hermes("mcp", "list"), hermes.in_process("mcp", "list")):
        assert result.exit_code == 2
        assert "config.yaml:4: mcp_servers.notes.enabeld" in result.stderr
    called = hermes("mcp", "call", "nothing_like_it")
    assert called.exit_code != 0 and called.stderr


@pytest.mark.process
def test_hermes_factory_runs_the_plugin_under_test_in_a_host(
    hermes_factory: Callable[..., Any], hermes_home: Path
) -> None:
    (hermes_home / "config.yaml").write_text(
        "interceptors: [deny_delete]\n"
        f"mcp_servers:\n  notes:\n    command: {sys.executable}\n    args: [{SERVER}]\n"
    )
    factory = hermes_factory(Plugin())
    factory.load_config()

    async def calls() -> tuple[Any, Any]:
        async with factory.host() as host:
            return (
                await host.call_tool("mcp_notes_read_note", {"name": "a"}),
                await host.call_tool("mcp_notes_delete_note", {"name": "a"}),
            )

    read, deleted = asyncio.run(calls())
    assert "error" not in read
    assert "refused by the interceptor 'deny_delete': delete_note deletes data" in deleted["error"]
