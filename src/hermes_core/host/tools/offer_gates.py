"""Whether a server's tools may be offered: connected AND its declared app is offerable.

``ServerGate.check(server)`` is a plain, cached ``bool``.  The cache is
cleared whenever a declaration is registered or removed and whenever a
connection changes state, so an agent sees an app appear or disappear at once.

Only a declared server needs hermes_platform's resolvers (availability, the sentences): they
are loaded when one is asked about (see :mod:`.optional`), so a host none of whose servers is
declared leaves them (and the declaration parser) unloaded; the registry itself is
:mod:`hermes_platform.declared`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hermes_core.host.optional import app_availability, app_guidance
from hermes_platform import declared

__all__ = ["GateDecision", "ServerGate"]


@dataclass(frozen=True)
class GateDecision:
    """Why a server is or is not offered (for errors and ``hermes mcp status``)."""

    offered: bool
    state: str  # connected | not_connected | <availability state>
    sentence: str | None = None
    action: str | None = None
    retry: str | None = None


class ServerGate:
    """Cached ``check(server)`` over a connectedness callback and the declaration registry."""

    def __init__(self, is_connected: Callable[[str], bool]) -> None:
        self._is_connected = is_connected
        self._lock = threading.Lock()
        self._cache: dict[str, bool] = {}
        self._generation = 0  # bumped by every invalidate: a decision taken before is not kept
        declared.add_change_listener(self.invalidate)

    def close(self) -> None:
        declared.remove_change_listener(self.invalidate)

    def invalidate(self) -> None:
        with self._lock:
            self._generation += 1
            self._cache = {}

    def check(self, server: str) -> bool:
        """The plain bool an agent's tool registry caches.

        A cached answer costs one dict read and no lock (the cache dict is replaced, never
        edited in place, by :meth:`invalidate`).  A decision taken while an invalidation
        happened is returned but not cached, so a stale answer never outlives the change.
        """
        cached = self._cache.get(server)
        if cached is not None:
            return cached
        generation = self._generation
        offered = self.decide(server).offered
        with self._lock:
            if generation == self._generation:
                self._cache[server] = offered
        return offered

    def decide(self, server: str, display_name: str | None = None) -> GateDecision:
        if not self._is_connected(server):
            return GateDecision(False, "not_connected")
        decl = declared.lookup(server)
        if decl is None:
            return GateDecision(True, "connected")
        result = app_availability(decl)
        if result.offerable:
            return GateDecision(True, "connected")
        advice = app_guidance(decl, result, display_name=display_name)
        return GateDecision(
            False,
            result.state,
            advice.sentence if advice else None,
            advice.action if advice else None,
            advice.retry if advice else None,
        )

    def error_payload(self, server: str, display_name: str | None = None) -> dict[str, Any]:
        """The structured error a call to a gated or disconnected server returns."""
        decision = self.decide(server, display_name)
        decl = declared.lookup(server)
        if decision.state == "not_connected":
            message = f"MCP server '{server}' is not connected"
            if decl is None:
                return {"error": message, "server": server, "state": "not_connected"}
            advice = app_guidance(decl, app_availability(decl), display_name=display_name)
            if advice is not None:
                return {
                    "error": advice.sentence,
                    "server": server,
                    "state": advice.state,
                    "app": {"name": display_name or server},
                    "user_action": advice.action,
                    "retry": advice.retry,
                }
            app = display_name or server
            action = f"Reconnect {app} in Hermes, then try again."
            return {
                "error": f"{app}'s MCP connection is missing. {action}",
                "server": server,
                "state": "hermes_not_connected",
                "app": {"name": app},
                "user_action": action,
                "retry": "after_user_action",
            }
        return {
            "error": decision.sentence,
            "server": server,
            "state": decision.state,
            "app": {"name": display_name or server},
            "user_action": decision.action,
            "retry": decision.retry,
        }
