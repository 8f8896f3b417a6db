"""A call that waited for the user's approval is decided again before it is sent.

The question may stay on the user's screen for minutes; meanwhile an administrator may deny
the tool in the policy file, the user may decide ``never`` for it in another terminal or on the
dashboard, its pinned definition may change, or its server may be removed from the config.
The approval says yes to the call as it was asked about, not to what no longer holds, so once
the answer is in, the host catches up with those files and decides the call again on the same
rules as any new call: the policy, the remembered decision, the tool still offered by the same
server.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from hermes_core.host.calls.call import Result, ToolCall
from hermes_core.host.calls.refusals import CallError, CallState
from hermes_core.host.calls.steps import policy_refused
from hermes_core.host.server_spec import HostServer
from hermes_core.host.tools.registry import ToolEntry
from hermes_core.host.trust.decisions import Decision

__all__ = ["Recheck"]


class Recheck:
    """Decides an approved call again (``ApproveStep``'s *recheck*)."""

    def __init__(
        self,
        catch_up: Callable[[], Awaitable[None]],
        resolve: Callable[[str], tuple[ToolEntry, HostServer] | None],
        refusal: Callable[[str], Result | None],
        unoffered: Callable[[str], str | None],
        decision: Callable[[str, str], Decision | None],
        blocked: Callable[[ToolEntry], Result],
    ) -> None:
        """*catch_up()* applies what changed on disk (config, policy, trust state);
        *resolve(name)* is the entry registered now and its server's config; *refusal(name)*
        why a name that is not registered is held back (policy, pins, decisions);
        *unoffered(name)* why the host does not offer it; *decision(server, tool)* the
        remembered decision; *blocked(entry)* the refusal of a ``never``."""
        self._catch_up = catch_up
        self._resolve = resolve
        self._refusal = refusal
        self._unoffered = unoffered
        self._decision = decision
        self._blocked = blocked

    async def __call__(self, call: ToolCall) -> Result | None:
        """The refusal of *call* under what holds now, or ``None`` to send it."""
        await self._catch_up()
        asked = call.entry
        found = self._resolve(call.name)
        if found is None or found[0].server != asked.server or found[0].tool != asked.tool:
            held = self._refusal(call.name)
            if held is not None:
                return held
            why = self._unoffered(call.name)
            return CallError(
                f"The MCP tool {asked.tool!r} of server '{asked.server}' was NOT run: "
                "it is no longer offered" + (f" ({why})" if why else ""),
                CallState.NOT_OFFERED,
                asked.server,
                retryable=False,
            ).result()
        entry, server = found
        refused = policy_refused(entry, server)
        if refused is not None:
            return refused
        if self._decision(entry.server, entry.tool) is Decision.NEVER:
            return self._blocked(entry)
        return None
