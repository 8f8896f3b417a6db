"""The one refusal type: a call the host did not run, and why, worded the same at every door.

A refused call is a host result ``{"error": SENTENCE, "state": STATE, ...}`` (``retryable``
false where retrying cannot help).  :func:`refusal_of` reads which kind of refusal a result
is, whatever door it came through (``hermes mcp call`` cold or on the warm host, ``hermes
chat``, the dashboard, ``hermes mcp proxy``); every door shows the sentence as it is (the
text of :mod:`hermes_core.host.calls.result_text`) and the CLI exits 1 for every kind
(:data:`REFUSED_EXIT`), as for a failed call.

The kinds:

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
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from hermes_core.host.tools.close_names import did_you_mean
from hermes_core.host.tools.registry import ToolEntry

__all__ = [
    "REFUSED_EXIT",
    "Refusal",
    "RefusalKind",
    "did_you_mean",
    "fixed_argument_refusal",
    "refusal_of",
    "unknown_tool",
]

#: The exit status of ``hermes mcp call`` for every refusal (cold or warm): a failed call's.
REFUSED_EXIT = 1


class RefusalKind(StrEnum):
    """Why a call was not run."""

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
_STATES = {
    "policy": RefusalKind.POLICY,
    "blocked": RefusalKind.NEVER,
    "not_approved": RefusalKind.NOT_APPROVED,
    "tool_changed": RefusalKind.TOOL_CHANGED,
    "trust_unreadable": RefusalKind.TOOL_CHANGED,
    "unknown_tool": RefusalKind.UNKNOWN_TOOL,
    "not_offered": RefusalKind.NOT_OFFERED,
    "fixed_argument": RefusalKind.FIXED_ARGUMENT,
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


def refusal_of(result: Mapping[str, Any]) -> Refusal | None:
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


def unknown_tool(name: str, names: Iterable[str], hint: str = "") -> dict[str, Any]:
    """The refusal of a call to *name*, which none of *names* is: ``unknown tool 'x'; did you
    mean …?`` plus *hint* (what the door offers instead), the same words at every door."""
    shown = name if len(name) <= 200 else name[:199] + "…"
    error = f"unknown tool {shown!r}{did_you_mean(name, names)}{hint}"
    return {"error": error, "state": RefusalKind.UNKNOWN_TOOL.value, "retryable": False}


def fixed_argument_refusal(entry: ToolEntry, passed: Iterable[str]) -> dict[str, Any]:
    """The refusal of a call of *entry* (a registered tool) that passed arguments its override
    fixes: the call is not sent, and the sentence names them."""
    names = ", ".join(repr(name) for name in passed)
    plural = "s" if "," in names else ""
    return {
        "error": f"The MCP tool {entry.name!r} (server '{entry.server}', its own name "
        f"{entry.tool!r}) was NOT run: the argument{plural} {names} "
        f"{'are' if plural else 'is'} fixed by the tool's override in config.yaml "
        "(tools.overrides) and may not be passed; leave "
        f"{'them' if plural else 'it'} out",
        "server": entry.server,
        "state": RefusalKind.FIXED_ARGUMENT.value,
        "retryable": False,
    }
