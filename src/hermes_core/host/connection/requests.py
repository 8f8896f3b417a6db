"""Running one request on a connection: its turn, its deadline, a renewed session, the rounds
of a 2026-07-28 ``InputRequiredResult``, and the error when the server went away meanwhile.

:class:`RequestRunner` is the part of :class:`~hermes_core.host.connection.ServerConnection` a
call goes through; the connection hands out its bound ``request`` as its own, so a call costs one
coroutine frame of ours and nothing else.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol, TypeVar, cast

from hermes_core._sdk_compat import InputRoundsExceeded, run_input_required
from hermes_core._sdk_compat.tasks import ModernTaskCreated
from hermes_core.host.connection.errors import ServerError
from hermes_core.host.connection.failures import HTTP_NOTED, connection_closed
from hermes_core.host.connection.session_requests import SessionRequest, ToolCallRequest

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.types import (
        ErrorData,
        InputRequest,
        InputRequiredResult,
        InputResponse,
        InputResponses,
    )

    from hermes_core.host.connection.deadlines import Deadlines
    from hermes_core.host.connection.diagnostics import Diagnostics
    from hermes_core.host.connection.failures import FailureReports
    from hermes_core.host.connection.task_follow import TaskFollower
    from hermes_core.plugins.types import ServerSpec

__all__ = ["INPUT_REQUIRED_MAX_ROUNDS", "RequestOwner", "RequestRunner", "SendRequest"]

log = logging.getLogger(__name__)

#: Rounds of ``InputRequiredResult`` (2026-07-28) one call may take before it fails.
INPUT_REQUIRED_MAX_ROUNDS = 10

T = TypeVar("T")
Send = Callable[["InputResponses | None", str | None], Awaitable[object]]
"""Sends a request again with ``(input_responses, request_state)``."""


class RequestOwner(Protocol):
    """What a :class:`RequestRunner` reads and writes of its connection
    (:class:`~hermes_core.host.connection.ServerConnection`)."""

    name: str
    session: ClientSession | None
    last_used: float
    task_follower: TaskFollower
    _gone: asyncio.Event
    _call_lock: asyncio.Lock | None
    _inflight: int
    _deadlines: Deadlines
    _records: Diagnostics
    _failures: FailureReports

    @property
    def spec(self) -> ServerSpec: ...

    async def ensure(self) -> ClientSession | None: ...

    async def _renew_session(self, stale: ClientSession | None) -> ClientSession | None: ...

    async def _went_away(self, what: str) -> ServerError: ...


class SendRequest(Protocol):
    """:meth:`RequestRunner.request`'s signature: a request's answer has its own type."""

    def __call__(self, what: str, call: SessionRequest[T], timeout: float) -> Awaitable[T]: ...


_INPUT_REQUIRED: type | None = None
"""The SDK's ``InputRequiredResult``, imported on the first call (not per call)."""


def _input_required_type() -> type:
    global _INPUT_REQUIRED  # a cache of an import
    from mcp_types import InputRequiredResult

    _INPUT_REQUIRED = InputRequiredResult
    return InputRequiredResult


class RequestRunner:
    """Runs requests on one connection's live session: each in its turn, within its deadline,
    on a session renewed when the server forgot it, failing at once when the server went away.

    A server that does not allow parallel calls gets one at a time, in arrival order.  The
    deadline starts when the request is sent: an entry in the connection's deadline queue (one
    loop timer per connection) that cancels the request's task when it passes; the server is
    then told (``notifications/cancelled``).  When a ``tools/call`` (:class:`ToolCallRequest`)
    is answered with a 2026-07-28 ``InputRequiredResult``, its rounds are answered within the
    same deadline and turn (:meth:`until_answered`), the call being sent again with the
    answers; a task handle is followed to the task's result.

    :meth:`request` is the whole of a tool call's path through the connection: one coroutine
    frame, no closure, no copied context (objects a call keeps alive while it waits are what
    the garbage collector has to walk when many calls are in flight).
    """

    def __init__(self, connection: RequestOwner) -> None:
        self._connection = connection

    def input_dispatch(
        self, session: ClientSession
    ) -> Callable[[str, InputRequest], Awaitable[InputResponse | ErrorData]]:
        """Answers one 2026-07-28 input request through *session*'s elicitation, sampling and
        roots handlers (``await dispatch(key, request)``)."""
        from mcp.client.context import ClientRequestContext

        async def dispatch(key: str, request: InputRequest) -> InputResponse | ErrorData:
            meta = request.params.meta if request.params else None
            context = ClientRequestContext(session=session, request_id=key, meta=meta)
            return await session.dispatch_input_request(context, request)

        return dispatch

    async def until_answered(
        self,
        session: ClientSession,
        what: str,
        send: Callable[[InputResponses | None, str | None], Awaitable[T | InputRequiredResult]],
        *,
        first: object = None,
    ) -> T:
        """The result of the request *send* makes (``send(None, None)`` unless its *first*
        answer is given), once the server has what it asked for.

        On 2026-07-28 a server asks for input (elicitation, sampling, roots) by answering
        ``tools/call``, ``prompts/get`` or ``resources/read`` with an ``InputRequiredResult``:
        the SDK's driver answers through this session's callbacks and calls
        ``send(answers, request_state)`` again, at most ``INPUT_REQUIRED_MAX_ROUNDS`` times."""
        if first is None:
            first = await send(None, None)
        if not isinstance(first, _INPUT_REQUIRED or _input_required_type()):
            return cast(T, first)  # (send's own answer, or the first one given for it)
        try:
            answered: T = await run_input_required(
                first,
                dispatch=self.input_dispatch(session),
                retry=send,
                max_rounds=INPUT_REQUIRED_MAX_ROUNDS,
            )
            return answered
        except InputRoundsExceeded as exc:
            raise ServerError(self._connection.name, f"{what}: {exc}") from None

    async def request(self, what: str, call: SessionRequest[T], timeout: float) -> T:
        """Send *call* on the live session, bounded by *timeout*; a dead server fails fast,
        never hangs (see the class's docstring)."""
        conn = self._connection
        session = conn.session
        if session is None or conn._gone.is_set():
            session = await conn.ensure()
        lock = conn._call_lock
        conn._inflight += 1
        try:
            if lock is not None:
                await lock.acquire()
                if conn.session is None or conn._gone.is_set():  # went away while we waited
                    try:
                        session = await conn.ensure()
                    except BaseException:
                        lock.release()
                        raise
            task = asyncio.current_task()
            assert task is not None
            cancels_before = task.cancelling()
            deadlines = conn._deadlines
            deadline = deadlines.start(task, timeout)
            # Where the connection's records end now (HTTP): a refused session is noted there.
            mark = conn._records.mark() if conn.spec.transport in HTTP_NOTED else None
            try:
                if session is None:  # it went away again at once: failed as sent to it
                    raise LookupError("the session ended before the request was sent")
                try:
                    result = await call.send(session)
                except Exception:
                    if mark is None or not conn._failures.session_refused_since(mark):
                        raise
                    # The server no longer knows our session (it restarted, or expired it) and
                    # refused the request, so it never ran: start a new session and send it
                    # again.
                    log.info("MCP server '%s': its session ended; starting a new one", conn.name)
                    session = await conn._renew_session(session)
                    if session is None:
                        raise LookupError("the session ended before the request was sent") from None
                    result = await call.send(session)
                if isinstance(call, ToolCallRequest):
                    # (a tool call's answer is the result its own type names: T is it)
                    return cast(T, await self._finish_tool_call(session, result, call))
                return result
            except asyncio.CancelledError:
                deadlines.finish(deadline)
                if not deadline.expired:
                    raise
                # Our deadline cancelled it; the SDK told the server (notifications/cancelled).
                if task.uncancel() > cancels_before:
                    raise  # cancelled from outside as well: that cancellation wins
                if conn._gone.is_set():
                    raise await conn._went_away(what) from None
                raise ServerError(
                    conn.name, f"{what} timed out after {timeout:g} s (configured timeout)"
                ) from None
            except Exception as exc:
                deadlines.finish(deadline)  # no stray cancellation while the reason is looked up
                if conn._gone.is_set() or connection_closed(exc):
                    raise await conn._went_away(what) from None
                raise
            finally:
                deadlines.finish(deadline)
                if lock is not None:
                    lock.release()
        finally:
            conn._inflight -= 1
            conn.last_used = time.monotonic()

    async def _finish_tool_call(
        self, session: ClientSession, first: object, call: ToolCallRequest
    ) -> object:
        """A 2026-07-28 server's answer to ``tools/call``: its input rounds answered (told by
        the tool's name: "forever: the server asked…"), a task handle followed to its result."""
        result = first
        if isinstance(result, _INPUT_REQUIRED or _input_required_type()):

            def send(responses: InputResponses | None, state: str | None) -> Awaitable[object]:
                return call.send(session, responses, state)

            result = await self.until_answered(session, call.tool, send, first=result)
        if type(result) is ModernTaskCreated:
            result = await self._connection.task_follower.follow_modern(
                session, call.tool, result.fields(), call.progress, self.input_dispatch(session)
            )
        return result
