"""Request deadlines: one timer per connection, not one per request.

Every request on a connection gets a deadline (its server's ``timeout``); when it passes, the
request's task is cancelled and the SDK tells the server (``notifications/cancelled``).  A timer
of the event loop for each request would cost a ``TimerHandle`` pushed onto the loop's heap and,
once the request is answered, cancelled and popped off again: the heap orders its handles with
``TimerHandle.__lt__``, a Python method, so with 200 requests in flight every push and pop
costs a dozen Python calls.  Here a connection keeps its requests' deadlines in a queue in the
order they fall (requests on one connection mostly share one timeout, so a new deadline is
almost always the latest) and arms one loop timer, for the earliest; an answered request only
marks its entry, and marked entries leave from the front.  A deadline earlier than the last one
queued (a shorter timeout than the requests before it) gets a loop timer of its own.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import deque
from typing import Protocol

__all__ = ["Cancellable", "Deadline", "Deadlines"]

_COMPACT_AT = 64
"""Answered entries kept behind a pending one before the queue is compacted (see ``finish``)."""


class Cancellable(Protocol):
    """What a deadline ends: a request's task (only cancelled, its result never read)."""

    def cancel(self) -> bool: ...


class Deadline:
    """One request's deadline; ``expired`` tells whether it passed (and cancelled the task)."""

    __slots__ = ("expired", "task", "timer", "when")

    def __init__(self, task: Cancellable, when: float) -> None:
        self.task: Cancellable | None = task  # None once finished
        self.when = when
        self.expired = False
        self.timer: asyncio.TimerHandle | None = None  # its own timer (out of order only)

    def expire(self) -> None:
        task, self.task = self.task, None
        if task is not None:
            self.expired = True
            task.cancel()


class Deadlines:
    """The deadlines of one connection's requests, in the order they fall, with one timer."""

    __slots__ = ("_context", "_finished", "_queue", "_timer")

    def __init__(self) -> None:
        self._queue: deque[Deadline] = deque()
        self._finished = 0  # finished entries still in the queue
        self._timer: asyncio.TimerHandle | None = None
        # The timer only cancels tasks: one empty context instead of a copy of the caller's.
        self._context = contextvars.Context()

    def start(self, task: Cancellable, timeout: float) -> Deadline:
        """*task*'s deadline, *timeout* seconds from now; :meth:`finish` it when answered."""
        loop = asyncio.get_running_loop()
        deadline = Deadline(task, loop.time() + timeout)
        queue = self._queue
        if queue and deadline.when < queue[-1].when:
            deadline.timer = loop.call_at(deadline.when, deadline.expire, context=self._context)
            return deadline
        queue.append(deadline)
        timer = self._timer
        # Armed for the earliest deadline queued; when those before this one are all answered,
        # the timer may still be armed for a later time (a longer timeout answered early).
        if timer is None or deadline.when < timer.when():
            if timer is not None:
                timer.cancel()
            self._timer = loop.call_at(deadline.when, self._fire, context=self._context)
        return deadline

    def finish(self, deadline: Deadline) -> None:
        """The request is answered (or failed, or was cancelled): its deadline no longer counts.
        Calling it again does nothing."""
        if deadline.task is None:
            return
        deadline.task = None
        if deadline.timer is not None:
            deadline.timer.cancel()
            deadline.timer = None
            return
        queue = self._queue
        self._finished += 1
        while queue and queue[0].task is None:
            queue.popleft()
            self._finished -= 1
        # Answers behind a slow request wait at the front; keep them from piling up.
        if self._finished > _COMPACT_AT and self._finished * 2 > len(queue):
            self._queue = deque(d for d in queue if d.task is not None)
            self._finished = 0

    def close(self) -> None:
        """Disarm the timer (the connection is closing; its requests end with it)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _fire(self) -> None:
        self._timer = None
        queue = self._queue
        loop = asyncio.get_running_loop()
        now = loop.time()
        while queue:
            deadline = queue[0]
            if deadline.task is None:
                queue.popleft()
                self._finished -= 1
                continue
            if deadline.when > now:
                break
            queue.popleft()
            deadline.expire()
        if queue:
            self._timer = loop.call_at(queue[0].when, self._fire, context=self._context)
