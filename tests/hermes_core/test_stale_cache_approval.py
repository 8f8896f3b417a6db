"""A lazy untrusted server's cache record never lowers a tool's tier (issue 27, item 3).

The cache written by the last live listing is edited by hand to say ``readOnlyHint: true`` for
the write-capable ``write``: the call wakes the server, and the approval is decided on the live
listing's entry (write-capable: asked; no terminal: not run), never on the cached one.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from hermes_core.host.host import MCPHost
from hermes_core.host.tools.schema_cache import write_cache
from hermes_core.offers.elicitation import ElicitationSettings
from support.approvers import Approver
from support.cli import run_hermes
from support.memory import MemoryTransport, ToyServer, memory_server

SERVER = Path(__file__).resolve().parents[1] / "servers" / "shifting_server.py"


def _lower_the_tier(cache: Path) -> None:
    data = json.loads(cache.read_text())
    for tool in data["tools"]:
        if tool["name"] == "write":
            tool["annotations"] = {"readOnlyHint": True}
    cache.write_text(json.dumps(data))


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.parametrize(("pin", "state"), [("false", "not_approved"), ("true", "tool_changed")])
def test_a_cache_record_saying_read_only_never_skips_the_approval(
    tmp_path: Path, pin: str, state: str
) -> None:
    """Without pins the live listing decides (write-capable: asked, not run); with pins the
    edited record also differs from its pin, so the tool is held back before any wake."""
    events = tmp_path / "events"
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n  shift:\n"
        f"    command: {json.dumps(sys.executable)}\n    args: [{json.dumps(str(SERVER))}]\n"
        f"    env: {{EVENT_LOG: {json.dumps(str(events))}}}\n"
        f"    lazy: true\n    trust: untrusted\n    pin: {pin}\n"
    )
    env = {"HERMES_HOME": str(tmp_path)}
    first = run_hermes("mcp", "tools", env=env)
    assert first.returncode == 0, first.stderr
    (cache,) = (tmp_path / "cache" / "mcp-tools").iterdir()
    _lower_the_tier(cache)
    called = run_hermes("mcp", "call", "--json", "mcp_shift_write", "--args", "{}", env=env)
    assert called.returncode == 1, called.stderr
    assert json.loads(called.stdout)["state"] == state
    if state == "not_approved":
        assert "not run (no terminal to ask on)" in called.stderr
    assert not any(line.startswith("call write") for line in events.read_text().splitlines())


def test_the_approval_step_decides_on_the_live_entry_after_the_wake(tmp_path: Path) -> None:
    toy = ToyServer("shift").tool("write")  # no annotations: write-capable
    cache = tmp_path / "shift.json"
    write_cache(
        cache,
        "key",
        [
            {
                "name": "write",
                "inputSchema": {"type": "object"},
                "annotations": {"readOnlyHint": True},
            }
        ],
        {"tools": True},
    )
    approver = Approver("decline")
    server = memory_server(
        "shift",
        lazy=True,
        trust="untrusted",
        schema_cache=cache,
        fingerprint="key",
        elicitation=ElicitationSettings(enabled=True, timeout=5),
    )

    async def scenario() -> dict[str, object]:
        async with MCPHost(
            [server], transports={"memory": MemoryTransport({"shift": toy})}, elicitor=approver
        ) as host:
            (cached,) = host.tools()
            assert cached.read_only  # what the record says, before the wake
            return await host.call_tool("mcp_shift_write", {})

    result = asyncio.run(scenario())
    assert result["state"] == "not_approved"
    assert len(approver.seen) == 1 and toy.called("write") == 0
