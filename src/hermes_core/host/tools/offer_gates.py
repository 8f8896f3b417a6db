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

from hermes_core.host.calls.refusals import CallError, CallState
from hermes_core.host.liveness.words import app_label, not_running_sentence, start_action
from hermes_core.host.optional import app_availability, app_guidance
from hermes_core.json_types import JsonObject
from hermes_platform import declared

__all__ = ["GateDecision", "ServerGate"]


@dataclass(frozen=True)
class GateDecision:
    """Why a server is or is not offered (for errors and ``hermes mcp status``)."""

    offered: bool
    state: str  # connected | not_connected | not_running | <availability state>
    sentence: str | None = None
    action: str | None = None
    retry: str | None = None


class ServerGate:
    """Cached ``check(server)`` over a connectedness callback and the declaration registry."""

    def __init__(self, is_connected: Callable[[str], bool]) -> None:
        self._is_connected = is_connected
        self._not_running: Callable[[str], str | None] = lambda _server: None
        self._lock = threading.Lock()
        self._cache: dict[str, bool] = {}
        self._generation = 0  # bumped by every invalidate: a decision taken before is not kept
        declared.add_change_listener(self.invalidate)

    def close(self) -> None:
        declared.remove_change_listener(self.invalidate)

    def follow_apps(self, not_running: Callable[[str], str | None]) -> None:
        """*not_running(server)*: why a server's desktop app is not running (``None``: it runs,
        or the server has none); such a server is ``not_running``, not ``not_connected``."""
        self._not_running = not_running
        self.invalidate()

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
            if self._not_running(server) is not None:
                sentence = not_running_sentence(server, display_name)
                action = start_action(server, display_name)
                return GateDecision(
                    False, CallState.NOT_RUNNING, sentence, action, "after_user_action"
                )
            return GateDecision(False, CallState.NOT_CONNECTED)
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

    def error_payload(self, server: str, display_name: str | None = None) -> JsonObject:
        """The structured error a call to a gated or disconnected server returns."""
        decision = self.decide(server, display_name)
        decl = declared.lookup(server)
        if decision.state == CallState.NOT_RUNNING:
            return _app_gate(
                decision.sentence or _unavailable(server, decision.state),
                server,
                CallState.NOT_RUNNING,
                app_label(server, display_name),
                decision.action,
                decision.retry,
                retryable=False,
            )
        if decision.state == CallState.NOT_CONNECTED:
            message = f"MCP server '{server}' is not connected"
            if decl is None:
                return CallError(message, CallState.NOT_CONNECTED, server).result()
            advice = app_guidance(decl, app_availability(decl), display_name=display_name)
            if advice is not None:
                app = display_name or server
                return _app_gate(
                    advice.sentence, server, advice.state, app, advice.action, advice.retry
                )
            app = display_name or server
            action = f"Reconnect {app} in Hermes, then try again."
            return _app_gate(
                f"{app}'s MCP connection is missing. {action}",
                server,
                CallState.HERMES_NOT_CONNECTED,
                app,
                action,
                "after_user_action",
            )
        return _app_gate(
            decision.sentence or _unavailable(server, decision.state),
            server,
            decision.state,
            display_name or server,
            decision.action,
            decision.retry,
        )


def _unavailable(server: str, state: str) -> str:
    """The sentence of a gate whose app gave none (every refusal has one)."""
    return f"MCP server '{server}' is not available here ({state})"


def _app_gate(
    error: str,
    server: str,
    state: str,
    app: str,
    action: str | None,
    retry: str | None,
    *,
    retryable: bool | None = None,
) -> JsonObject:
    """The refusal of a call whose server's app is not offerable: what the user must do."""
    details: JsonObject = {"app": {"name": app}, "user_action": action, "retry": retry}
    return CallError(error, state, server, retryable, details=details).result()
