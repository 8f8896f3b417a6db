"""Getting a server back: reconnecting in the background, and when a stdio server is recycled."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable

from hermes_core.host.connection.errors import ServerError
from hermes_core.host.connection.state import ConnectionStatus
from hermes_core.host.supervisor import TaskSupervisor

__all__ = ["RECONNECT_BASE_SECONDS", "RECONNECT_CAP_SECONDS", "Reconnector", "recycle_due"]

RECONNECT_BASE_SECONDS = 1.0
RECONNECT_CAP_SECONDS = 60.0


class Reconnector:
    """Reconnects one server in the background, with capped exponential backoff and jitter,
    until it is connected or closed; ``status.next_retry_in`` shows the wait."""

    def __init__(
        self,
        tasks: TaskSupervisor,
        status: ConnectionStatus,
        *,
        connect: Callable[[], Awaitable[None]],
        connected: Callable[[], bool],
        closed: Callable[[], bool],
        reconnected: Callable[[], Awaitable[None]],
    ) -> None:
        """*connect* makes one attempt (raising :class:`ServerError`); *reconnected* runs
        once it succeeded."""
        self._tasks = tasks
        self._status = status
        self._connect = connect
        self._connected = connected
        self._closed = closed
        self._reconnected = reconnected
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def schedule(self) -> None:
        """Start reconnecting, unless closed or already under way."""
        if self._closed() or self.running:
            return
        self._task = self._tasks.spawn(self._loop(), name="reconnect")

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _loop(self) -> None:
        attempt = 0
        status = self._status
        while not self._closed() and not self._connected():
            delay = min(RECONNECT_CAP_SECONDS, RECONNECT_BASE_SECONDS * 2**attempt)
            status.next_retry_in = delay * random.uniform(0.5, 1.0)
            await asyncio.sleep(status.next_retry_in)
            try:
                await self._connect()
            except ServerError:
                attempt += 1
                continue
            status.next_retry_in = None
            await self._reconnected()
            return


def recycle_due(
    now: float,
    last_used: float,
    connected_at: float | None,
    idle_seconds: float,
    lifetime_seconds: float,
) -> bool:
    """Whether a server sat idle for *idle_seconds* or has lived *lifetime_seconds* (0: never)."""
    idle = idle_seconds > 0 and now - last_used >= idle_seconds
    old = (
        lifetime_seconds > 0 and connected_at is not None and now - connected_at >= lifetime_seconds
    )
    return idle or old
