"""The per-server circuit breaker: stop sending calls to a server that keeps failing.

Consecutive failed calls are *strikes*: a transport failure, a timeout or "not connected"
(``transport``), or a tool result the server marked as an error (``application``: the server is
reachable but rejects what it is asked).  ``threshold`` strikes in a row open the breaker; while
it is open a call returns at once, without touching the server, with an error that tells an agent
not to repeat the same call, and whether the server is unreachable or rejecting its arguments.
After ``cooldown`` seconds the breaker is *half-open*: one call goes through as a probe (others
are still refused while it runs); its success closes the breaker, its failure opens it again for
another cooldown.  A successful call resets the count.  Utility tools do not consult it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from hermes_core.host.calls.refusals import CallError, CallState
from hermes_core.host.server_spec import HostServer
from hermes_core.json_types import JsonObject

__all__ = ["BreakerState", "Breakers", "CircuitBreaker", "Outcome"]

Outcome = Literal["ok", "transport", "application"]
BreakerState = Literal["closed", "open", "half_open"]


@dataclass
class _Strikes:
    total: int = 0
    application: int = 0


class CircuitBreaker:
    """One server's breaker; *clock* is a monotonic clock in seconds (injectable for tests).

    Not thread-safe by itself: the host uses it from its event loop only.
    """

    def __init__(
        self,
        server: str,
        *,
        threshold: int = 3,
        cooldown: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if threshold < 1 or cooldown <= 0:
            raise ValueError("threshold must be >= 1 and cooldown > 0")
        self.server = server
        self.threshold = threshold
        self.cooldown = cooldown
        self._clock = clock
        self._strikes = _Strikes()
        self._opened_at: float | None = None
        self._probing = False
        self.opened = 0
        """How many times the breaker has opened (for status)."""
        self.refused = 0
        """Calls answered by the open breaker without reaching the server."""

    # -- state -------------------------------------------------------------------------------
    @property
    def state(self) -> BreakerState:
        if self._opened_at is None:
            return "closed"
        if self._clock() - self._opened_at >= self.cooldown:
            return "half_open"
        return "open"

    @property
    def strikes(self) -> int:
        return self._strikes.total

    def retry_in(self) -> float:
        """Seconds until a probe may go through (0 when closed or half-open)."""
        if self._opened_at is None:
            return 0.0
        return max(0.0, self.cooldown - (self._clock() - self._opened_at))

    # -- calls -------------------------------------------------------------------------------
    def admit(self) -> JsonObject | None:
        """``None`` when a call may go to the server now, else the error to return instead.

        In the half-open state the first caller becomes the probe; it must report its outcome
        with :meth:`record` (the host does so in a ``finally``).
        """
        if self._opened_at is None:  # closed (the usual case, without the property's call)
            return None
        state = self.state
        if state == "half_open" and not self._probing:
            self._probing = True
            return None
        self.refused += 1
        return self.refusal()

    def record(self, outcome: Outcome) -> None:
        """The outcome of an admitted call."""
        self._probing = False
        if outcome == "ok":
            if self._strikes.total:
                self._strikes = _Strikes()
            self._opened_at = None
            return
        self._strikes.total += 1
        if outcome == "application":
            self._strikes.application += 1
        half_open = self._opened_at is not None
        if half_open or self._strikes.total >= self.threshold:
            if not half_open:
                self.opened += 1
            self._opened_at = self._clock()

    def release(self) -> None:
        """An admitted call ended without an outcome (e.g. cancelled): free the probe slot."""
        self._probing = False

    def refusal(self) -> JsonObject:
        strikes = self._strikes.total
        wait = max(1, round(self.retry_in()))
        if strikes and self._strikes.application == strikes:
            reason = "rejecting"
            error = (
                f"MCP server '{self.server}' rejected the last {strikes} calls (it is "
                "reachable; see the errors those calls returned). Paused for about "
                f"{wait} s. Do NOT repeat the same call: fix the arguments or the target, "
                "or take a different approach."
            )
        else:
            reason = "unreachable"
            error = (
                f"MCP server '{self.server}' is unreachable after {strikes} consecutive "
                f"failures. Calls resume in about {wait} s. Do NOT retry this tool yet: use "
                "another approach or ask the user to check the server."
            )
        return CallError(
            error,
            CallState.CIRCUIT_OPEN,
            self.server,
            retryable=False,
            details={"reason": reason, "retry_after": wait},
        ).result()

    def snapshot(self) -> JsonObject:
        """The breaker as ``hermes mcp status --json`` shows it."""
        return {
            "state": self.state,
            "strikes": self._strikes.total,
            "application_strikes": self._strikes.application,
            "threshold": self.threshold,
            "cooldown": self.cooldown,
            "retry_in": round(self.retry_in(), 1),
            "opened": self.opened,
            "refused": self.refused,
        }


class Breakers:
    """Every server's breaker, made again when the server's breaker settings change."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._breakers: dict[str, CircuitBreaker] = {}

    def of(self, config: HostServer) -> CircuitBreaker:
        """The breaker of the server *config* describes."""
        breaker = self._breakers.get(config.name)
        if (
            breaker is None
            or breaker.threshold != config.breaker_threshold
            or breaker.cooldown != config.breaker_cooldown
        ):
            breaker = CircuitBreaker(
                config.name,
                threshold=config.breaker_threshold,
                cooldown=config.breaker_cooldown,
                clock=self._clock,
            )
            self._breakers[config.name] = breaker
        return breaker
