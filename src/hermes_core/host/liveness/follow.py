"""Following desktop apps as they start and quit: one poller per host.

Every :data:`POLL_SECONDS` the host's one follower task looks at the runtime file of each
server whose declaration has ``liveness`` (:func:`~.endpoint.live_endpoint`: a stat and a read
of at most 64 KiB, no socket, no thread).  When what it finds differs from what the server's
connection was started with — the app started, quit, or came back with another pid, port or
token — it asks the host to start the server again (:meth:`ServerRunner.restart`): its tools
are withdrawn at once (downstream clients hear ``tools/list_changed``), and the server is
connected to the new endpoint, or left ``not running``.  A runtime file rewritten faster than
the poll is simply read once a poll: at most one restart a poll per server.

The restart starts as soon as the poll sees the change (a task of its own, so one slow app
never delays the others), so an app that comes back on a new port with a new token is offered
again one poll plus one connect after it wrote its file: within 2 s on a quiet machine.
:attr:`AppFollower.polls` counts the polls done and :meth:`AppFollower.polled` waits for more
(what a test waits on instead of a clock).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import TYPE_CHECKING

from hermes_core.host.optional import has_liveness, live_endpoint
from hermes_core.host.server_spec import HostServer
from hermes_platform import declared

if TYPE_CHECKING:
    from hermes_core.host.liveness.endpoint import LiveEndpoint, NotRunning

__all__ = ["POLL_SECONDS", "AppFollower"]

log = logging.getLogger(__name__)

#: How often each runtime file is looked at.
POLL_SECONDS = 1.0

_UNSEEN = ("unseen",)


class AppFollower:
    """Remembers what each liveness server was started with and restarts it on a change."""

    def __init__(
        self,
        servers: Mapping[str, HostServer],
        restart: Callable[[str], Awaitable[None]],
        spawn: Callable[[Coroutine[object, object, None], str], asyncio.Task[None] | None],
        *,
        interval: float = POLL_SECONDS,
    ) -> None:
        self._servers = servers
        self._restart = restart
        self._spawn = spawn
        self.interval = interval
        self._seen: dict[str, object] = {}
        self._reasons: dict[str, str] = {}
        self._restarting: set[str] = set()
        self._task: asyncio.Task[None] | None = None
        self.polls = 0
        """How many polls have finished."""
        self._ticked = asyncio.Event()

    def applies(self, name: str) -> bool:
        """Whether *name* is served by a desktop app this host follows."""
        decl = declared.lookup(name)  # (no declaration: nothing of the platform is loaded)
        return decl is not None and name in self._servers and has_liveness(decl)

    def observe(self, name: str) -> LiveEndpoint | NotRunning | None:
        """Read *name*'s runtime file now and remember it as what its connection starts with
        (``None``: its declaration has no liveness here)."""
        seen = live_endpoint(name)
        self._seen[name] = None if seen is None else seen.key
        if seen is not None and not seen.running:
            self._reasons[name] = seen.reason  # type: ignore[union-attr]
        else:
            self._reasons.pop(name, None)
        return seen

    def not_running(self, name: str) -> str | None:
        """Why *name*'s app counts as not running (``None``: running, or not followed).

        Asked when *name* is not connected: when no poll has said why yet (the app quit and
        its connection broke before the next poll), its runtime file is read now, so a call
        in between is refused with "not running", not with a connection error; the next poll
        restarts the server as usual."""
        if not self.applies(name):
            return None
        reason = self._reasons.get(name)
        if reason is None and name not in self._restarting:
            seen = live_endpoint(name)
            if seen is not None and not seen.running:
                reason = self._reasons[name] = seen.reason  # type: ignore[union-attr]
        return reason

    def forget(self, name: str) -> None:
        self._seen.pop(name, None)
        self._reasons.pop(name, None)

    def follow(self) -> None:
        """Start the poller (once), when some server is served by a desktop app."""
        if self._task is not None and not self._task.done():
            return
        if not any(self.applies(name) for name in self._servers):
            return
        self._task = self._spawn(self._poll(), "desktop apps")

    async def polled(self, count: int = 1) -> int:
        """Return once *count* more polls have finished (the number of polls then)."""
        target = self.polls + count
        while self.polls < target:
            await self._ticked.wait()
        return self.polls

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            self._look()
            self.polls += 1
            ticked, self._ticked = self._ticked, asyncio.Event()
            ticked.set()

    def _look(self) -> None:
        """One poll: start a restart for each followed server whose app changed."""
        for name in list(self._servers):
            if not self.applies(name) or not self._servers[name].enabled:
                continue
            if name in self._restarting:
                continue  # it reads the file itself when it starts
            seen = live_endpoint(name)
            key = seen.key if seen is not None else None
            if key == self._seen.get(name, _UNSEEN):
                continue
            if seen is not None and not seen.running:
                self._reasons[name] = seen.reason  # type: ignore[union-attr]
            self._restarting.add(name)
            self._spawn(self._restart_one(name), f"follow the app of '{name}'")

    async def _restart_one(self, name: str) -> None:
        try:
            await self._restart(name)
        except Exception as exc:  # noqa: BLE001 - following one app must never stop the others
            log.warning("MCP server '%s': following its app failed: %s", name, exc)
        finally:
            self._restarting.discard(name)
