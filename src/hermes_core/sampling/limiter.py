"""A sliding-window rate limit: at most N requests in any window of W seconds.

Only admitted requests count: a refused request does not push the window forward, so a
server that keeps knocking is let in again as soon as its oldest admitted request is
older than the window.  The clock is injectable (tests drive it by hand).

In a fleet of replicas (``bus:``), a limit that must hold for the whole fleet (sampling's
per-server ``max_rpm``) is also counted on the bus: :func:`set_fleet_limit` installs the
process's fleet-wide counter, and :func:`fleet_allows` asks it (no counter: allowed).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable

__all__ = ["FleetLimit", "SlidingWindowLimiter", "fleet_allows", "set_fleet_limit"]

FleetLimit = Callable[[str, int, float], Awaitable[bool]]
"""``(key, limit, window) -> admitted``: one use of *key*, counted fleet-wide."""
_fleet: list[FleetLimit] = []


def set_fleet_limit(limit: FleetLimit | None) -> None:
    """Install (``None``: remove) this process's fleet-wide counter."""
    _fleet[:] = [] if limit is None else [limit]


async def fleet_allows(key: str, limit: int, window: float) -> bool:
    """Whether one more use of *key* fits *limit* per *window* across the fleet (no fleet:
    yes; a fleet whose bus cannot be asked: no)."""
    return await _fleet[0](key, limit, window) if _fleet else True


class SlidingWindowLimiter:
    """``acquire()`` admits a request (True) or refuses it (False)."""

    def __init__(
        self,
        limit: int,
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if limit < 1 or window <= 0:
            raise ValueError("limit must be 1 or more and window positive")
        self.limit = limit
        self.window = window
        self._clock = clock
        self._admitted: deque[float] = deque()

    def _expire(self, now: float) -> None:
        while self._admitted and now - self._admitted[0] >= self.window:
            self._admitted.popleft()

    def acquire(self) -> bool:
        now = self._clock()
        self._expire(now)
        if len(self._admitted) >= self.limit:
            return False
        self._admitted.append(now)
        return True

    def in_window(self) -> int:
        """Admitted requests still inside the window."""
        self._expire(self._clock())
        return len(self._admitted)

    def retry_after(self) -> float:
        """Seconds until a request would be admitted (0 when it would be now)."""
        now = self._clock()
        self._expire(now)
        if len(self._admitted) < self.limit:
            return 0.0
        return max(0.0, self._admitted[0] + self.window - now)
