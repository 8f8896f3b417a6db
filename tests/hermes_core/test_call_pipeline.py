"""The call pipeline and each of its steps, in memory: plain coroutines as ``proceed``, small
stand-ins for the gate, the connections and the breakers; no server is started."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, cast

import pytest
from mcp_types import CallToolResult, TextContent

from hermes_core.host.calls.approval import Approvals, needs_approval
from hermes_core.host.calls.breaker import Breakers
from hermes_core.host.calls.call import Proceed, Result, ToolCall
from hermes_core.host.calls.pipeline import CallPipeline
from hermes_core.host.calls.send_step import SendStep
from hermes_core.host.calls.steps import (
    AdmitStep,
    ApproveStep,
    GateStep,
    RecordStep,
    UtilityStep,
    WakeStep,
)
from hermes_core.host.connection import ServerConnection, ServerError
from hermes_core.host.connection.session_requests import ToolCallRequest
from hermes_core.host.host import MCPHost
from hermes_core.host.server_spec import HostServer
from hermes_core.host.tools.offer_gates import ServerGate
from hermes_core.host.tools.registry import ToolEntry, ToolRegistry
from hermes_core.offers.elicitation import ElicitationRequest

SERVER = HostServer("acme", command="unused")


def entry(tool: str = "render", **extra: Any) -> ToolEntry:
    return ToolEntry(f"mcp_acme_{tool}", "acme", tool, "", {}, "mcp-acme", **extra)


def call_of(tool_entry: ToolEntry, server: HostServer = SERVER, **arguments: Any) -> ToolCall:
    return ToolCall(tool_entry.name, dict(arguments), None, tool_entry, server)


def run(coro: Awaitable[Result]) -> Result:
    return asyncio.run(cast("Any", coro))


class Recorder:
    """A ``proceed`` that answers ``{"ok": True}`` and remembers the calls it saw."""

    def __init__(self, outcome: Any = "ok") -> None:
        self.calls: list[ToolCall] = []
        self.outcome = outcome

    async def __call__(self, call: ToolCall) -> Result:
        self.calls.append(call)
        call.outcome = self.outcome
        return {"ok": True}


async def must_not_proceed(call: ToolCall) -> Result:
    raise AssertionError("the step went on")


class FakeGate:
    def __init__(self, *answers: bool, payload: dict[str, Any] | None = None) -> None:
        self.answers = list(answers)
        self.payload = payload or {
            "error": "MCP server 'acme' is not connected",
            "server": "acme",
            "state": "not_connected",
        }
        self.invalidated = 0

    def check(self, server: str) -> bool:
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]

    def error_payload(self, server: str, display_name: str | None = None) -> dict[str, Any]:
        return dict(self.payload)

    def invalidate(self) -> None:
        self.invalidated += 1


class FakeConnection:
    """``request(what, request, timeout)`` answers with *answer* (or raises it)."""

    def __init__(self, answer: Any, last_error: str | None = None) -> None:
        self.answer = answer
        self.requests: list[tuple[Any, ...]] = []
        self.status = type("Status", (), {"last_error": last_error})()
        self.raw_calls = None
        self.protocol = "2025-11-25"

    async def request(self, what: str, request: Any, timeout: float) -> Any:
        self.requests.append((what, request, timeout))
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer


def connections(connection: FakeConnection) -> dict[str, ServerConnection]:
    return cast("dict[str, ServerConnection]", {"acme": connection})


def gate_of(gate: FakeGate) -> ServerGate:
    return cast("ServerGate", gate)


# -- admit and record -------------------------------------------------------------------------
def test_admit_lets_a_call_through_a_closed_breaker_and_keeps_the_breaker() -> None:
    breakers = Breakers()
    proceed = Recorder()
    step = AdmitStep(breakers)
    call = call_of(entry())
    assert run(step(call, proceed)) == {"ok": True}
    assert call.breaker is breakers.of(SERVER)
    assert step.applies(entry(), SERVER) and not step.applies(entry(utility=True), SERVER)


def test_admit_answers_for_an_open_breaker_without_going_on() -> None:
    config = HostServer("acme", command="unused", breaker_threshold=1)
    breakers = Breakers(clock=lambda: 0.0)
    breakers.of(config).record("transport")  # one strike opens it
    result = run(AdmitStep(breakers)(call_of(entry(), config), must_not_proceed))
    assert result["server"] == "acme" and "error" in result
    assert breakers.of(config).refused == 1


class FakeBreaker:
    def __init__(self) -> None:
        self.seen: list[str] = []

    def release(self) -> None:
        self.seen.append("release")

    def record(self, outcome: str) -> None:
        self.seen.append(outcome)


@pytest.mark.parametrize(
    ("outcome", "seen"), [(None, "release"), ("ok", "ok"), ("transport", "transport")]
)
def test_record_gives_the_outcome_to_the_breaker(outcome: Any, seen: str) -> None:
    breaker = FakeBreaker()
    call = call_of(entry())
    call.breaker = cast("Any", breaker)
    run(RecordStep()(call, Recorder(outcome)))
    assert breaker.seen == [seen]


def test_record_releases_the_breaker_when_the_rest_raises() -> None:
    breaker = FakeBreaker()
    call = call_of(entry())
    call.breaker = cast("Any", breaker)

    async def boom(call: ToolCall) -> Result:
        raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        run(RecordStep()(call, boom))
    assert breaker.seen == ["release"]


# -- wake -------------------------------------------------------------------------------------
def registry_with(*entries: ToolEntry) -> ToolRegistry:
    registry = ToolRegistry()
    registry.replace_server("acme", list(entries))
    return registry


def test_wake_reports_a_lazy_server_that_could_not_start_as_a_transport_failure() -> None:
    async def wake(server: str) -> str | None:
        return "spawn failed"

    call = call_of(entry())
    result = run(WakeStep(wake, registry_with(entry()))(call, must_not_proceed))
    assert result == {
        "error": "MCP server 'acme' (lazy) could not be started: spawn failed",
        "server": "acme",
        "state": "not_connected",
    }
    assert call.outcome == "transport"


def test_wake_answers_for_a_cached_tool_the_live_server_dropped() -> None:
    async def wake(server: str) -> str | None:
        return None

    call = call_of(entry())
    result = run(WakeStep(wake, registry_with())(call, must_not_proceed))
    assert result["state"] == "phantom" and call.outcome is None


def test_wake_goes_on_once_the_server_runs_and_applies_to_lazy_servers_only() -> None:
    woken: list[str] = []

    async def wake(server: str) -> str | None:
        woken.append(server)
        return None

    step = WakeStep(wake, registry_with(entry()))
    assert run(step(call_of(entry()), Recorder())) == {"ok": True}
    assert woken == ["acme"]
    assert step.applies(entry(), HostServer("acme", command="x", lazy=True))
    assert not step.applies(entry(), SERVER)


# -- gate -------------------------------------------------------------------------------------
async def no_retry(server: str) -> None:
    return None


def test_gate_goes_on_for_an_offered_server_without_retrying() -> None:
    async def retry(server: str) -> None:
        raise AssertionError("retried")

    step = GateStep(gate_of(FakeGate(True)), {}, retry)
    assert run(step(call_of(entry()), Recorder())) == {"ok": True}


def test_gate_retries_a_server_that_is_not_connected_once() -> None:
    retried: list[str] = []

    async def retry(server: str) -> None:
        retried.append(server)

    step = GateStep(gate_of(FakeGate(False, True)), {}, retry)
    assert run(step(call_of(entry()), Recorder())) == {"ok": True}
    assert retried == ["acme"]


def test_gate_says_why_a_server_is_not_connected_and_strikes_the_breaker() -> None:
    connection = FakeConnection(None, last_error="MCP server 'acme' exited with status 1")
    step = GateStep(gate_of(FakeGate(False)), connections(connection), no_retry)
    call = call_of(entry())
    result = run(step(call, must_not_proceed))
    assert result["error"] == "MCP server 'acme' is not connected: it exited with status 1"
    assert call.outcome == "transport"


def test_gate_refuses_a_gated_app_without_a_breaker_outcome() -> None:
    gate = FakeGate(False, payload={"error": "Acme is not installed.", "state": "missing_app"})
    call = call_of(entry())
    result = run(GateStep(gate_of(gate), {}, no_retry)(call, must_not_proceed))
    assert result["state"] == "missing_app" and call.outcome is None


# -- utility ----------------------------------------------------------------------------------
def test_utility_checks_the_arguments_before_asking_the_server() -> None:
    connection = FakeConnection(None)
    step = UtilityStep(connections(connection), gate_of(FakeGate(True)))
    tool = entry("read_resource", utility=True)
    result = run(step(call_of(tool), must_not_proceed))
    assert result["state"] == "invalid_arguments" and result["retryable"] is False
    assert "missing required argument 'uri'" in result["error"]
    assert connection.requests == []
    assert step.applies(tool, SERVER) and not step.applies(entry(), SERVER)


def test_utility_answers_a_listing_itself() -> None:
    connection = FakeConnection(([{"uri": "file:///a", "name": "a"}], 1, None, None))
    step = UtilityStep(connections(connection), gate_of(FakeGate(True)))
    result = run(step(call_of(entry("list_resources", utility=True)), must_not_proceed))
    assert result == {
        "content": [
            {"type": "text", "text": "MCP server 'acme' lists 1 resources:\n- file:///a  a"}
        ],
        "structuredContent": {"resources": [{"uri": "file:///a", "name": "a"}], "pages": 1},
        "isError": False,
    }


def test_utility_turns_a_connection_failure_into_a_result() -> None:
    gate = FakeGate(True)
    connection = FakeConnection(ServerError("acme", "went away", retryable=True))
    step = UtilityStep(connections(connection), gate_of(gate))
    result = run(step(call_of(entry("list_prompts", utility=True)), must_not_proceed))
    assert result == {"error": "MCP server 'acme': went away", "server": "acme", "retryable": True}
    assert gate.invalidated == 1


# -- approve ----------------------------------------------------------------------------------
UNTRUSTED = HostServer("acme", command="unused", trust="untrusted")


def test_approve_applies_to_an_untrusted_servers_write_capable_tools_only() -> None:
    assert needs_approval(entry(), UNTRUSTED)
    assert not needs_approval(entry(read_only=True), UNTRUSTED)
    assert not needs_approval(entry(), SERVER)


def test_approve_goes_on_when_the_user_accepts_and_counts_it() -> None:
    asked: list[ElicitationRequest] = []

    async def elicitor(request: ElicitationRequest) -> Any:
        asked.append(request)
        return type("Answer", (), {"action": "accept"})()

    approvals = Approvals(elicitor)
    result = run(ApproveStep(approvals)(call_of(entry(), UNTRUSTED, scene="lobby"), Recorder()))
    assert result == {"ok": True}
    assert '{"scene": "lobby"}' in asked[0].message
    assert approvals.counts("acme") == {"approved": 1, "refused": 0}


def test_approve_fails_closed_without_a_way_to_ask() -> None:
    approvals = Approvals(None)
    result = run(ApproveStep(approvals)(call_of(entry(), UNTRUSTED), must_not_proceed))
    assert result["state"] == "not_approved" and result["retryable"] is False
    assert "no approval channel" in result["error"]
    assert approvals.counts("acme") == {"approved": 0, "refused": 1}


# -- send -------------------------------------------------------------------------------------
def text_result(text: str, *, is_error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=is_error)


def test_send_renders_the_result_and_records_ok() -> None:
    connection = FakeConnection(text_result("done"))
    call = call_of(entry(), scene="lobby")
    result = run(SendStep(connections(connection), gate_of(FakeGate(True)))(call, _end_unused))
    assert result == {
        "content": [{"type": "text", "text": "done"}],
        "isError": False,
        "resultType": "complete",
    }
    assert call.outcome == "ok"
    what, request, timeout = connection.requests[0]
    assert (what, timeout) == ("the call to 'render'", 300.0)
    assert request == ToolCallRequest("render", {"scene": "lobby"}, None)


def test_send_records_a_tool_error_as_an_application_outcome() -> None:
    call = call_of(entry())
    step = SendStep(
        connections(FakeConnection(text_result("no", is_error=True))), gate_of(FakeGate(True))
    )
    assert run(step(call, _end_unused))["isError"] is True
    assert call.outcome == "application"


def test_send_maps_a_failure_to_a_result() -> None:
    gate = FakeGate(True)
    call = call_of(entry())
    step = SendStep(connections(FakeConnection(ServerError("acme", "timed out"))), gate_of(gate))
    assert run(step(call, _end_unused)) == {
        "error": "MCP server 'acme': timed out",
        "server": "acme",
        "retryable": False,
    }
    assert call.outcome == "transport" and gate.invalidated == 1
    call = call_of(entry())
    step = SendStep(connections(FakeConnection(ValueError("bad"))), gate_of(gate))
    assert run(step(call, _end_unused)) == {
        "error": "MCP server 'acme': bad",
        "server": "acme",
    }
    assert call.outcome == "application"


async def _end_unused(call: ToolCall) -> Result:
    raise AssertionError("send is the last step")


# -- the pipeline -----------------------------------------------------------------------------
class Named:
    """A step that notes its name in the call's arguments, then goes on."""

    def __init__(
        self,
        name: str,
        applies: Callable[[ToolEntry, HostServer], bool] | None = None,
        answer: bool = False,
    ) -> None:
        self.name = name
        self._applies = applies
        self._answer = answer
        self.asked = 0

    def applies(self, entry: ToolEntry, server: HostServer) -> bool:
        self.asked += 1
        return self._applies(entry, server) if self._applies else True

    async def __call__(self, call: ToolCall, proceed: Proceed) -> Result:
        call.arguments.setdefault("order", []).append(self.name)
        if self._answer:
            return {"order": call.arguments["order"]}
        return await proceed(call)


def pipeline_of(*steps: Any) -> CallPipeline:
    registry = registry_with(entry(), entry("peek", read_only=True))
    return CallPipeline(registry, {"acme": SERVER}, steps)


def test_an_unknown_name_is_answered_before_any_step() -> None:
    pipeline = pipeline_of(Named("send", answer=True))
    assert run(pipeline.call("mcp_nope")) == {
        "error": "unknown tool 'mcp_nope'",
        "state": "unknown_tool",
        "retryable": False,
    }
    assert pipeline.resolve("mcp_nope") is None
    assert pipeline.resolve("mcp_acme_render") == (entry(), SERVER)


def test_inserting_a_step_is_one_line_and_it_runs_in_the_order_given() -> None:
    pipeline = pipeline_of(Named("admit"), Named("gate"), Named("send", answer=True))
    pipeline.insert(Named("intercept"), before="send")
    pipeline.insert(Named("audit"), after="admit")
    assert pipeline.steps == ["admit", "audit", "gate", "intercept", "send"]
    result = run(pipeline.call("mcp_acme_render"))
    assert result == {"order": ["admit", "audit", "gate", "intercept", "send"]}
    with pytest.raises(ValueError, match="no step named 'nope'"):
        pipeline.insert(Named("x"), before="nope")


def test_the_chain_is_built_once_per_entry_and_skips_steps_that_do_not_apply() -> None:
    writes_only = Named("approve", applies=lambda e, s: not e.read_only)
    pipeline = pipeline_of(Named("gate"), writes_only, Named("send", answer=True))
    for _ in range(3):
        assert run(pipeline.call("mcp_acme_render"))["order"] == ["gate", "approve", "send"]
        assert run(pipeline.call("mcp_acme_peek"))["order"] == ["gate", "send"]
    assert writes_only.asked == 2  # once per entry, never per call
    pipeline.insert(Named("late"), before="send")  # a new step: the chains are built again
    assert run(pipeline.call("mcp_acme_peek"))["order"] == ["gate", "late", "send"]
    assert writes_only.asked == 3


def test_the_arguments_are_copied_once_and_never_shared_with_the_caller() -> None:
    arguments = {"scene": "lobby"}
    pipeline = pipeline_of(Named("send", answer=True))
    run(pipeline.call("mcp_acme_render", arguments))
    assert arguments == {"scene": "lobby"}
    assert pipeline.remove("send").name == "send" and pipeline.steps == []


def test_the_hosts_pipeline_runs_the_steps_in_the_documented_order() -> None:
    async def scenario() -> list[str]:
        host = MCPHost([SERVER])
        try:
            return host.pipeline.steps
        finally:
            await host.close()

    steps = asyncio.run(scenario())
    assert steps == [
        "policy",
        "intercept",
        "admit",
        "record",
        "wake",
        "gate",
        "utility",
        "approve",
        "send",
    ]
