"""MCPHost's server lifecycle against in-process servers (tests/support/memory.py): failed and
disabled servers, timeouts, the circuit breaker, untrusted-server approvals, gating by app
availability, lazy servers, reload and close; no subprocess and no socket."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

from hermes_core.host.host import HostServer, MCPHost
from hermes_core.offers.elicitation import (
    ElicitationSettings,
)
from hermes_platform import declaration
from hermes_platform.testing import FakeHost
from support.approvers import Approver
from support.memory import MEMORY, MemoryTransport, ToyServer, error_result, memory_server


def host(transport: MemoryTransport, *servers: HostServer, **kw: Any) -> MCPHost:
    return MCPHost(servers, transports={MEMORY: transport}, **kw)


def run(scenario: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(scenario())


def text(answer: dict[str, Any]) -> str:
    assert "error" not in answer, answer
    return str(answer["content"][0]["text"])


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Hang:
    """A tool that answers only when released; records that it started and was cancelled."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.cancelled = asyncio.Event()

    async def __call__(self, _args: dict[str, Any]) -> str:
        self.started.set()
        try:
            await self.release.wait()
        except BaseException:
            self.cancelled.set()
            raise
        return "released"


# -- failures stay with their server ---------------------------------------------------------


def test_an_unreachable_server_fails_alone() -> None:
    async def scenario() -> None:
        good = ToyServer("good").tool("echo")
        transport = MemoryTransport({"good": good})
        transport.refuse.add("down")
        async with host(transport, memory_server("good"), memory_server("down")) as h:
            rows = {row.server: row for row in h.status()}
            assert rows["good"].connection == "connected" and rows["good"].last_error is None
            assert rows["down"].connection == "failed" and rows["down"].offered is False
            assert rows["down"].last_error is not None
            assert "no in-memory server answers for 'down'" in rows["down"].last_error
            assert [e.server for e in h.tools()] == ["good"]
            assert text(await h.call_tool("mcp_good_echo")) == "echo: ok"

    run(scenario)


def test_start_reports_each_servers_error() -> None:
    async def scenario() -> None:
        transport = MemoryTransport({"a": ToyServer("a").tool("x")})
        h = host(transport, memory_server("a"), memory_server("b"))
        try:
            seen: list[str] = []
            errors = await h.start(on_server=lambda name, _error, _seconds: seen.append(name))
            assert errors["a"] is None
            assert errors["b"] is not None and "refused" in errors["b"]
            assert "ConnectionRefusedError" not in errors["b"]  # the cause in words
            assert sorted(seen) == ["a", "b"]
        finally:
            await h.close()

    run(scenario)


def test_a_disabled_server_is_never_contacted() -> None:
    async def scenario() -> None:
        transport = MemoryTransport({"on": ToyServer("on").tool("x"), "off": ToyServer("off")})
        async with host(transport, memory_server("on"), memory_server("off", enabled=False)) as h:
            assert transport.connects == {"on": 1}
            rows = {row.server: row for row in h.status()}
            assert rows["off"].enabled is False and rows["off"].tools == 0
            assert [e.server for e in h.tools()] == ["on"]

    run(scenario)


def test_a_server_on_an_unregistered_transport_fails_with_the_registered_names() -> None:
    async def scenario() -> None:
        transport = MemoryTransport({"s": ToyServer("s").tool("x")})
        async with host(transport, HostServer("s", transport="carrier-pigeon")) as h:
            (row,) = h.status()
            assert row.connection == "failed"
            assert row.last_error == (
                "MCP server 's': no transport named 'carrier-pigeon' is registered "
                "(registered: memory)"
            )
            assert transport.connects == {}

    run(scenario)


def test_a_config_error_is_the_status_and_the_server_is_not_started() -> None:
    async def scenario() -> None:
        transport = MemoryTransport({"s": ToyServer("s").tool("x")})
        entry = memory_server("s", config_error="config.yaml:3: ${TOKEN} is not set")
        async with host(transport, entry) as h:
            (row,) = h.status()
            assert row.connection == "failed"
            assert row.last_error == "config.yaml:3: ${TOKEN} is not set"
            assert transport.connects == {} and h.tools() == []

    run(scenario)


def test_a_listing_error_fails_the_server_instead_of_offering_no_tools() -> None:
    async def scenario() -> None:
        server = ToyServer("s").tool("x")
        server.list_error = "the index is rebuilding"
        async with host(MemoryTransport({"s": server}), memory_server("s")) as h:
            (row,) = h.status()
            assert row.connection == "failed" and h.tools() == []
            assert row.last_error is not None
            assert row.last_error.startswith("listing tools failed:")
            assert "the index is rebuilding" in row.last_error

    run(scenario)


def test_a_call_to_a_server_that_went_away_is_an_error_result() -> None:
    async def scenario() -> None:
        transport = MemoryTransport({"s": ToyServer("s").tool("x")})
        async with host(transport, memory_server("s")) as h:
            transport.refuse.add("s")
            await h.reload([memory_server("s", exclude=("nothing",))])  # reconnect: refused
            (row,) = h.status()
            assert row.connection == "failed"
            answer = await h.call_tool("mcp_s_x")
            assert answer.get("state") in ("unknown_tool", "not_connected") and "error" in answer

    run(scenario)


# -- timeouts and concurrency ----------------------------------------------------------------


def test_a_call_past_its_timeout_is_an_error_and_is_cancelled_on_the_server() -> None:
    async def scenario() -> None:
        hang = Hang()
        server = ToyServer("s").tool("hang", hang).tool("echo")
        async with host(MemoryTransport({"s": server}), memory_server("s", timeout=0.3)) as h:
            answer = await h.call_tool("mcp_s_hang")
            assert answer["error"] == (
                "MCP server 's': the call to 'hang' timed out after 0.3 s (configured timeout)"
            )
            await asyncio.wait_for(hang.cancelled.wait(), 30)
            assert text(await h.call_tool("mcp_s_echo")) == "echo: ok"  # the server still works

    run(scenario)


def test_calls_to_one_server_wait_for_each_other_by_default() -> None:
    async def scenario() -> None:
        hang = Hang()
        server = ToyServer("s").tool("hang", hang).tool("echo")
        async with host(MemoryTransport({"s": server}), memory_server("s")) as h:
            first = asyncio.create_task(h.call_tool("mcp_s_hang"))
            await asyncio.wait_for(hang.started.wait(), 30)
            second = asyncio.create_task(h.call_tool("mcp_s_echo"))
            done, _ = await asyncio.wait({second}, timeout=0.3)
            assert not done and server.called("echo") == 0  # queued behind the first call
            hang.release.set()
            assert text(await first) == "released" and text(await second) == "echo: ok"
            assert [name for name, _ in server.calls] == ["hang", "echo"]

    run(scenario)


def test_a_server_that_allows_parallel_calls_gets_them_at_once() -> None:
    async def scenario() -> None:
        hang = Hang()
        server = ToyServer("s").tool("hang", hang).tool("echo")
        entry = memory_server("s", supports_parallel_tool_calls=True)
        async with host(MemoryTransport({"s": server}), entry) as h:
            first = asyncio.create_task(h.call_tool("mcp_s_hang"))
            await asyncio.wait_for(hang.started.wait(), 30)
            # The second call finishes while the first is still in flight.
            assert text(await asyncio.wait_for(h.call_tool("mcp_s_echo"), 30)) == "echo: ok"
            assert not first.done()
            hang.release.set()
            assert text(await first) == "released"

    run(scenario)


# -- the circuit breaker ---------------------------------------------------------------------


def test_error_results_open_the_breaker_and_a_probe_after_the_cooldown_closes_it() -> None:
    async def scenario() -> None:
        failures = {"left": 3}

        def flaky(_args: dict[str, Any]) -> Any:
            if failures["left"]:
                failures["left"] -= 1
                return error_result("not now")
            return "recovered"

        server = ToyServer("s").tool("flaky", flaky).tool("look", read_only=True)
        clock = Clock()
        entry = memory_server("s", breaker_threshold=3, breaker_cooldown=60)
        async with host(MemoryTransport({"s": server}), entry, clock=clock) as h:
            for _ in range(3):
                assert (await h.call_tool("mcp_s_flaky"))["isError"] is True
            refused = await h.call_tool("mcp_s_flaky")
            assert refused["state"] == "circuit_open" and refused["reason"] == "rejecting"
            assert (await h.call_tool("mcp_s_look"))["state"] == "circuit_open"
            assert server.called("flaky") == 3 and server.called("look") == 0
            (row,) = h.status()
            assert row.breaker is not None
            assert row.breaker["state"] == "open" and row.breaker["refused"] == 2
            clock.now += 59
            assert (await h.call_tool("mcp_s_flaky"))["state"] == "circuit_open"
            clock.now += 1
            assert text(await h.call_tool("mcp_s_flaky")) == "recovered"  # the probe
            (row,) = h.status()
            assert row.breaker is not None
            assert row.breaker["state"] == "closed" and row.breaker["strikes"] == 0

    run(scenario)


def test_a_success_resets_the_strikes() -> None:
    async def scenario() -> None:
        outcomes = iter(["fail", "fail", "ok", "fail", "fail", "ok"])

        def sometimes(_args: dict[str, Any]) -> Any:
            return error_result("no") if next(outcomes) == "fail" else "yes"

        server = ToyServer("s").tool("t", sometimes)
        entry = memory_server("s", breaker_threshold=3)
        async with host(MemoryTransport({"s": server}), entry) as h:
            for _ in range(6):
                assert "state" not in await h.call_tool("mcp_s_t")
            assert server.called("t") == 6

    run(scenario)


def test_timeouts_open_the_breaker_as_unreachable() -> None:
    async def scenario() -> None:
        server = ToyServer("s").tool("hang", Hang()).tool("look", read_only=True)
        entry = memory_server("s", timeout=0.2, breaker_threshold=2, breaker_cooldown=300)
        async with host(MemoryTransport({"s": server}), entry) as h:
            for _ in range(2):
                assert "timed out" in (await h.call_tool("mcp_s_hang"))["error"]
            refused = await h.call_tool("mcp_s_look")
            assert refused["reason"] == "unreachable"
            assert "is unreachable after 2 consecutive failures" in refused["error"]
            assert server.called("look") == 0

    run(scenario)


def test_each_server_has_its_own_breaker() -> None:
    async def scenario() -> None:
        bad = ToyServer("bad").tool("t", lambda _a: error_result("no"))
        good = ToyServer("good").tool("t")
        transport = MemoryTransport({"bad": bad, "good": good})
        entries = (memory_server("bad", breaker_threshold=1), memory_server("good"))
        async with host(transport, *entries) as h:
            await h.call_tool("mcp_bad_t")
            assert (await h.call_tool("mcp_bad_t"))["state"] == "circuit_open"
            assert text(await h.call_tool("mcp_good_t")) == "t: ok"

    run(scenario)


# -- untrusted servers -----------------------------------------------------------------------


def untrusted_server() -> ToyServer:
    return ToyServer("u").tool("look", read_only=True).tool("write")


@pytest.mark.parametrize(
    ("approver", "why"),
    [
        (Approver("decline"), "the user declined"),
        (Approver("cancel"), "the user cancelled"),
        (Approver(None), "no answer within 0.2 s"),
        (Approver("accept", fail=True), "the approval failed (RuntimeError)"),
        (None, "no approval channel"),
    ],
)
def test_an_untrusted_write_runs_only_when_approved(approver: Approver | None, why: str) -> None:
    async def scenario() -> None:
        server = untrusted_server()
        entry = memory_server(
            "u", trust="untrusted", elicitation=ElicitationSettings(enabled=True, timeout=0.2)
        )
        async with host(MemoryTransport({"u": server}), entry, elicitor=approver) as h:
            assert text(await h.call_tool("mcp_u_look")) == "look: ok"  # read-only: no question
            refused = await h.call_tool("mcp_u_write", {"path": "/etc/x"})
            assert refused["state"] == "not_approved" and refused["retryable"] is False
            assert why in refused["error"] and "was NOT run" in refused["error"]
            (row,) = h.status()
            assert row.trust == "untrusted"
            assert row.approvals == {"approved": 0, "refused": 1}
            assert row.breaker is not None and row.breaker["strikes"] == 0
        assert server.called("write") == 0 and server.called("look") == 1
        if approver is not None:
            (asked,) = approver.seen
            assert asked.kind == "approval" and asked.server == "u"
            assert '"/etc/x"' in asked.message

    run(scenario)


def test_an_approved_write_runs_and_trusted_servers_never_ask() -> None:
    async def scenario() -> None:
        approver = Approver("accept")
        transport = MemoryTransport({"u": untrusted_server(), "t": untrusted_server()})
        entries = (memory_server("u", trust="untrusted"), memory_server("t"))
        async with host(transport, *entries, elicitor=approver) as h:
            assert text(await h.call_tool("mcp_u_write")) == "write: ok"
            assert text(await h.call_tool("mcp_t_write")) == "write: ok"
            rows = {row.server: row for row in h.status()}
            assert rows["u"].approvals == {"approved": 1, "refused": 0}
        assert [request.server for request in approver.seen] == ["u"]

    run(scenario)


# -- gating by the app's availability --------------------------------------------------------


def test_the_gate_hides_and_blocks_a_server_whose_app_is_missing(
    hermes_fake_host: Callable[..., FakeHost],
) -> None:
    async def scenario() -> None:
        server = ToyServer("vendor").tool("echo")
        async with host(MemoryTransport({"vendor": server}), memory_server("vendor")) as h:
            assert [e.name for e in h.tools()] == ["mcp_vendor_echo"]
            fake = hermes_fake_host("linux")
            decl = declaration.parse_declaration(
                "vendor",
                raw_app={"linux": {"presence": "executable", "location": "/opt/vendor/app"}},
                raw_requires={"app": True},
                where="t",
            )
            declaration.register("vendor", decl)
            assert h.tools() == []
            assert [e.name for e in h.tools(include_gated=True)] == ["mcp_vendor_echo"]
            blocked = await h.call_tool("mcp_vendor_echo")
            assert blocked["state"] == "missing_app"
            assert blocked["error"] == "vendor is not installed. Install vendor, then try again."
            assert blocked["retry"] == "after_user_action"
            assert server.calls == []
            (row,) = h.status()
            assert row.offered is False
            fake.add_file("/opt/vendor/app")
            declaration.register("vendor", decl)  # a registry change re-evaluates the gate
            assert [e.name for e in h.tools()] == ["mcp_vendor_echo"]
            assert text(await h.call_tool("mcp_vendor_echo")) == "echo: ok"

    run(scenario)


# -- lazy servers ----------------------------------------------------------------------------


def lazy(cache: Path, fingerprint: str = "fp-1", **kw: Any) -> HostServer:
    return memory_server("s", lazy=True, schema_cache=cache, fingerprint=fingerprint, **kw)


def test_a_lazy_server_without_a_cache_starts_at_once_and_writes_its_listing(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "s.json"

    async def scenario() -> None:
        transport = MemoryTransport({"s": ToyServer("s").tool("a").tool("b")})
        async with host(transport, lazy(cache)) as h:
            assert transport.connects == {"s": 1}
            assert [e.tool for e in h.tools()] == ["a", "b"]
        listed = json.loads(cache.read_text())
        assert [tool["name"] for tool in listed["tools"]] == ["a", "b"]

    run(scenario)


def test_a_lazy_server_answers_from_its_cache_and_starts_on_the_first_call(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "s.json"

    async def scenario() -> None:
        async with host(MemoryTransport({"s": ToyServer("s").tool("a").tool("b")}), lazy(cache)):
            pass  # writes the cache
        server = ToyServer("s").tool("a").tool("b")
        transport = MemoryTransport({"s": server})
        async with host(transport, lazy(cache)) as h:
            assert transport.connects == {}
            assert [e.tool for e in h.tools()] == ["a", "b"]
            (row,) = h.status()
            assert row.connection == "lazy" and row.offered is True
            assert row.lazy is not None and row.lazy["cache"] == "hit"
            assert text(await h.call_tool("mcp_s_b")) == "b: ok"
            assert transport.connects == {"s": 1} and server.calls == [("b", {})]
            assert text(await h.call_tool("mcp_s_a")) == "a: ok"
            assert transport.connects == {"s": 1}  # started once
            (row,) = h.status()
            assert row.connection == "connected"

    run(scenario)


def test_a_lazy_servers_cache_is_not_used_for_another_fingerprint(tmp_path: Path) -> None:
    cache = tmp_path / "s.json"

    async def scenario() -> None:
        async with host(MemoryTransport({"s": ToyServer("s").tool("a")}), lazy(cache)):
            pass
        transport = MemoryTransport({"s": ToyServer("s").tool("a")})
        async with host(transport, lazy(cache, fingerprint="fp-2")):
            assert transport.connects == {"s": 1}

    run(scenario)


def test_a_tool_the_live_server_dropped_is_a_phantom(tmp_path: Path) -> None:
    cache = tmp_path / "s.json"

    async def scenario() -> None:
        async with host(MemoryTransport({"s": ToyServer("s").tool("a").tool("gone")}), lazy(cache)):
            pass
        transport = MemoryTransport({"s": ToyServer("s").tool("a")})
        async with host(transport, lazy(cache)) as h:
            assert [e.tool for e in h.tools()] == ["a", "gone"]
            answer = await h.call_tool("mcp_s_gone")
            assert answer["state"] == "phantom"
            assert "no longer offers the tool 'gone'" in answer["error"]
            assert [e.tool for e in h.tools()] == ["a"]
        assert "gone" not in cache.read_text()  # the live listing was written through

    run(scenario)


def test_a_lazy_server_that_cannot_start_says_why_on_its_first_call(tmp_path: Path) -> None:
    cache = tmp_path / "s.json"

    async def scenario() -> None:
        async with host(MemoryTransport({"s": ToyServer("s").tool("a")}), lazy(cache)):
            pass
        transport = MemoryTransport({"s": ToyServer("s").tool("a")})
        transport.refuse.add("s")
        async with host(transport, lazy(cache)) as h:
            answer = await h.call_tool("mcp_s_a")
            assert answer["state"] == "not_connected"
            assert answer["error"].startswith("MCP server 's' (lazy) could not be started:")

    run(scenario)


# -- reload and close ------------------------------------------------------------------------


def test_reload_connects_added_drops_removed_reconnects_changed_and_keeps_the_rest() -> None:
    async def scenario() -> None:
        servers = {n: ToyServer(n).tool("x").tool("y") for n in ("keep", "drop", "change", "new")}
        transport = MemoryTransport(servers)
        first = [memory_server(n) for n in ("keep", "drop", "change")]
        async with host(transport, *first) as h:
            diff = await h.reload(
                [
                    memory_server("keep"),
                    memory_server("change", exclude=("y",)),
                    memory_server("new"),
                ]
            )
            assert diff == {
                "added": ["new"],
                "removed": ["drop"],
                "changed": ["change"],
                "deferred": [],
            }
            assert transport.connects == {"keep": 1, "drop": 1, "change": 2, "new": 1}
            assert transport.open == {"keep", "change", "new"}
            assert sorted(e.name for e in h.tools()) == [
                "mcp_change_x",
                "mcp_keep_x",
                "mcp_keep_y",
                "mcp_new_x",
                "mcp_new_y",
            ]
            assert "error" in await h.call_tool("mcp_drop_x")
            assert sorted(row.server for row in h.status()) == ["change", "keep", "new"]

    run(scenario)


def test_reload_with_the_same_config_changes_nothing() -> None:
    async def scenario() -> None:
        transport = MemoryTransport({"s": ToyServer("s").tool("x")})
        async with host(transport, memory_server("s")) as h:
            diff = await h.reload([memory_server("s")])
            assert diff == {"added": [], "removed": [], "changed": [], "deferred": []}
            assert transport.connects == {"s": 1}

    run(scenario)


def test_disabling_a_server_by_reload_closes_it_and_hides_its_tools() -> None:
    async def scenario() -> None:
        transport = MemoryTransport({"s": ToyServer("s").tool("x"), "t": ToyServer("t").tool("x")})
        async with host(transport, memory_server("s"), memory_server("t")) as h:
            await h.reload([memory_server("s", enabled=False), memory_server("t")])
            assert transport.open == {"t"}
            assert [e.server for e in h.tools()] == ["t"]

    run(scenario)


def test_close_ends_every_connection() -> None:
    async def scenario() -> None:
        transport = MemoryTransport({n: ToyServer(n).tool("x") for n in ("a", "b", "c")})
        h = host(transport, *(memory_server(n) for n in ("a", "b", "c")))
        await h.start()
        assert transport.open == {"a", "b", "c"}
        await h.close()
        assert transport.open == set()

    run(scenario)
