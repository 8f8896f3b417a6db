"""The one refusal type: a call the host did not run (or whose result it could not give), and
why, built in one place and worded the same at every door.

A call's state is a :class:`CallState`; a call that gave no tool result is a :class:`CallError`
record, which every step, gate and door builds and which renders as the host's result
``{"error": SENTENCE, "server": ..., "state": STATE, ..., "retryable": ...}`` (the keys in
that order; ``retryable`` false where retrying cannot help).  :func:`refusal_of` reads which
kind of refusal a result is, whatever door it came through (``hermes mcp call`` cold or on the
warm host, ``hermes chat``, the dashboard, ``hermes mcp proxy``); every door shows the sentence
as it is (the text of :mod:`hermes_core.host.calls.result_text`) and the CLI exits 1 for every
kind (:data:`REFUSED_EXIT`), as for a failed call.

The refusals (:class:`RefusalKind`):

- ``policy``: the administrator's policy refuses the tool;
- ``never``: the user decided never to run it (``hermes mcp approvals``);
- ``not_approved``: an untrusted server's write-capable tool without the user's approval;
- ``tool_changed``: its definition changed since it was pinned (``hermes mcp trust``);
- ``app_gate``: the server's app is not installed, too old, not running … here;
- ``unknown_tool``: no server offers the name (with the close names: "did you mean");
- ``not_offered``: the server lists it but the host does not offer it (and why);
- ``fixed_argument``: the caller passed an argument the tool's override fixes
  (``tools.overrides``): refused, never silently overwritten.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from hermes_core.host.tools.close_names import did_you_mean
from hermes_core.json_types import JsonObject, JsonValue

if TYPE_CHECKING:
    from hermes_core.host.tools.registry import ToolEntry

__all__ = [
    "REFUSED_EXIT",
    "CallError",
    "CallState",
    "Refusal",
    "RefusalKind",
    "did_you_mean",
    "fixed_argument_refusal",
    "refusal_of",
    "unknown_tool",
]

#: The exit status of ``hermes mcp call`` for every refusal (cold or warm): a failed call's.
REFUSED_EXIT = 1


class CallState(StrEnum):
    """The ``state`` of a call that gave no tool result (a ``str``: the result's JSON holds
    the word).  An app gate's state is the app's availability instead (``not_installed``,
    ``too_old``, … of :mod:`hermes_platform.resolver.availability`)."""

    POLICY = "policy"
    """The administrator's policy refuses the tool."""
    BLOCKED = "blocked"
    """The user decided never to run it."""
    NOT_APPROVED = "not_approved"
    """An untrusted server's write-capable tool, not approved by the user."""
    TOOL_CHANGED = "tool_changed"
    """Its definition changed since it was pinned."""
    TRUST_UNREADABLE = "trust_unreadable"
    """The trust state could not be read, so nothing of the server is offered."""
    UNKNOWN_TOOL = "unknown_tool"
    """No server offers the name."""
    NOT_OFFERED = "not_offered"
    """The server lists it, the host does not offer it."""
    FIXED_ARGUMENT = "fixed_argument"
    """The caller passed an argument the tool's override fixes."""
    INVALID_ARGUMENTS = "invalid_arguments"
    """The arguments cannot be sent (nested too deep, a utility tool's missing URI …)."""
    REFUSED = "refused"
    """A call interceptor refused the call."""
    INTERCEPTOR_FAILED = "interceptor_failed"
    """A call interceptor raised or hung: the call failed closed."""
    CANCELLED = "cancelled"
    """The call was cancelled before it answered (what the ``after`` interceptors see)."""
    CIRCUIT_OPEN = "circuit_open"
    """The server's circuit breaker is open."""
    NOT_CONNECTED = "not_connected"
    """The server is not connected (or could not be started)."""
    NOT_RUNNING = "not_running"
    """The desktop app that serves the MCP server is not running."""
    HERMES_NOT_CONNECTED = "hermes_not_connected"
    """The app runs, but Hermes' MCP connection to it is missing."""
    PHANTOM = "phantom"
    """A tool of the tool cache the live server no longer lists."""
    INVALID_OUTPUT = "invalid_output"
    """The result did not match the tool's ``outputSchema``."""
    WARM = "warm"
    """The warm host went away during the call."""


@dataclass(frozen=True, slots=True)
class CallError:
    """A call that gave no tool result: the sentence every door shows and the facts around it.

    :meth:`result` is the host's result dict (``error``, ``server``, ``tool``, ``state``, the
    *details* in their order, ``retryable``: the keys that are set, in that order)."""

    error: str
    state: CallState | str | None = None
    """A :class:`CallState`, or an app gate's availability state."""
    server: str | None = None
    retryable: bool | None = None
    tool: str | None = None
    details: Mapping[str, JsonValue] = field(default_factory=dict)
    """What a kind adds (``interceptor``, ``reason`` and ``retry_after``, ``app`` …)."""

    def result(self) -> JsonObject:
        """The host's result for this call."""
        result: JsonObject = {"error": self.error}
        if self.server is not None:
            result["server"] = self.server
        if self.tool is not None:
            result["tool"] = self.tool
        if self.state is not None:
            result["state"] = str(self.state)
        result.update(self.details)
        if self.retryable is not None:
            result["retryable"] = self.retryable
        return result


class RefusalKind(StrEnum):
    """Why a call was not run (what the doors tell apart)."""

    POLICY = "policy"
    NEVER = "never"
    NOT_APPROVED = "not_approved"
    TOOL_CHANGED = "tool_changed"
    APP_GATE = "app_gate"
    UNKNOWN_TOOL = "unknown_tool"
    NOT_OFFERED = "not_offered"
    FIXED_ARGUMENT = "fixed_argument"


#: A refused result's ``state`` -> its kind (an app gate's states are the availability's own:
#: it is told by its ``user_action``).
_STATES: Mapping[str, RefusalKind] = {
    CallState.POLICY: RefusalKind.POLICY,
    CallState.BLOCKED: RefusalKind.NEVER,
    CallState.NOT_APPROVED: RefusalKind.NOT_APPROVED,
    CallState.TOOL_CHANGED: RefusalKind.TOOL_CHANGED,
    CallState.TRUST_UNREADABLE: RefusalKind.TOOL_CHANGED,
    CallState.UNKNOWN_TOOL: RefusalKind.UNKNOWN_TOOL,
    CallState.NOT_OFFERED: RefusalKind.NOT_OFFERED,
    CallState.FIXED_ARGUMENT: RefusalKind.FIXED_ARGUMENT,
}


@dataclass(frozen=True)
class Refusal:
    """One refused call: its kind and the sentence every door shows."""

    kind: RefusalKind
    message: str
    server: str | None = None

    @property
    def exit_code(self) -> int:
        return REFUSED_EXIT


def refusal_of(result: Mapping[str, object]) -> Refusal | None:
    """The refusal *result* is, or ``None`` (a result, or a failure that is not a refusal:
    a timeout, a server that went away)."""
    if "error" not in result or "content" in result:
        return None
    state = result.get("state")
    kind = _STATES.get(state) if isinstance(state, str) else None
    if kind is None and "user_action" in result and "app" in result:
        kind = RefusalKind.APP_GATE
    if kind is None:
        return None
    server = result.get("server")
    return Refusal(kind, str(result["error"]), server if isinstance(server, str) else None)


def unknown_tool(name: str, names: Iterable[str], hint: str = "") -> JsonObject:
    """The refusal of a call to *name*, which none of *names* is: ``unknown tool 'x'; did you
    mean …?`` plus *hint* (what the door offers instead), the same words at every door."""
    shown = name if len(name) <= 200 else name[:199] + "…"
    error = f"unknown tool {shown!r}{did_you_mean(name, names)}{hint}"
    return CallError(error, CallState.UNKNOWN_TOOL, retryable=False).result()


def fixed_argument_refusal(entry: ToolEntry, passed: Iterable[str]) -> JsonObject:
    """The refusal of a call of *entry* (a registered tool) that passed arguments its override
    fixes: the call is not sent, and the sentence names them."""
    names = ", ".join(repr(name) for name in passed)
    plural = "s" if "," in names else ""
    return CallError(
        f"The MCP tool {entry.name!r} (server '{entry.server}', its own name "
        f"{entry.tool!r}) was NOT run: the argument{plural} {names} "
        f"{'are' if plural else 'is'} fixed by the tool's override in config.yaml "
        "(tools.overrides) and may not be passed; leave "
        f"{'them' if plural else 'it'} out",
        CallState.FIXED_ARGUMENT,
        entry.server,
        retryable=False,
    ).result()
