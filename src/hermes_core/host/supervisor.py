"""The tasks a host runs in the background, owned in one place and ended by ``close``.

An :class:`MCPHost` has one :class:`TaskSupervisor`; each of its server connections gets a
:meth:`~TaskSupervisor.child` of it.  Every task the host or a connection starts (the session
runner, reconnectors, the deadline watchdog, coalesced re-lists, late re-lists, the recycler,
the config watcher and its reloads) is started with :meth:`~TaskSupervisor.spawn`, never with a
bare ``asyncio.create_task``.  That gives three guarantees:

* **A strong reference.**  The event loop keeps only weak references to tasks: an unowned
  task can be collected while it waits ("Task was destroyed but it is pending").
* **Every outcome is retrieved.**  A task that fails is logged once, with its traceback and
  the name it was given (never "Task exception was never retrieved" at exit).
* **Close means gone.**  :meth:`~TaskSupervisor.close` cancels what is still running and
  awaits it, so when ``MCPHost.close()`` returns nothing of the host runs any more and the
  loop can be closed.  A child's ``close`` (one connection's) ends only that child's tasks.

After ``close`` a supervisor starts nothing: :meth:`~TaskSupervisor.spawn` closes the
coroutine unstarted and returns ``None`` (a late notification must not revive a closed host).
Why not ``asyncio.TaskGroup``: one failing re-list must not cancel every other server's
tasks, and tasks must be startable from callbacks outside an ``async with`` block.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["CLOSE_GRACE_SECONDS", "TaskSupervisor"]

log = logging.getLogger(__name__)
T = TypeVar("T")

#: How long ``close`` waits for cancelled tasks to finish before it names the ones that won't.
CLOSE_GRACE_SECONDS = 10.0


class TaskSupervisor:
    """Owns background tasks: see the module docstring."""

    def __init__(self, owner: str, *, parent: TaskSupervisor | None = None) -> None:
        self.owner = owner
        """Who the tasks belong to, as log lines name it (``MCP server 'acme'``)."""
        self._parent = parent
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed or (self._parent is not None and self._parent.closed)

    def child(self, owner: str) -> TaskSupervisor:
        """A supervisor whose tasks this one owns too (closing either ends them)."""
        return TaskSupervisor(owner, parent=self)

    def spawn(self, coro: Coroutine[object, object, T], *, name: str) -> asyncio.Task[T] | None:
        """Run *coro* as an owned task named *name*; ``None`` (and *coro* closed unstarted)
        once this supervisor is closed."""
        if self.closed:
            coro.close()
            return None
        task = asyncio.get_running_loop().create_task(coro, name=f"{self.owner}: {name}")
        self._own(task)
        return task

    def _own(self, task: asyncio.Task[Any]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        if self._parent is not None:
            self._parent._own_quietly(task)

    def _own_quietly(self, task: asyncio.Task[Any]) -> None:
        """A child's task: kept (and cancelled on close) here too; the child reports it."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        if self._parent is not None:
            self._parent._own_quietly(task)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()  # retrieved: never "Task exception was never retrieved"
        if error is not None:
            log.warning(
                "%s: background task %r failed: %s: %s",
                self.owner,
                task.get_name(),
                type(error).__name__,
                error,
                exc_info=error,
            )

    def pending(self) -> list[str]:
        """The names of the tasks still running (for status and tests)."""
        return sorted(t.get_name() for t in self._tasks if not t.done())

    def refuse_new(self) -> None:
        """Start nothing more from now on (what runs keeps running until :meth:`close`)."""
        self._closed = True

    async def close(self, grace: float = CLOSE_GRACE_SECONDS) -> None:
        """Start nothing more; cancel every task still running and wait for them to end.

        A task that ignores cancellation for *grace* seconds is named in a warning and left
        cancelled (close never hangs).  The task calling ``close`` is never waited for."""
        self._closed = True
        current = asyncio.current_task()
        while True:
            running = [t for t in self._tasks if not t.done() and t is not current]
            if not running:
                return
            for task in running:
                task.cancel()
            _, stuck = await asyncio.wait(running, timeout=grace)
            if stuck:
                log.warning(
                    "%s: background task(s) still running %g s after being cancelled: %s",
                    self.owner,
                    grace,
                    ", ".join(sorted(t.get_name() for t in stuck)),
                )
                return
