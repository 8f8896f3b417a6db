"""Following a task-augmented ``tools/call`` to its result, on either protocol revision.

**2025-11-25** (the ``tasks`` capability, SEP-1686): :func:`call_as_task` sends ``tools/call``
with ``task``; the server answers a ``CreateTaskResult``.  The host then waits on ``tasks/result``
(which the server answers when the task ends, and through which it sends the task's own requests,
e.g. an elicitation) while it polls ``tasks/get`` at the server's ``pollInterval`` for the status
line it reports through ``on_progress``.

**2026-07-28** (the tasks extension, SEP-2663): any ``tools/call`` may be answered with a task
handle (``resultType: "task"``); :func:`follow_modern_task` polls ``tasks/get`` at the server's
``pollIntervalMs``, answers an ``input_required`` task's ``inputRequests`` through the session's
elicitation / sampling / roots handlers (each key once) with ``tasks/update``, and returns the
``result`` of the completed task.

Either way a call that is cancelled or runs past its timeout sends ``tasks/cancel`` (bounded by
:data:`CANCEL_TIMEOUT_S`) before it ends, a failed or cancelled task is the call's error, and the
result is checked like any tool result (the tool's output schema included).  Every status the
server reports is bounded and cleaned (:mod:`hermes_core.host.tasks.state`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

from hermes_core._sdk_compat import send_raw_request
from hermes_core.host.connection.errors import ServerError
from hermes_core.host.tasks.log import TaskLog, TaskRecord
from hermes_core.host.tasks.run import attach_task
from hermes_core.host.tasks.state import TaskFormatError, TaskState, TaskStatus, read_task
from hermes_core.json_types import JsonObject

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.shared.dispatcher import ProgressFnT
    from mcp_types import CallToolResult, ErrorData, InputRequest, InputResponse

__all__ = ["CANCEL_TIMEOUT_S", "MAX_INPUT_REQUESTS", "TaskFollower"]

log = logging.getLogger(__name__)

#: How long the host waits for the server to acknowledge ``tasks/cancel``.
CANCEL_TIMEOUT_S = 5.0
#: The most input requests one task may make (2026-07-28) before the call is given up.
MAX_INPUT_REQUESTS = 50

Dispatch = Callable[[str, "InputRequest"], Awaitable["InputResponse | ErrorData"]]


class TaskFollower:
    """Follows the tasks of one server's calls; records them in the host's :class:`TaskLog`."""

    def __init__(self, server: str, tasks: TaskLog) -> None:
        self.server = server
        self.tasks = tasks

    async def call_as_task(
        self,
        session: ClientSession,
        tool: str,
        arguments: Mapping[str, object],
        progress: ProgressFnT | None,
    ) -> CallToolResult:
        """``tools/call`` of *tool* as a task (2025-11-25), to its final result."""
        params = {"name": tool, "arguments": arguments, "task": {}}
        created = await send_raw_request(session, "tools/call", params)
        watch = await self._watch(tool, self._read(created), progress)
        task_id = watch.state.task_id
        poller = asyncio.ensure_future(self._poll_legacy(session, watch))
        try:
            raw = await send_raw_request(session, "tasks/result", {"taskId": task_id})
        except asyncio.CancelledError:
            await self._cancel(session, watch)
            raise
        except Exception as exc:  # noqa: BLE001 - the error of a failed task, said below
            # The server ends a failed or cancelled task's tasks/result with an error.
            await _stop(poller)
            state = await self._look(session, task_id)
            status = state.status if state is not None else TaskStatus.FAILED
            watch.update(self.tasks, status, state.message if state else None)
            raise ServerError(self.server, f"the task of {tool!r} ({task_id}): {exc}") from None
        finally:
            await _stop(poller)
        watch.update(self.tasks, TaskStatus.COMPLETED, watch.state.message)
        return await _tool_result(session, self.server, tool, task_id, raw)

    async def follow_modern(
        self,
        session: ClientSession,
        tool: str,
        handle: Mapping[str, object],
        progress: ProgressFnT | None,
        dispatch: Dispatch,
    ) -> CallToolResult:
        """The result of the 2026-07-28 task *handle* a ``tools/call`` of *tool* was answered
        with."""
        watch = await self._watch(tool, self._read(handle), progress)
        task_id = watch.state.task_id
        answered: set[str] = set()
        try:
            state = watch.state
            while not state.status.terminal:
                if state.status is TaskStatus.INPUT_REQUIRED and state.input_requests:
                    await self._answer(session, state, answered, dispatch)
                # The server's own polling interval (clamped): protocol pacing, not a test wait.
                await asyncio.sleep(state.poll_s)
                state = self._read(
                    await send_raw_request(session, "tasks/get", {"taskId": task_id}, name=task_id)
                )
                await watch.seen(self.tasks, state)
        except asyncio.CancelledError:
            await self._cancel(session, watch)
            raise
        if state.status is TaskStatus.COMPLETED and state.result is not None:
            return await _tool_result(session, self.server, tool, task_id, state.result)
        raise ServerError(self.server, _ended(tool, state))

    async def _answer(
        self, session: ClientSession, state: TaskState, answered: set[str], dispatch: Dispatch
    ) -> None:
        """Answer the requests of an ``input_required`` task not answered yet (``tasks/update``)."""
        from mcp_types import ErrorData, InputRequest
        from pydantic import TypeAdapter, ValidationError

        assert state.input_requests is not None
        new = {k: v for k, v in state.input_requests.items() if k not in answered}
        if not new:
            return
        if len(answered) + len(new) > MAX_INPUT_REQUESTS:
            raise ServerError(
                self.server,
                f"task {state.task_id} asked for input more than {MAX_INPUT_REQUESTS} times; "
                "the call was given up",
            )
        adapter: TypeAdapter[InputRequest] = TypeAdapter(InputRequest)
        responses: JsonObject = {}
        for key, raw in new.items():
            answered.add(key)
            try:
                request = adapter.validate_python(raw, by_name=False)
            except ValidationError:
                raise ServerError(
                    self.server, f"task {state.task_id}: input request {key[:40]!r} is malformed"
                ) from None
            answer = await dispatch(key, request)
            if isinstance(answer, ErrorData):
                raise ServerError(
                    self.server,
                    f"task {state.task_id}: could not answer its request: {answer.message[:200]}",
                )
            responses[key] = answer.model_dump(by_alias=True, mode="json", exclude_none=True)
        params = {"taskId": state.task_id, "inputResponses": responses}
        await send_raw_request(session, "tasks/update", params, name=state.task_id)

    async def _poll_legacy(self, session: ClientSession, watch: _Watch) -> None:
        """Poll ``tasks/get`` (2025-11-25) for status lines until cancelled or terminal."""
        while not watch.state.status.terminal:
            await asyncio.sleep(watch.state.poll_s)  # the server's pollInterval (clamped)
            state = await self._look(session, watch.state.task_id)
            if state is not None:
                await watch.seen(self.tasks, state)

    async def _look(self, session: ClientSession, task_id: str) -> TaskState | None:
        """``tasks/get`` of *task_id*, or None when it fails (a status line is not worth a
        failed call)."""
        try:
            raw = await send_raw_request(session, "tasks/get", {"taskId": task_id}, name=task_id)
            return read_task(raw)
        except (TaskFormatError, Exception) as exc:  # noqa: BLE001 - status only
            log.debug("MCP server '%s': tasks/get %s failed: %s", self.server, task_id, exc)
            return None

    async def _cancel(self, session: ClientSession, watch: _Watch) -> None:
        """Tell the server to cancel the task (bounded; the caller's cancellation goes on)."""
        task_id = watch.state.task_id
        watch.update(self.tasks, TaskStatus.CANCELLED, "cancelled by the host")
        cancel = send_raw_request(session, "tasks/cancel", {"taskId": task_id}, name=task_id)
        try:
            await asyncio.shield(asyncio.wait_for(cancel, CANCEL_TIMEOUT_S))
        except (asyncio.CancelledError, Exception) as exc:  # noqa: BLE001 - best effort
            log.info("MCP server '%s': tasks/cancel %s: %s", self.server, task_id, exc or "sent")

    def _read(self, raw: object) -> TaskState:
        try:
            return read_task(raw)
        except TaskFormatError as exc:
            raise ServerError(self.server, f"the server's task is malformed: {exc}") from None

    async def _watch(self, tool: str, state: TaskState, progress: ProgressFnT | None) -> _Watch:
        watch = _Watch(self.tasks.started(self.server, tool, state), state, progress)
        attach_task(self.server, state.task_id)
        await watch.report()
        return watch


class _Watch:
    """One task's record and what its caller was last told."""

    __slots__ = ("progress", "record", "state", "steps")

    def __init__(self, record: TaskRecord, state: TaskState, progress: ProgressFnT | None) -> None:
        self.record = record
        self.state = state
        self.progress = progress
        self.steps = 0

    async def seen(self, tasks: TaskLog, state: TaskState) -> None:
        changed = state.status is not self.state.status or state.message != self.state.message
        self.state = state
        if changed:
            self.record = tasks.updated(self.record, state.status, state.message)
            await self.report()

    def update(self, tasks: TaskLog, status: TaskStatus, message: str | None) -> None:
        if not self.record.status.terminal:
            self.record = tasks.updated(self.record, status, message)

    async def report(self) -> None:
        """Tell the caller the task's status (``on_progress``: a step count and the line)."""
        if self.progress is None:
            return
        self.steps += 1
        line = f"task {self.state.status.value}"
        if self.state.message:
            line = f"{line}: {self.state.message}"
        await self.progress(float(self.steps), None, line)


async def _stop(poller: asyncio.Future[None]) -> None:
    if not poller.done():
        poller.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await poller


async def _tool_result(
    session: ClientSession, server: str, tool: str, task_id: str, raw: object
) -> CallToolResult:
    """*raw* as a ``CallToolResult``, checked against the tool's output schema."""
    from mcp_types import CallToolResult
    from pydantic import ValidationError

    try:
        result = CallToolResult.model_validate(raw, by_name=False)
    except ValidationError:
        raise ServerError(
            server, f"the task of {tool!r} ({task_id}) ended with no tool result"
        ) from None
    if not result.is_error:
        await session.validate_tool_result(tool, result)
    return result


def _ended(tool: str, state: TaskState) -> str:
    if state.status is TaskStatus.FAILED:
        error = state.error or {}
        message = error.get("message")
        reason = message[:300] if isinstance(message, str) else "no reason given"
        return f"the task of {tool!r} ({state.task_id}) failed: {reason}"
    if state.status is TaskStatus.CANCELLED:
        return f"the server cancelled the task of {tool!r} ({state.task_id})"
    return f"the task of {tool!r} ({state.task_id}) completed with no result"
