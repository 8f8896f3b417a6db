"""The approval of a call to a write-capable tool of an untrusted server (``trust:
untrusted``): the user is asked first, and the call fails closed."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hermes_core.host.registry import ToolEntry
from hermes_core.host.spec import HostServer
from hermes_core.offers.elicitation import ElicitationRequest, Elicitor

__all__ = ["APPROVAL_ARGS_SHOWN", "Approvals", "needs_approval"]

#: How much of a call's arguments an approval question shows.
APPROVAL_ARGS_SHOWN = 500


def needs_approval(entry: ToolEntry, config: HostServer) -> bool:
    """Whether a call of *entry* is asked about: an untrusted server's tool not marked
    read-only."""
    return config.trust == "untrusted" and not entry.read_only


class Approvals:
    """Asks the user through *elicitor*; counts each server's approved and refused calls."""

    def __init__(self, elicitor: Elicitor | None) -> None:
        self._elicitor = elicitor
        self._approvals: dict[str, int] = {}
        self._approval_refusals: dict[str, int] = {}

    def counts(self, server: str) -> dict[str, int]:
        return {
            "approved": self._approvals.get(server, 0),
            "refused": self._approval_refusals.get(server, 0),
        }

    async def approve(
        self, entry: ToolEntry, config: HostServer, args: dict[str, Any]
    ) -> dict[str, Any] | None:
        """Ask the user before a write-capable tool of an untrusted server runs; ``None`` when
        approved, else the "not run" error.  Fails closed: no channel, a timeout, a declined or
        cancelled answer, or an approver that raises all mean the call is not sent."""
        shown = json.dumps(args, ensure_ascii=False, default=str)
        if len(shown) > APPROVAL_ARGS_SHOWN:
            shown = shown[: APPROVAL_ARGS_SHOWN - 1] + "…"
        request = ElicitationRequest(
            server=entry.server,
            message=(
                f"MCP server '{entry.server}' is untrusted and wants to run {entry.tool!r}, "
                f"a tool it does not mark read-only, with arguments {shown}. Run it?"
            ),
            fields=(),
            schema={"type": "object", "properties": {}},
            kind="approval",
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
                if answer.action == "accept":
                    self._approvals[entry.server] = self._approvals.get(entry.server, 0) + 1
                    return None
                why = "the user declined" if answer.action == "decline" else "the user cancelled"
        self._approval_refusals[entry.server] = self._approval_refusals.get(entry.server, 0) + 1
        return {
            "error": (
                f"The write-capable MCP tool {entry.tool!r} on untrusted server "
                f"'{entry.server}' was NOT run: {why}. Do not retry without explicit user "
                "direction."
            ),
            "server": entry.server,
            "state": "not_approved",
            "retryable": False,
        }
