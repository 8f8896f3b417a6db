"""The approval of a call to a write-capable tool of an untrusted server (``trust:
untrusted``): the user is asked first, and the call fails closed."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping

from hermes_core.host.calls.refusals import CallError, CallState
from hermes_core.host.server_spec import HostServer
from hermes_core.host.tools.registry import ToolEntry
from hermes_core.host.trust.decisions import Decision
from hermes_core.json_types import JsonObject
from hermes_core.offers.elicitation import ElicitationRequest, Elicitor

__all__ = ["APPROVAL_ARGS_SHOWN", "Approvals", "Remember", "needs_approval"]

#: Keeps a decision given at the prompt: (server, tool, decision).
Remember = Callable[[str, str, Decision], None]

#: How much of a call's arguments an approval question shows.
APPROVAL_ARGS_SHOWN = 500


def needs_approval(entry: ToolEntry, config: HostServer) -> bool:
    """Whether a call of *entry* is asked about: an untrusted server's tool not marked
    read-only."""
    return config.trust == "untrusted" and not entry.read_only


class Approvals:
    """Asks the user through *elicitor*; counts each server's approved and refused calls."""

    def __init__(self, elicitor: Elicitor | None, *, remember: Remember | None = None) -> None:
        """*remember(server, tool, decision)* keeps an "always" or "never" answer (a host
        with a trust store); without it, the question offers only yes and no."""
        self._elicitor = elicitor
        self._remember = remember
        self._approvals: dict[str, int] = {}
        self._approval_refusals: dict[str, int] = {}

    def counts(self, server: str) -> dict[str, int]:
        return {
            "approved": self._approvals.get(server, 0),
            "refused": self._approval_refusals.get(server, 0),
        }

    async def approve(
        self, entry: ToolEntry, config: HostServer, args: Mapping[str, object]
    ) -> JsonObject | None:
        """Ask the user before a write-capable tool of an untrusted server runs; ``None`` when
        approved, else the "not run" error.  Fails closed: no channel, a timeout, a declined or
        cancelled answer, or an approver that raises all mean the call is not sent."""
        shown = json.dumps(args, ensure_ascii=False, default=str)
        if len(shown) > APPROVAL_ARGS_SHOWN:
            shown = shown[: APPROVAL_ARGS_SHOWN - 1] + "…"
        request = ElicitationRequest(
            server=entry.server,
            message=(
                f"MCP server '{entry.server}' is untrusted and wants to run {_named(entry)}, "
                f"a tool it does not mark read-only, with arguments {shown}{_fixed(entry)}. "
                "Run it?"
            ),
            fields=(),
            schema={"type": "object", "properties": {}},
            kind="approval",
            remember=self._remember is not None,
        )
        why = "there is no one to ask (no approval channel)"
        if self._elicitor is not None:
            try:
                answer = await asyncio.wait_for(self._elicitor(request), config.elicitation.timeout)
            except TimeoutError:
                why = f"no answer within {config.elicitation.timeout:g} s"
            except Exception as exc:  # noqa: BLE001 - an approver that fails blocks the call
                why = f"the approval failed ({type(exc).__name__})"
            else:
                kept = _remembered(getattr(answer, "content", None))
                agrees = (kept is Decision.ALWAYS) == (answer.action == "accept")
                if kept is not None and self._remember is not None and agrees:
                    self._remember(entry.server, entry.tool, kept)
                if answer.action == "accept":
                    self._approvals[entry.server] = self._approvals.get(entry.server, 0) + 1
                    return None
                why = "the user declined" if answer.action == "decline" else "the user cancelled"
        self._approval_refusals[entry.server] = self._approval_refusals.get(entry.server, 0) + 1
        return CallError(
            f"The write-capable MCP tool {_named(entry)} on untrusted server "
            f"'{entry.server}' was NOT run: {why}. Do not retry without explicit user "
            "direction.",
            CallState.NOT_APPROVED,
            entry.server,
            retryable=False,
        ).result()

    def blocked(self, entry: ToolEntry) -> JsonObject:
        """The refusal of a tool the user decided never to run."""
        self._approval_refusals[entry.server] = self._approval_refusals.get(entry.server, 0) + 1
        return CallError(
            f"The MCP tool {entry.tool!r} of server '{entry.server}' was NOT run: you "
            f"decided never to run it (hermes mcp approvals set {entry.server} "
            f"{entry.tool} ask to allow it again)",
            CallState.BLOCKED,
            entry.server,
            retryable=False,
        ).result()


def _named(entry: ToolEntry) -> str:
    """The tool in an approval question: both names when an override renamed it."""
    if entry.override is None:
        return repr(entry.tool)
    return f"{entry.name!r} (its own name {entry.tool!r})"


def _fixed(entry: ToolEntry) -> str:
    """Which of the arguments shown the override fixes (``config.yaml``, not the caller)."""
    if entry.override is None or not entry.override.fixed:
        return ""
    return f" ({', '.join(entry.override.fixed)} fixed by config.yaml tools.overrides)"


def _remembered(content: object) -> Decision | None:
    """The "always"/"never" an approval's answer asks to keep (``{"remember": ...}``)."""
    value = content.get("remember") if isinstance(content, Mapping) else None
    if value in (Decision.ALWAYS.value, Decision.NEVER.value):
        return Decision(value)
    return None
