"""The trust state's changes as the bus tells them, in place of a read before every call.

Without a bus, a host asks the state database before each call whether the trust state
changed (one indexed read).  In a fleet replica whose bus is heard, :data:`FOLLOWER` answers
instead: *changed* once after each trust notice (a write anywhere announces itself,
:mod:`.publish`), and after the bus is heard again (notices may have been missed).  As a
backstop against a notice lost on its way (its sender could not reach Redis), the database is
still read once every :data:`BACKSTOP_SECONDS`; while the bus is not heard, before every call
as without a bus.  Nothing is cached that the database could contradict for longer than that:
while the database is down no write can happen, so the state followed cannot change.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["BACKSTOP_SECONDS", "FOLLOWER", "ChangeFollower"]

BACKSTOP_SECONDS = 2.0


class ChangeFollower:
    """Whether the trust state changed, told by notices (see the module)."""

    def __init__(
        self, backstop: float = BACKSTOP_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.backstop = backstop
        self._clock = clock
        self.heard: Callable[[], bool] = lambda: False
        """Whether the notices are heard now (set by the process's fleet)."""
        self._lock = threading.Lock()
        self._changed = True
        self._read_at = clock()

    def notify(self) -> None:
        """A notice said the trust state changed."""
        with self._lock:
            self._changed = True

    def changed(self) -> bool | None:
        """``True``/``False`` from the notices; ``None``: read the database this time (the
        notices are not heard, or the backstop's time came)."""
        if not self.heard():
            return None
        now = self._clock()
        with self._lock:
            if now - self._read_at >= self.backstop:
                self._read_at = now
                return None
            changed, self._changed = self._changed, False
            return changed


FOLLOWER = ChangeFollower()
"""The process's follower (a replica follows one trust state)."""
