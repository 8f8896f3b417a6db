"""A task as a server describes it, read defensively: its id, status, message and poll interval.

A server's task fields are untrusted input.  The id must be short printable ASCII (it goes back
to the server in ``tasks/*`` requests and, on Streamable HTTP, in the ``Mcp-Name`` header); the
status must be one of the five the protocol defines; the message is cleaned for display and
cut; the poll interval is clamped so that a server can neither make the host spin nor stall it.
Both revisions are read: 2025-11-25 (``ttl``, ``pollInterval``, the task under ``task`` in a
``CreateTaskResult``) and the 2026-07-28 extension (``ttlMs``, ``pollIntervalMs``, the task's
fields inline, ``result``/``error``/``inputRequests`` on ``tasks/get``).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass

from hermes_core.host.server_notifications import shown_text

__all__ = [
    "MAX_POLL_S",
    "MIN_POLL_S",
    "TaskFormatError",
    "TaskState",
    "TaskStatus",
    "read_task",
]

#: The shortest wait between two ``tasks/get`` (a server asking for 0 ms gets this).
MIN_POLL_S = 0.05
#: The longest (a server asking for an hour still has its task looked at this often).
MAX_POLL_S = 5.0
#: Without a poll interval from the server.
DEFAULT_POLL_S = 1.0
#: How much of a task's status message is kept.
STATUS_MAX_CHARS = 300

_TASK_ID = re.compile(r"[\x21-\x7e]{1,128}")


class TaskStatus(enum.StrEnum):
    """A task's status (both revisions)."""

    WORKING = "working"
    INPUT_REQUIRED = "input_required"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def terminal(self) -> bool:
        return self in _TERMINAL


_TERMINAL = frozenset({TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.CANCELLED})


class TaskFormatError(ValueError):
    """A server's task does not have the shape the protocol defines."""


@dataclass(frozen=True, slots=True)
class TaskState:
    """One look at a task."""

    task_id: str
    status: TaskStatus
    message: str | None
    poll_s: float
    result: Mapping[str, object] | None = None
    """2026-07-28, ``completed``: the request's result."""
    error: Mapping[str, object] | None = None
    """2026-07-28, ``failed``: the JSON-RPC error."""
    input_requests: Mapping[str, object] | None = None
    """2026-07-28, ``input_required``: the requests to answer (by key)."""


def read_task(raw: object) -> TaskState:
    """The task in *raw* (a ``CreateTaskResult``, a ``tasks/get`` result or a status
    notification's params, either revision); :class:`TaskFormatError` when it is not one."""
    if not isinstance(raw, Mapping):
        raise TaskFormatError("the task is not a JSON object")
    inner = raw.get("task")
    task: Mapping[str, object] = inner if isinstance(inner, Mapping) else raw
    task_id = task.get("taskId")
    if not isinstance(task_id, str) or _TASK_ID.fullmatch(task_id) is None:
        raise TaskFormatError(
            "the task's taskId is missing or not 1-128 printable ASCII characters"
        )
    try:
        status = TaskStatus(str(task.get("status")))
    except ValueError:
        raise TaskFormatError(
            f"task {task_id}: unknown status {task.get('status')!r:.40}"
        ) from None
    message = task.get("statusMessage")
    shown = shown_text(message, STATUS_MAX_CHARS) if isinstance(message, str) else None
    return TaskState(
        task_id=task_id,
        status=status,
        message=shown or None,
        poll_s=_poll_seconds(task),
        result=_object(task, "result"),
        error=_object(task, "error"),
        input_requests=_object(task, "inputRequests"),
    )


def _poll_seconds(task: Mapping[str, object]) -> float:
    value = task.get("pollIntervalMs", task.get("pollInterval"))
    if not isinstance(value, int | float) or isinstance(value, bool) or value != value:
        return DEFAULT_POLL_S  # bool, None, NaN: no interval
    return min(max(float(value) / 1000.0, MIN_POLL_S), MAX_POLL_S)


def _object(task: Mapping[str, object], key: str) -> Mapping[str, object] | None:
    value = task.get(key)
    return value if isinstance(value, Mapping) else None
