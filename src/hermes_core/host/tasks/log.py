"""The tasks a host started: which server and tool, the task's id, its last status and message.

``MCPHost.tasks()`` lists them (newest first, the last :data:`MAX_TASKS`).  The CLI's hosts also
keep them in a record file (:mod:`hermes_core.host.tasks.record`), which ``hermes mcp tasks``
reads.  What the log holds is what this host saw, never an authority: the live state of a task
is the server's answer to ``tasks/get``.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace

from hermes_core.host.tasks.state import TaskState, TaskStatus
from hermes_core.json_types import JsonObject

__all__ = ["MAX_TASKS", "TaskLog", "TaskRecord"]

#: How many tasks the log (and its record) keeps; the oldest go first.
MAX_TASKS = 200


@dataclass(frozen=True, slots=True)
class TaskRecord:
    """One task as this host last saw it."""

    server: str
    tool: str
    task_id: str
    status: TaskStatus
    message: str | None
    started: float
    """When the server created it (seconds since the epoch)."""
    updated: float

    def as_json(self) -> JsonObject:
        row: JsonObject = asdict(self)
        row["status"] = self.status.value
        return row


class TaskLog:
    """The tasks one host started, in memory (the last :data:`MAX_TASKS`)."""

    def __init__(self) -> None:
        self._records: deque[TaskRecord] = deque(maxlen=MAX_TASKS)
        self._persist: Callable[[list[TaskRecord]], None] | None = None

    def on_change(self, persist: Callable[[list[TaskRecord]], None]) -> None:
        """Give *persist* the whole log after every change (e.g. a
        :class:`~hermes_core.host.tasks.record.TaskRecordFile`)."""
        self._persist = persist

    def started(self, server: str, tool: str, state: TaskState) -> TaskRecord:
        now = time.time()
        record = TaskRecord(server, tool, state.task_id, state.status, state.message, now, now)
        self._records.append(record)
        self._changed()
        return record

    def updated(self, record: TaskRecord, status: TaskStatus, message: str | None) -> TaskRecord:
        """*record* with its new status (replaces it in the log)."""
        if record.status is status and record.message == message:
            return record
        new = replace(record, status=status, message=message, updated=time.time())
        for index, old in enumerate(self._records):
            if old is record:
                self._records[index] = new
                break
        self._changed()
        return new

    def records(self, server: str | None = None) -> list[TaskRecord]:
        """Newest first; only *server*'s when given."""
        return [r for r in reversed(self._records) if server is None or r.server == server]

    def _changed(self) -> None:
        if self._persist is not None:
            self._persist(list(self._records))
