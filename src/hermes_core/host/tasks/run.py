"""A tool call started in the background (``MCPHost.start_task``): its task's status, its
result, its cancellation."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Awaitable
from typing import TYPE_CHECKING

from hermes_core.host.tasks.log import TaskLog, TaskRecord
from hermes_core.host.tasks.state import TaskStatus

if TYPE_CHECKING:
    from hermes_core.host.calls.call import Result

__all__ = ["TaskRun", "attach_task"]

_RUN: contextvars.ContextVar[TaskRun | None] = contextvars.ContextVar(
    "hermes_task_run", default=None
)
"""The run whose call is on its way (set in the call's own asyncio task)."""


class TaskRun:
    """One call started by ``MCPHost.start_task``.

    ``task_id`` is the server's task id once the server created the task (``None`` before, and
    for a tool called plainly); :meth:`status` is its last status as the host saw it;
    ``await run.result()`` is the call's result, as ``call_tool`` returns it; ``await
    run.cancel()`` cancels the call, which cancels the task on the server (``tasks/cancel``).
    """

    def __init__(self, name: str, tasks: TaskLog) -> None:
        self.name = name
        self.server: str | None = None
        self.task_id: str | None = None
        self._tasks = tasks
        self._created = asyncio.Event()
        self._call: asyncio.Task[Result] | None = None

    def start(self, call: Awaitable[Result]) -> None:
        async def run() -> Result:
            return await call

        token = _RUN.set(self)
        try:
            self._call = asyncio.ensure_future(run())
        finally:
            _RUN.reset(token)
        self._call.add_done_callback(lambda _: self._created.set())

    def record(self) -> TaskRecord | None:
        """The task as the host last saw it (``None``: no task, or not created yet)."""
        if self.task_id is None:
            return None
        for record in self._tasks.records(self.server):
            if record.task_id == self.task_id:
                return record
        return None

    def status(self) -> TaskStatus | None:
        record = self.record()
        return record.status if record is not None else None

    async def created(self) -> str | None:
        """The task's id once the server created it (``None``: the call ended without one)."""
        await self._created.wait()
        return self.task_id

    def done(self) -> bool:
        return self._call is not None and self._call.done()

    async def result(self) -> Result:
        assert self._call is not None
        return await asyncio.shield(self._call)

    async def cancel(self) -> None:
        """Cancel the call (and so its task on the server); returns once it has ended."""
        assert self._call is not None
        self._call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._call

    def _attach(self, server: str, task_id: str) -> None:
        self.server = server
        self.task_id = task_id
        self._created.set()


def attach_task(server: str, task_id: str) -> None:
    """Tell the run of the current call (if it was started by ``start_task``) its task."""
    run = _RUN.get()
    if run is not None and run.task_id is None:
        run._attach(server, task_id)
