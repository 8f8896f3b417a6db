"""The steps of a tool call, in their order: admit (the circuit breaker), record (its outcome),
wake (a lazy server), gate (connected and offerable, with the retry-now of a reconnecting
server), utility (resources and prompts as tools, answered here), approve (an untrusted server's
write-capable tool), send (the call itself, its result rendered or its failure mapped).

Each step takes only what it needs; see :mod:`hermes_core.host.calls.pipeline` for the order.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from hermes_core.config.policy_match import tool_denial, tool_refusal
from hermes_core.host.calls.approval import Approvals, needs_approval
from hermes_core.host.calls.breaker import Breakers
from hermes_core.host.calls.call import Proceed, Result, ToolCall, answered
from hermes_core.host.calls.failures import server_error_words
from hermes_core.host.calls.refusals import CallError, CallState
from hermes_core.host.connection import ServerConnection, ServerError
from hermes_core.host.server_spec import HostServer
from hermes_core.host.tools.offer_gates import ServerGate
from hermes_core.host.tools.registry import ToolEntry, ToolRegistry
from hermes_core.host.tools.utility_tools import call_utility, utility_argument_problem
from hermes_core.host.trust.decisions import Decision

__all__ = [
    "AdmitStep",
    "ApproveStep",
    "GateStep",
    "PolicyStep",
    "RecordStep",
    "UtilityStep",
    "WakeStep",
    "policy_refused",
]


class PolicyStep:
    """The administrator's policy, checked again at every call of a server it governs: a tool
    it refuses is never sent, whatever the listing or the config said."""

    name = "policy"

    def applies(self, entry: ToolEntry, server: HostServer) -> bool:
        return server.policy is not None

    def __call__(self, call: ToolCall, proceed: Proceed) -> Awaitable[Result]:
        refused = policy_refused(call.entry, call.server)
        if refused is None:
            return proceed(call)
        return answered(refused)


def policy_refused(entry: ToolEntry, server: HostServer) -> Result | None:
    """The refusal of a call of *entry* that *server*'s policy refuses (``None``: allowed)."""
    refused = tool_refusal(server.policy, entry.server, entry.tool)
    if refused is None and entry.override is not None and entry.override.name is not None:
        refused = tool_denial(server.policy, entry.server, entry.override.name)
    if refused is None:
        return None
    return CallError(
        f"The MCP tool {entry.tool!r} of server '{entry.server}' was NOT run: "
        f"refused by the administrator's policy: {refused}",
        CallState.POLICY,
        entry.server,
        retryable=False,
    ).result()


class AdmitStep:
    """No transport work while the server's circuit breaker is open (utility tools skip it)."""

    name = "admit"

    def __init__(self, breakers: Breakers) -> None:
        self._breakers = breakers

    def applies(self, entry: ToolEntry, server: HostServer) -> bool:
        return not entry.utility

    def __call__(self, call: ToolCall, proceed: Proceed) -> Awaitable[Result]:
        # Not a coroutine: the usual call goes on without a frame of this step kept waiting.
        breaker = call.breaker = self._breakers.of(call.server)
        refused = breaker.admit()
        if refused is not None:
            return answered(refused)
        return proceed(call)


class RecordStep:
    """The admitted call's outcome goes to its breaker; no outcome frees the probe slot."""

    name = "record"

    def applies(self, entry: ToolEntry, server: HostServer) -> bool:
        return not entry.utility

    async def __call__(self, call: ToolCall, proceed: Proceed) -> Result:
        try:
            return await proceed(call)
        finally:
            breaker = call.breaker
            if breaker is not None:
                outcome = call.outcome
                if outcome is None:
                    breaker.release()
                else:
                    breaker.record(outcome)


#: The steps after ``wake`` for an entry and its server (``CallPipeline.chain_after``).
Rest = Callable[[ToolEntry, HostServer], Proceed]


class WakeStep:
    """A lazy server is started by its first call; a cached tool it dropped is a phantom.

    The chain a call came in on was built for the entry registered from the cache; once the
    server runs, the live listing's entry replaces it and the rest of the chain is built for
    *that* entry (*rest*), so what a cache record says (``readOnlyHint``, say) never decides
    whether the call is asked about."""

    name = "wake"

    def __init__(
        self,
        wake: Callable[[str], Awaitable[str | None]],
        registry: ToolRegistry,
        rest: Rest | None = None,
        refused: Callable[[str], Result | None] | None = None,
    ) -> None:
        self._wake = wake
        self._registry = registry
        self._rest = rest
        self._refused = refused

    def applies(self, entry: ToolEntry, server: HostServer) -> bool:
        return server.lazy

    async def __call__(self, call: ToolCall, proceed: Proceed) -> Result:
        entry = call.entry
        if (woke := await self._wake(entry.server)) is not None:
            call.outcome = "transport"
            error = f"MCP server '{entry.server}' (lazy) could not be started: {woke}"
            return CallError(error, CallState.NOT_CONNECTED, entry.server).result()
        live = self._registry.get(entry.name)
        if live is None or live.server != entry.server or live.tool != entry.tool:
            refusal = None if self._refused is None else self._refused(entry.name)
            if refusal is not None:
                return refusal  # held back by the trust state (changed since pinned, blocked)
            return CallError(
                f"MCP server '{entry.server}' no longer offers the tool {entry.tool!r} "
                "(it was in the tool cache; the live server dropped it)",
                CallState.PHANTOM,
                entry.server,
            ).result()
        if live is entry or self._rest is None:
            return await proceed(call)
        call.entry = live  # decided on the live listing from here on
        return await self._rest(live, call.server)(call)


class GateStep:
    """Only a connected server whose app is offerable is called; a server that is not
    connected right now gets one quick retry (see ``ServerRunner.retry_now``)."""

    name = "gate"

    def __init__(
        self,
        gate: ServerGate,
        connections: Mapping[str, ServerConnection],
        retry_now: Callable[[str], Awaitable[None]],
    ) -> None:
        self._gate = gate
        self._connections = connections
        self._retry_now = retry_now

    def applies(self, entry: ToolEntry, server: HostServer) -> bool:
        return True

    def __call__(self, call: ToolCall, proceed: Proceed) -> Awaitable[Result]:
        # Not a coroutine: an offered server's call goes on without a frame of this step.
        if self._gate.check(call.entry.server):
            return proceed(call)
        return self._not_offered(call, proceed)

    async def _not_offered(self, call: ToolCall, proceed: Proceed) -> Result:
        server = call.entry.server
        await self._retry_now(server)
        if self._gate.check(server):
            return await proceed(call)
        payload = self._gate.error_payload(server, call.server.display_name)
        connection = self._connections.get(server)
        reason = connection.status.last_error if connection is not None else None
        error = payload["error"]
        if payload.get("state") == CallState.NOT_CONNECTED and reason and isinstance(error, str):
            core = reason.removeprefix(f"MCP server '{server}' ")
            payload["error"] = error + (f": {core}" if core is reason else f": it {core}")
        if payload.get("state") == CallState.NOT_CONNECTED:
            call.outcome = "transport"
        return payload


class UtilityStep:
    """A utility tool (resources and prompts as tools) is answered here, never sent as
    ``tools/call``."""

    name = "utility"

    def __init__(self, connections: Mapping[str, ServerConnection], gate: ServerGate) -> None:
        self._connections = connections
        self._gate = gate

    def applies(self, entry: ToolEntry, server: HostServer) -> bool:
        return entry.utility

    async def __call__(self, call: ToolCall, proceed: Proceed) -> Result:
        entry = call.entry
        connection = self._connections[entry.server]
        problem = utility_argument_problem(entry.tool, call.arguments)
        if problem is not None:
            return CallError(
                f"{entry.tool} of MCP server '{entry.server}' was not called: {problem}",
                CallState.INVALID_ARGUMENTS,
                entry.server,
                retryable=False,
            ).result()
        try:
            return await call_utility(connection, call.server, entry.tool, call.arguments)
        except ServerError as exc:
            self._gate.invalidate()
            return CallError(str(exc), server=entry.server, retryable=exc.retryable).result()
        except Exception as exc:  # noqa: BLE001 - an MCP error from the server is a result
            return CallError(server_error_words(entry.server, exc), server=entry.server).result()


class ApproveStep:
    """An untrusted server's write-capable tool runs only once the user approved the call;
    a remembered decision (*decision(server, tool)*) overrides that: ``always`` runs without
    asking, ``ask`` asks for any tool, ``never`` refuses."""

    name = "approve"

    def __init__(
        self,
        approvals: Approvals,
        decision: Callable[[str, str], Decision | None] | None = None,
        recheck: Callable[[ToolCall], Awaitable[Result | None]] | None = None,
    ) -> None:
        """*recheck(call)* decides an approved call again on what holds once the user
        answered (the policy, the decisions, the pins may have changed while they read the
        question): its refusal, or ``None`` to send it."""
        self._approvals = approvals
        self._decision = decision
        self._recheck = recheck

    def _decided(self, entry: ToolEntry) -> Decision | None:
        return None if self._decision is None else self._decision(entry.server, entry.tool)

    def applies(self, entry: ToolEntry, server: HostServer) -> bool:
        decided = self._decided(entry)
        if decided is not None and not entry.utility:
            return decided is not Decision.ALWAYS
        return needs_approval(entry, server)

    async def __call__(self, call: ToolCall, proceed: Proceed) -> Result:
        entry = call.entry
        decided = self._decided(entry)
        if decided is Decision.ALWAYS:
            return await proceed(call)
        if decided is Decision.NEVER:
            return self._approvals.blocked(entry)
        refusal = await self._approvals.approve(entry, call.server, call.arguments)
        if refusal is None and self._recheck is not None:
            refusal = await self._recheck(call)
        if refusal is not None:
            return refusal
        if call.intercepted is not None:
            call.intercepted.approved_by = "user"
        return await proceed(call)
