"""What the trust state holds back of a server's listing: tools whose definition changed since
it was pinned (until ``hermes mcp trust``), tools the user decided ``never`` to run, and —
when trust.db cannot be read — everything (fail closed).

Pins are written from live listings only: a lazy server's cache record is checked against the
pins (a cached tool that differs from its pin is held back), but it never pins anything, so a
record edited by hand can neither stand in for a pin nor replace one.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from hermes_core.host.server_spec import HostServer
from hermes_core.host.tools.listing import tool_name
from hermes_core.host.trust.decisions import Decision
from hermes_core.host.trust.definitions import (
    SHOWN_DIGEST,
    DigestedTool,
    changes,
    digest_of,
    stored,
)
from hermes_core.host.trust.identity import PinnedNames, name_key
from hermes_core.host.trust.state import TrustState
from hermes_core.host.trust.store import TrustStore, TrustStoreError
from hermes_core.json_types import JsonObject
from hermes_core.sanitize import clean_line

__all__ = ["Refusal", "RefusalKind", "TrustScreen", "identity_of"]

log = logging.getLogger(__name__)


class RefusalKind(StrEnum):
    """Why the trust state holds a tool back (the ``state`` of a refused call)."""

    CHANGED = "tool_changed"
    BLOCKED = "blocked"
    UNREADABLE = "trust_unreadable"


@dataclass(frozen=True)
class Refusal:
    """One tool held back, and why."""

    server: str
    tool: str
    kind: RefusalKind
    reason: str
    """One line: what ``status`` and ``tools`` show, and the start of a refused call's error."""
    details: tuple[str, ...] = field(default=())
    """For a changed tool: what changed, one line per part."""
    digest: str = ""
    """For a changed tool: the digest of its new definition (what ``hermes mcp trust`` is
    given, to accept that definition and no other)."""
    replaces: str = ""
    """For a changed tool of another name: the pinned tool whose name (as the agent sees it)
    it takes (``read_file`` for ``read-file``)."""

    def payload(self) -> JsonObject:
        """The result of a call to the tool.  It goes to the model, so a changed tool's new
        text is not in it (an injected instruction stays unread until the user accepts it):
        it names the parts that changed, and the user sees the diff in ``hermes mcp trust``."""
        head = f"The MCP tool {self.tool!r} of server '{self.server}' was NOT run: "
        result: JsonObject = {"server": self.server, "state": self.kind.value}
        if self.kind is RefusalKind.CHANGED:
            parts = list(dict.fromkeys(line.partition(":")[0] for line in self.details))
            what = (
                f"it is not the tool pinned under this name ({self.replaces!r})"
                if self.replaces
                else "its definition changed since it was pinned"
            )
            result["error"] = head + (
                f"{what} ({', '.join(parts)}). The user "
                f"must review the change and accept it (hermes mcp trust {self.server} "
                f"{clean_line(self.tool)}); do not retry before."
            )
            result["changed"] = [*parts]
        else:
            result["error"] = head + self.reason
        result["retryable"] = False
        return result


def identity_of(config: HostServer) -> str:
    """Where *config* reaches its server (hashed): pins belong to that server, so pointing the
    entry somewhere else pins the new server's tools afresh."""
    if config.identity is not None:
        return config.identity
    shape = [config.transport, config.command, list(config.args), config.url, config.cwd]
    return hashlib.sha256(json.dumps(shape).encode()).hexdigest()[:32]


class TrustScreen:
    """Screens listings against *store*; keeps each server's held-back tools."""

    def __init__(self, store: TrustState) -> None:
        self.store = store
        self.refusals: dict[str, dict[str, Refusal]] = {}
        """Server -> tool -> why it is held back (as of its last screening)."""
        self._decisions: dict[str, dict[str, Decision]] | None = None
        """Server -> name key -> decision (see ``identity.py``)."""
        self._digests: dict[str, dict[str, tuple[Mapping[str, object], str]]] = {}

    def reload(self) -> None:
        """Read the decisions again on the next use (another process may have changed them)."""
        self._decisions = None

    def decide(self, server: str, tool: str, decision: Decision) -> str | None:
        """Remember *decision* for *tool* of *server*; why it could not be kept, or ``None``."""
        try:
            self.store.decide(server, tool, decision)
        except TrustStoreError as exc:
            return str(exc)
        self._decisions = None
        return None

    def decision(self, server: str, tool: str) -> Decision | None:
        """The remembered decision for *tool* of *server*, by the name the agent sees (a
        decision for ``read_file`` holds for ``read-file``); ``None``: none, or unreadable."""
        try:
            return self._all_decisions().get(server, {}).get(name_key(tool))
        except TrustStoreError:
            return None

    def _all_decisions(self) -> dict[str, dict[str, Decision]]:
        if self._decisions is None:
            by_key: dict[str, dict[str, Decision]] = {}
            for server, tools in self.store.decisions().items():
                mine = by_key.setdefault(server, {})
                for tool, decision in tools.items():
                    key = name_key(tool)
                    # Two spellings decided (a file of an older Hermes): the stricter holds.
                    current = mine.get(key)
                    if current is None or _STRICTNESS[decision] > _STRICTNESS[current]:
                        mine[key] = decision
            self._decisions = by_key
        return self._decisions

    def screen(
        self, config: HostServer, tools: Sequence[Mapping[str, object]], *, live: bool
    ) -> dict[str, Refusal]:
        """The tools of *config*'s listing to hold back (tool name -> why); a *live* listing
        pins the tools not pinned yet and records the changed ones."""
        server = config.name
        try:
            refused = self._screen(config, tools, live=live)
        except TrustStoreError as exc:
            todo = (
                "fix or remove the file"
                if isinstance(self.store, TrustStore)
                else "its tools come back when the state database answers again"
            )
            reason = f"the trust state cannot be read ({exc}); {todo}"
            log.warning("MCP server '%s': no tool offered: %s", server, reason)
            refused = {
                tool_name(tool): Refusal(server, tool_name(tool), RefusalKind.UNREADABLE, reason)
                for tool in tools
            }
        self.refusals[server] = refused
        return refused

    def forget(self, server: str) -> None:
        self.refusals.pop(server, None)
        self._digests.pop(server, None)

    def _screen(
        self, config: HostServer, tools: Sequence[Mapping[str, object]], *, live: bool
    ) -> dict[str, Refusal]:
        server = config.name
        mine = self._all_decisions().get(server, {})
        refused: dict[str, Refusal] = {}
        for tool in tools:
            name = tool_name(tool)
            if mine.get(name_key(name)) is Decision.NEVER:
                refused[name] = Refusal(
                    server,
                    name,
                    RefusalKind.BLOCKED,
                    "blocked: you decided never to run it "
                    f"(hermes mcp approvals set {server} {name} ask to allow it again)",
                )
        if config.pin:
            self._check_pins(
                config, [t for t in tools if tool_name(t) not in refused], refused, live
            )
        return refused

    def _check_pins(
        self,
        config: HostServer,
        tools: Sequence[Mapping[str, object]],
        refused: dict[str, Refusal],
        live: bool,
    ) -> None:
        server = config.name
        identity = identity_of(config)
        known = self.store.identity(server)
        pins = self.store.digests(server) if known == identity else {}
        names = PinnedNames(pins)
        digests = self._digests.setdefault(server, {})
        fresh: list[DigestedTool] = []
        # (tool, its digest, the listed tool, the pinned tool it is compared with)
        changed: list[tuple[str, str, Mapping[str, object], str]] = []
        matching: list[str] = []
        for tool in tools:
            name = tool_name(tool)
            memo = digests.get(name)
            if memo is not None and memo[0] is tool:
                digest = memo[1]
            else:
                digest = digest_of(tool)
                digests[name] = (tool, digest)
            # A tool of a new name is pinned; one that is the pinned tool of its name, or
            # another tool under that name (read-file for read_file), is compared with it.
            against = names.compared_with(name)
            if against is None:
                fresh.append((name, digest, tool))
            elif pins[against] == digest:
                matching.append(name)
            else:
                changed.append((name, digest, tool, against))
        if live and (fresh or known != identity):
            self.store.pin(server, identity, fresh)
            pins = self.store.digests(server)  # another process may have pinned first
            names = PinnedNames(pins)
            for name, digest, tool in fresh:
                against = names.compared_with(name)
                if against is not None and pins[against] != digest:
                    changed.append((name, digest, tool, against))
        definitions = self.store.pins(server) if changed else {}
        for name, digest, tool, against in changed:
            pin = definitions.get(against)
            details = (
                tuple(changes(pin.stored, stored(tool))) if pin else ("the definition changed",)
            )
            accept = f"hermes mcp trust {shlex.quote(server)} {shlex.quote(clean_line(name))}"
            refused[name] = Refusal(
                server,
                name,
                RefusalKind.CHANGED,
                "held back: "
                + (
                    "its definition changed since it was pinned ("
                    if against == name
                    else f"it takes the name of the pinned tool {clean_line(against)!r} ("
                )
                + "; ".join(details)
                + f"); review it and accept it with: {accept} --digest {digest[:SHOWN_DIGEST]}",
                details,
                digest,
                "" if against == name else against,
            )
        if live:
            if changed:
                log.warning(
                    "MCP server '%s': tools changed since they were pinned, held back: %s",
                    server,
                    ", ".join(clean_line(change[0]) for change in changed),
                )
                self.store.record_changes(server, [(n, d, t) for n, d, t, _ in changed])
            waiting = self.store.waiting(server)
            self.store.clear_changes(server, [name for name in matching if name in waiting])


#: Which of two decisions for one name holds (the stricter).
_STRICTNESS = {Decision.ALWAYS: 0, Decision.ASK: 1, Decision.NEVER: 2}
