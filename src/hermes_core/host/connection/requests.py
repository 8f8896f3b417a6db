"""Running one request on a connection: its turn, its deadline, a renewed session, the rounds
of a 2026-07-28 ``InputRequiredResult``, and the error when the server went away meanwhile.

:class:`Requests` is the part of :class:`~hermes_core.host.connection.ServerConnection` a call
goes through (a base class, so a call costs one coroutine frame of ours and nothing else).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from hermes_core._sdk_compat import InputRoundsExceeded, run_input_required
from hermes_core._sdk_compat.tasks import ModernTaskCreated
from hermes_core.host.connection.deadlines import Deadlines
from hermes_core.host.connection.diagnostics import Diagnostics
from hermes_core.host.connection.errors import ServerError
from hermes_core.host.connection.failures import HTTP_NOTED, FailureReports, connection_closed
from hermes_core.host.connection.task_follow import TaskFollower
from hermes_core.plugins.types import ServerSpec

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.shared.dispatcher import ProgressFnT
    from mcp.types import (
        CallToolResult,
        ErrorData,
        InputRequest,
        InputRequiredResult,
        InputResponse,
        InputResponses,
        Result,
    )

__all__ = ["INPUT_REQUIRED_MAX_ROUNDS", "Requests"]

log = logging.getLogger(__name__)

#: Rounds of ``InputRequiredResult`` (2026-07-28) one call may take before it fails.
INPUT_REQUIRED_MAX_ROUNDS = 10

Call = Callable[..., Coroutine[Any, Any, Any]]
"""A request: ``call(session, *args)`` returns the SDK's coroutine for its result."""
Send = Callable[["InputResponses | None", str | None], Awaitable[Any]]
"""Sends a request again with ``(input_responses, request_state)``."""

_INPUT_REQUIRED: type | None = None
"""The SDK's ``InputRequiredResult``, imported on the first call (not per call)."""


def _input_required_type() -> type:
    global _INPUT_REQUIRED  # a cache of an import
    from mcp_types import InputRequiredResult

    _INPUT_REQUIRED = InputRequiredResult
    return InputRequiredResult


class Requests:
    """Requests to one server's live session (what a call needs of the connection)."""

    name: str
    spec: ServerSpec
    session: ClientSession | None
    last_used: float
    _gone: asyncio.Event
    _call_lock: asyncio.Lock | None
    _inflight: int
    _deadlines: Deadlines
    _records: Diagnostics
    _failures: FailureReports
    task_follower: TaskFollower

    async def connect(self) -> None:
        raise NotImplementedError

    async def _renew_session(self, stale: ClientSession | None) -> ClientSession | None:
        raise NotImplementedError

    async def _went_away(self, what: str) -> ServerError:
        raise NotImplementedError

    @staticmethod
    def tools_call(
        session: ClientSession,
        tool: str,
        args: dict[str, Any],
        progress: ProgressFnT | None = None,
        **answers: Any,
    ) -> Coroutine[Any, Any, CallToolResult | InputRequiredResult | Result]:
        """``tools/call`` on *session* in either revision, as a :meth:`request` call:
        ``connection.request(what, ServerConnection.tools_call, timeout, tool, args)``.

        A plain function returning the SDK's coroutine (no frame of its own on the call path).
        On 2026-07-28 the server may answer with an ``InputRequiredResult``; :meth:`request`
        then answers its rounds and calls this again with *answers* (``input_responses``,
        ``request_state``)."""
        call: Coroutine[Any, Any, CallToolResult | InputRequiredResult | Result] = (
            session.call_tool(
                tool,
                args,
                progress_callback=progress,
                allow_input_required=True,
                allow_claimed=True,  # a 2026-07-28 task handle: followed by request()
                **answers,
            )
        )
        return call

    def tools_call_task(
        self,
        session: ClientSession,
        tool: str,
        args: dict[str, Any],
        progress: ProgressFnT | None = None,
    ) -> Coroutine[Any, Any, CallToolResult]:
        """``tools/call`` of *tool* as a 2025-11-25 task, to its final result, as a
        :meth:`request` call (``connection.request(what, connection.tools_call_task, ...)``)."""
        return self.task_follower.call_as_task(session, tool, args, progress)

    def input_dispatch(self, session: ClientSession) -> Callable[..., Any]:
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
        send: Send,
        *,
        first: Any = None,
    ) -> Any:
        """The result of the request *send* makes (``send(None, None)`` unless its *first*
        answer is given), once the server has what it asked for.

        On 2026-07-28 a server asks for input (elicitation, sampling, roots) by answering
        ``tools/call``, ``prompts/get`` or ``resources/read`` with an ``InputRequiredResult``:
        the SDK's driver answers through this session's callbacks and calls
        ``send(answers, request_state)`` again, at most ``INPUT_REQUIRED_MAX_ROUNDS`` times."""
        if first is None:
            first = await send(None, None)
        if not isinstance(first, _INPUT_REQUIRED or _input_required_type()):
            return first
        try:
            return await run_input_required(
                first,
                dispatch=self.input_dispatch(session),
                retry=send,
                max_rounds=INPUT_REQUIRED_MAX_ROUNDS,
            )
        except InputRoundsExceeded as exc:
            raise ServerError(self.name, f"{what}: {exc}") from None

    async def ensure(self) -> ClientSession | None:
        """The live session, reconnecting first when the server went away (``None``: it went
        away again at once; the request then fails as sent to a server gone)."""
        if not self.connected:
            await self.connect()
        return self.session

    @property
    def connected(self) -> bool:
        return self.session is not None and not self._gone.is_set()

    async def request(self, what: str, call: Call, timeout: float, *args: Any) -> Any:
        """Run *call(session, *args)* bounded by *timeout*; a dead server fails fast, never
        hangs.

        A server that does not allow parallel calls gets one at a time, in arrival order.  The
        deadline starts when the request is sent: an entry in the connection's deadline queue
        (one loop timer per connection) that cancels this task when it passes; the SDK then
        tells the server (``notifications/cancelled``).
        When *call* hands back a 2026-07-28 ``InputRequiredResult``, its rounds are answered
        within the same deadline and turn (:meth:`until_answered`), *call* being called again
        with ``input_responses`` and ``request_state``.

        This is the whole of a tool call's path through the connection: one coroutine frame,
        no closure, no copied context (objects a call keeps alive while it waits are what the
        garbage collector has to walk when many calls are in flight).
        """
        session = self.session
        if session is None or self._gone.is_set():
            session = await self.ensure()
        lock = self._call_lock
        self._inflight += 1
        try:
            if lock is not None:
                await lock.acquire()
                if self.session is None or self._gone.is_set():  # went away while we waited
                    try:
                        session = await self.ensure()
                    except BaseException:
                        lock.release()
                        raise
            task = asyncio.current_task()
            assert task is not None
            cancels_before = task.cancelling()
            deadlines = self._deadlines
            deadline = deadlines.start(task, timeout)
            # Where the connection's records end now (HTTP): a refused session is noted there.
            mark = self._records.mark() if self.spec.transport in HTTP_NOTED else None
            try:
                try:
                    result = await call(session, *args)
                except Exception:
                    if mark is None or not self._failures.session_refused_since(mark):
                        raise
                    # The server no longer knows our session (it restarted, or expired it) and
                    # refused the request, so it never ran: start a new session and send it
                    # again.
                    log.info("MCP server '%s': its session ended; starting a new one", self.name)
                    session = await self._renew_session(session)
                    result = await call(session, *args)
                if isinstance(result, _INPUT_REQUIRED or _input_required_type()):
                    result = await self._answer_rounds(session, what, result, call, args)
                if type(result) is ModernTaskCreated:  # 2026-07-28: a task handle, not a result
                    result = await self._follow_task(session, result, call, args)
                return result
            except asyncio.CancelledError:
                deadlines.finish(deadline)
                if not deadline.expired:
                    raise
                # Our deadline cancelled it; the SDK told the server (notifications/cancelled).
                if task.uncancel() > cancels_before:
                    raise  # cancelled from outside as well: that cancellation wins
                if self._gone.is_set():
                    raise await self._went_away(what) from None
                raise ServerError(
                    self.name, f"{what} timed out after {timeout:g} s (configured timeout)"
                ) from None
            except Exception as exc:
                deadlines.finish(deadline)  # no stray cancellation while the reason is looked up
                if self._gone.is_set() or connection_closed(exc):
                    raise await self._went_away(what) from None
                raise
            finally:
                deadlines.finish(deadline)
                if lock is not None:
                    lock.release()
        finally:
            self._inflight -= 1
            self.last_used = time.monotonic()

    async def _follow_task(
        self,
        session: ClientSession | None,
        handle: ModernTaskCreated,
        call: Call,
        args: tuple[Any, ...],
    ) -> Any:
        assert session is not None  # (the request was just answered through it)
        if call is not Requests.tools_call:  # the extension augments tools/call only
            raise ServerError(self.name, "the server answered with a task where none may be")
        tool, _arguments, *rest = args
        progress = rest[0] if rest else None
        return await self.task_follower.follow_modern(
            session, tool, handle.fields(), progress, self.input_dispatch(session)
        )

    async def _answer_rounds(
        self,
        session: ClientSession | None,
        what: str,
        first: Any,
        call: Call,
        args: tuple[Any, ...],
    ) -> Any:
        assert session is not None  # (the request was just answered through it)

        async def send(responses: InputResponses | None, state: str | None) -> Any:
            return await call(session, *args, input_responses=responses, request_state=state)

        if call is Requests.tools_call:
            what = args[0]  # a tool's rounds are told by its name ("forever: the server asked…")
        return await self.until_answered(session, what, send, first=first)
