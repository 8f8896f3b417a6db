"""The record file of the tasks the CLI's hosts started (``hermes mcp tasks`` reads it).

``$HERMES_HOME/cache/tasks.json`` (:data:`TASKS_RECORD`): written atomically, mode 0600, the last
:data:`~hermes_core.host.tasks.log.MAX_TASKS` tasks, read back row by row (a damaged row is
skipped, a file that is not ours is ignored).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from pathlib import Path

from hermes_core.host.tasks.log import MAX_TASKS, TaskRecord
from hermes_core.host.tasks.state import TaskStatus
from hermes_core.json_records import read_record, write_record

__all__ = [
    "TASKS_RECORD",
    "TaskRecordFile",
    "read_task_records",
    "task_record_from",
    "write_task_records",
]

log = logging.getLogger(__name__)

#: Where the CLI's hosts record their tasks, under ``$HERMES_HOME``.
TASKS_RECORD = "cache/tasks.json"
#: The largest record file read back.
_MAX_RECORD_BYTES = 1 << 20
_FORMAT = 1
_KIND = "hermes-task-log"


class TaskRecordFile:
    """A :meth:`TaskLog.on_change <hermes_core.host.tasks.log.TaskLog.on_change>` target: writes
    the log to *path* after the records already there (the tasks earlier hosts of this
    ``HERMES_HOME`` started).  A record that cannot be written is logged, never a failed call."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._previous = read_task_records(path)

    def __call__(self, records: list[TaskRecord]) -> None:
        try:
            write_task_records(self.path, self._previous, records)
        except OSError as exc:
            log.warning("could not record the tasks in %s: %s", self.path, exc.strerror or exc)


def write_task_records(path: Path, previous: Iterable[TaskRecord], new: list[TaskRecord]) -> None:
    """Write *previous* records followed by *new* ones (the last :data:`MAX_TASKS`) to *path*."""
    fresh = {(r.server, r.task_id) for r in new}
    kept = [r for r in previous if (r.server, r.task_id) not in fresh]
    rows = [r.as_json() for r in (kept + new)[-MAX_TASKS:]]
    write_record(path, {"format": _FORMAT, "kind": _KIND, "tasks": rows})


def read_task_records(path: Path) -> list[TaskRecord]:
    """The records in *path*, oldest first (none when it is missing, not ours or damaged:
    a damaged row is skipped)."""
    payload = read_record(
        path, format=_FORMAT, key_field="kind", expected=_KIND, max_bytes=_MAX_RECORD_BYTES
    )
    rows = payload.get("tasks") if payload else None
    if not isinstance(rows, list):
        return []
    return [record for row in rows[-MAX_TASKS:] if (record := task_record_from(row)) is not None]


def task_record_from(row: object) -> TaskRecord | None:
    """The record a row of :meth:`TaskRecord.as_json` holds; ``None`` when it is not one."""
    if not isinstance(row, Mapping):
        return None
    try:
        status = TaskStatus(str(row.get("status")))
    except ValueError:
        return None
    texts = [row.get(key) for key in ("server", "tool", "task_id")]
    times = [row.get(key) for key in ("started", "updated")]
    message = row.get("message")
    if not all(isinstance(t, str) and 0 < len(t) <= 256 for t in texts):
        return None
    if not all(type(t) in (int, float) for t in times):
        return None
    if message is not None and not (isinstance(message, str) and len(message) <= 1000):
        return None
    server, tool, task_id = (str(t) for t in texts)
    started, updated = (float(t) for t in times)  # type: ignore[arg-type]  # (checked above)
    return TaskRecord(server, tool, task_id, status, message, started, updated)
