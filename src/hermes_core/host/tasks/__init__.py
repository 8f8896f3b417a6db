"""Task-augmented tool calls: a task's state as a server reports it, the host's log of the
tasks it started, and following a task to its result on either protocol revision
(:mod:`hermes_core.host.connection.task_follow`)."""

from hermes_core.host.tasks.log import MAX_TASKS, TaskLog, TaskRecord
from hermes_core.host.tasks.state import TaskState, TaskStatus

__all__ = ["MAX_TASKS", "TaskLog", "TaskRecord", "TaskState", "TaskStatus"]
