"""The MCP host against real stdio servers written with the mcp SDK (ours, hostile on purpose)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from hermes_core.host.host import HostServer, MCPHost
from hermes_core.host.sync import SyncMCPHost
from hermes_platform import declaration
from hermes_platform.testing import FakeHost
from support.procs import live_children

pytestmark = [pytest.mark.process, pytest.mark.slow]

HOSTILE = str(Path(__file__).parents[1] / "servers" / "hostile_server.py")
SCOTLAND = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"


def hostile(name: str = "hostile", **kwargs: object) -> HostServer:
    return HostServer(name, command=sys.executable, args=[HOSTILE], **kwargs)  # type: ignore[arg-type]


def run(coro: object) -> object:
    return asyncio.run(coro)  # type: ignore[arg-type]


def test_tools_are_named_filtered_and_results_sanitised() -> None:
    async def scenario() -> None:
        async with MCPHost([hostile(exclude=("h*",))]) as host:
            names = [t.name for t in host.tools()]
            assert names == [
                "mcp_hostile_crash",
                "mcp_hostile_echo",
                "mcp_hostile_grow",
                "mcp_hostile_tagged",
            ]
            assert {t.toolset for t in host.tools()} == {"mcp-hostile"}
            tagged = host.registry.get("mcp_hostile_tagged")
            assert tagged is not None and tagged.description == "Tagged tool"
            result = await host.call_tool("mcp_hostile_tagged")
            assert result["content"][0]["text"] == f"safe text {SCOTLAND} end"
            assert result["_meta"] == {"vendor.example/trace": "abc"}
            assert result["isError"] is False

    run(scenario())


def test_one_broken_server_never_blocks_the_others() -> None:
    async def scenario() -> None:
        servers = [
            hostile("good"),
            HostServer("missing", command="hermes-no-such-command"),
            HostServer(
                "crashes",
                command=sys.executable,
                args=["-c", "import sys; print('fatal: bad token', file=sys.stderr); sys.exit(3)"],
            ),
            HostServer(
                "hangs",
                command=sys.executable,
                args=["-c", "import time; time.sleep(60)"],
                connect_timeout=1.5,
            ),
        ]
        async with MCPHost(servers) as host:
            errors = {s.server: s.last_error for s in host.status()}
            assert errors["good"] is None
            assert errors["missing"] == (
                "command not found: 'hermes-no-such-command' "
                "(not on PATH, or the file does not exist)"
            )
            assert errors["crashes"] is not None
            assert errors["crashes"].startswith("the server exited with code 3 during startup")
            assert errors["crashes"].endswith("fatal: bad token")
            assert errors["hangs"] == "no answer to initialize within 1.5 s"
            assert [t.server for t in host.tools()] == ["good"] * 6
            assert (await host.call_tool("mcp_good_echo", {"text": "hi"}))["content"][0][
                "text"
            ] == "hi"

    run(scenario())


def test_timeouts_crashes_and_respawn() -> None:
    async def scenario() -> None:
        async with MCPHost([hostile(timeout=1.0)]) as host:
            result = await host.call_tool("mcp_hostile_hang")
            assert result["error"] == (
                "MCP server 'hostile': the call to 'hang' timed out after 1 s (configured timeout)"
            )
            crashed = await host.call_tool("mcp_hostile_crash")
            assert "went away during the call to 'crash'" in crashed["error"]
            assert "not retried" in crashed["error"]
            again = await host.call_tool("mcp_hostile_echo", {"text": "respawned"})
            assert again["content"][0]["text"] == "respawned"

    run(scenario())


def test_list_changed_adds_tools() -> None:
    async def scenario() -> None:
        async with MCPHost([hostile()]) as host:
            assert host.registry.get("mcp_hostile_late_tool") is None
            await host.call_tool("mcp_hostile_grow")
            for _ in range(50):
                if host.registry.get("mcp_hostile_late_tool"):
                    break
                await asyncio.sleep(0.05)
            assert host.registry.get("mcp_hostile_late_tool") is not None

    run(scenario())


def test_gate_follows_the_declaration(hermes_fake_host: Callable[..., FakeHost]) -> None:
    async def scenario() -> None:
        async with MCPHost([hostile("vendor")]) as host:
            assert host.gate.check("vendor") is True
            decl = declaration.parse_declaration(
                "vendor",
                raw_app={"linux": {"presence": "executable", "location": "/opt/vendor/app"}},
                raw_requires={"app": True},
                where="t",
            )
            fake = hermes_fake_host("linux")
            declaration.register("vendor", decl)
            assert host.gate.check("vendor") is False
            assert host.tools() == []
            blocked = await host.call_tool("mcp_vendor_echo", {"text": "x"})
            assert blocked == {
                "error": "vendor is not installed. Install vendor, then try again.",
                "server": "vendor",
                "state": "missing_app",
                "app": {"name": "vendor"},
                "user_action": "Install vendor, then try again.",
                "retry": "after_user_action",
            }
            fake.add_file("/opt/vendor/app")
            declaration.register("vendor", decl)  # any registry change re-evaluates
            assert host.gate.check("vendor") is True
            declaration.clear()
            assert host.gate.check("vendor") is True

    run(scenario())


def test_stdio_children_get_a_filtered_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "must-not-leak")
    out = tmp_path / "env.txt"
    script = (
        "import os, sys, pathlib\n"
        f"pathlib.Path({str(out)!r}).write_text('\\n'.join(sorted(os.environ)))\n"
        "sys.exit(1)\n"
    )

    async def scenario() -> None:
        server = HostServer(
            "env", command=sys.executable, args=["-c", script], env={"EXPLICIT": "yes"}
        )
        async with MCPHost([server]):
            pass

    run(scenario())
    names = set(out.read_text().splitlines())
    assert "AWS_SECRET_ACCESS_KEY" not in names
    assert {"EXPLICIT", "PATH", "HOME"} <= names


def test_sync_facade_from_worker_threads() -> None:
    from concurrent.futures import ThreadPoolExecutor

    with SyncMCPHost([hostile(supports_parallel_tool_calls=True)]) as host:
        with ThreadPoolExecutor(4) as pool:
            results = list(
                pool.map(lambda i: host.call_tool("mcp_hostile_echo", {"text": str(i)}), range(8))
            )
        assert [r["content"][0]["text"] for r in results] == [str(i) for i in range(8)]


def test_shutdown_leaves_no_child_process() -> None:
    async def scenario() -> set[int]:
        async with MCPHost([hostile("a"), hostile("b")]):
            return live_children()

    before = live_children()
    during = run(scenario())
    assert isinstance(during, set) and len(during - before) >= 2
    assert live_children() - before == set()  # closing waited for them


def test_idle_stdio_server_is_recycled_and_restarted_transparently() -> None:
    async def scenario() -> None:
        async with MCPHost([hostile(idle_timeout_seconds=0.4)]) as host:
            before = live_children()
            assert len(before) >= 1
            for _ in range(60):
                await asyncio.sleep(0.1)
                if host.status()[0].connection == "recycled":
                    break
            assert host.status()[0].connection == "recycled"
            assert live_children() == set()  # recycling waited for the child to exit
            assert host.registry.get("mcp_hostile_echo") is not None  # tools stay registered
            assert host.gate.check("hostile") is True
            result = await host.call_tool("mcp_hostile_echo", {"text": "back"})
            assert result["content"][0]["text"] == "back"
            assert host.status()[0].connection == "connected"

    run(scenario())


RAW = str(Path(__file__).parents[1] / "servers" / "raw_schema_server.py")


def test_a_malformed_tool_schema_skips_that_tool_only() -> None:
    async def scenario() -> None:
        server = HostServer("raw", command=sys.executable, args=[RAW])
        async with MCPHost([server]) as host:
            assert [t.name for t in host.tools()] == ["mcp_raw_good"]
            skipped = host.skipped_tools["raw"]
            assert len(skipped) == 2 and skipped[0].startswith("array_schema:")
            result = await host.call_tool("mcp_raw_good")
            assert result["content"][0]["text"] == "ok"

    run(scenario())


def test_reload_applies_a_config_diff() -> None:
    async def scenario() -> None:
        async with MCPHost([hostile("keep"), hostile("drop"), hostile("change")]) as host:
            kept = host._connections["keep"]
            diff = await host.reload(
                [hostile("keep"), hostile("change", exclude=("h*",)), hostile("new")]
            )
            assert diff == {
                "added": ["new"],
                "removed": ["drop"],
                "changed": ["change"],
                "deferred": [],
            }
            assert host._connections["keep"] is kept
            servers = {t.server for t in host.tools()}
            assert servers == {"keep", "change", "new"}
            assert host.registry.get("mcp_change_hang") is None

    run(scenario())


def test_calls_to_one_server_are_serialised_unless_it_allows_parallel_calls() -> None:
    async def finish_order(server: HostServer) -> list[str]:
        order: list[str] = []
        async with MCPHost([server]) as host:

            async def call(tool: str, args: dict[str, str]) -> None:
                await host.call_tool(f"mcp_{server.name}_{tool}", args)
                order.append(tool)

            hang = asyncio.create_task(call("hang", {}))
            connection = host._connections[server.name]
            while not connection._inflight:  # until the hanging call is in flight
                await asyncio.sleep(0.01)
            await call("echo", {"text": "x"})
            await hang
        return order

    # Serialised: the echo waits for the hanging call (ended by its deadline).
    assert run(finish_order(hostile("serial", timeout=1.0))) == ["hang", "echo"]
    # Parallel: the echo runs beside it and finishes first.
    parallel = hostile("parallel", timeout=1.0, supports_parallel_tool_calls=True)
    assert run(finish_order(parallel)) == ["echo", "hang"]


def test_a_huge_result_passes_through_intact() -> None:
    async def scenario() -> None:
        async with MCPHost([hostile()]) as host:
            result = await host.call_tool("mcp_hostile_huge")
            assert len(result["content"][0]["text"]) == 2_000_000

    run(scenario())


def test_a_timed_out_call_is_cancelled_on_the_server(tmp_path: Path) -> None:
    marker = tmp_path / "cancelled.txt"

    async def scenario() -> dict[str, object]:
        server = hostile(timeout=0.5, env={"HOSTILE_CANCEL_MARKER": str(marker)})
        async with MCPHost([server]) as host:
            result = await host.call_tool("mcp_hostile_hang")
            for _ in range(50):  # the notification travels asynchronously
                if marker.exists():
                    break
                await asyncio.sleep(0.05)
            return result

    result = run(scenario())
    assert isinstance(result, dict) and "timed out" in str(result["error"])
    assert marker.read_text() == "cancelled\n"
