"""One MCP server's connection: spawn or dial, initialize, list, call, notice death, restart.

:class:`ServerConnection` is what the host holds per server.  It runs the attempt/close
state machine itself (:class:`~hermes_core.host.connection.state.ConnectionStatus`) and
composes the rest: the session's own task (:mod:`.session_task`), requests and their
deadlines (:mod:`.requests`), failure messages (:mod:`.failures`), keepalive
(:mod:`.keepalive`), background reconnects (:mod:`.recovery`) and list_changed coalescing
(:mod:`.list_changed`).  Nothing is polled: the session reads the transport through
:class:`~hermes_core.host.connection.end_watch.EndWatch`, which notes the moment the server
side closes, so the next call restarts the server instead of hanging.

A request costs an entry in the connection's deadline queue
(:mod:`hermes_core.host.connection.deadlines`: one loop timer per connection) and nothing
else of ours: no watchdog task, no liveness check, no look into the server's log unless the
request failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, NoReturn, Protocol

from hermes_core.host.connection.deadlines import Deadlines
from hermes_core.host.connection.diagnostics import Cause, ConnectFailure, ProcessExit
from hermes_core.host.connection.errors import ServerError
from hermes_core.host.connection.failures import FailureReports
from hermes_core.host.connection.keepalive import Keepalive, KeepaliveStats
from hermes_core.host.connection.list_changed import ToolsChanged
from hermes_core.host.connection.recovery import Reconnector, recycle_due
from hermes_core.host.connection.requests import RequestRunner, SendRequest
from hermes_core.host.connection.session_task import SessionCallbacks, SessionTask
from hermes_core.host.connection.state import ConnectionStatus
from hermes_core.host.connection.task_follow import TaskFollower
from hermes_core.host.supervisor import TaskSupervisor
from hermes_core.host.tasks.log import TaskLog
from hermes_core.host.transports import Opener
from hermes_core.host.transports.raw_calls import RawCalls
from hermes_core.json_types import JsonObject
from hermes_core.plugins.types import ServerSpec

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.client.session import ElicitationFnT, ListRootsFnT, SamplingFnT
    from mcp.types import Implementation, SamplingCapability, ServerCapabilities

__all__ = ["ConnectionSpec", "ServerConnection"]

log = logging.getLogger(__name__)


class ConnectionSpec(ServerSpec, Protocol):
    """A server as its connection reads it: what a transport reads, and the keepalive."""

    @property
    def keepalive_interval(self) -> float: ...
    @property
    def keepalive_timeout(self) -> float: ...


Reconnected = Callable[["ServerConnection"], Coroutine[object, object, None]]
"""Called with the connection after a background reconnect (its tools may have changed)."""


class ServerConnection:
    """The SDK session to one server, owned by a background task."""

    def __init__(
        self,
        name: str,
        spec: ConnectionSpec,
        *,
        on_tools_changed: Reconnected | None = None,
        parallel: bool = False,
        opener: Opener | None = None,
        elicitation_callback: ElicitationFnT | None = None,
        sse_opener: Opener | None = None,
        sampling_callback: SamplingFnT | None = None,
        sampling_capabilities: SamplingCapability | None = None,
        list_roots_callback: ListRootsFnT | None = None,
        tasks: TaskSupervisor | None = None,
        task_log: TaskLog | None = None,
    ) -> None:
        """*tasks* is the host's supervisor: this connection's background tasks (the session
        runner, reconnects, re-lists, the deadline watchdog) are started in a child of it, so
        the host's close ends them all (a connection on its own gets its own).  *task_log* is
        the host's record of the MCP tasks its calls started (task-augmented tool calls)."""
        self.name = name
        self._session_task = SessionTask(self)
        self.requests = RequestRunner(self)
        self.request: SendRequest = self.requests.request
        """``await connection.request(what, request, timeout)``: *request* sent on the live
        session in its turn, within *timeout* (:meth:`RequestRunner.request`)."""
        self.task_follower = TaskFollower(name, task_log if task_log is not None else TaskLog())
        self._tasks = (tasks or TaskSupervisor("MCP host")).child(f"MCP server '{name}'")
        self._sse_opener = sse_opener
        self.transport_used: str = spec.transport
        """The transport in use: ``sse`` after a fallback from Streamable HTTP."""
        self._callbacks = SessionCallbacks(
            elicitation_callback, sampling_callback, sampling_capabilities, list_roots_callback
        )
        self.spec: ConnectionSpec = spec
        self._opener = opener
        self.status = ConnectionStatus()
        self.session: ClientSession | None = None
        self.capabilities: ServerCapabilities | None = None
        self.server_info: Implementation | None = None
        self.protocol: str | None = None
        """The revision negotiated with the server (``2025-11-25``, ``2026-07-28``...)."""
        self.raw_calls: RawCalls | None = None
        """Plain ``tools/call`` requests on the live session's pipe: a stdio server of a
        handshake-era revision (:mod:`hermes_core.host.transports.raw_calls`), else ``None``."""
        self._runner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._gone = asyncio.Event()
        self._connect_lock = asyncio.Lock()
        self._call_lock: asyncio.Lock | None = None if parallel else asyncio.Lock()
        relist = (lambda: on_tools_changed(self)) if on_tools_changed is not None else None
        self._tools = ToolsChanged(relist, self._tasks)
        self._failures = FailureReports(name, spec)
        self._records = self._failures.records  # (read per request: HTTP marks)
        self._closed = False
        self._exit: ProcessExit | None = None
        self._transport_closed = False  # the session ended because the server side closed
        self._inflight = 0
        self._deadlines = Deadlines()
        self.last_used = time.monotonic()
        self.on_reconnected: Reconnected | None = None
        self._keepalive = Keepalive(spec.keepalive_interval, spec.keepalive_timeout)
        self._reconnector = Reconnector(
            self._tasks,
            self.status,
            connect=self.connect,
            connected=lambda: self.connected,
            closed=lambda: self._closed,
            reconnected=self._reconnected,
        )

    # -- what the host reads -----------------------------------------------------------
    @property
    def connected(self) -> bool:
        return self.session is not None and not self._gone.is_set()

    async def ensure(self) -> ClientSession | None:
        """The live session, reconnecting first when the server went away (``None``: it went
        away again at once; the request then fails as sent to a server gone)."""
        if not self.connected:
            await self.connect()
        return self.session

    @property
    def closed(self) -> bool:
        """Closed for good (:meth:`close`); a closed connection never reconnects."""
        return self._closed

    @property
    def reconnecting(self) -> bool:
        """An HTTP server is being retried in the background (with backoff)."""
        return self._reconnector.running

    @property
    def keepalive(self) -> KeepaliveStats:
        return self._keepalive.stats

    def keepalive_status(self) -> JsonObject | None:
        return self._keepalive.status()

    def stderr_lines(self) -> list[str]:
        """The server's stderr as the connection keeps it (bounded), oldest first; shown only."""
        return self._failures.stderr_lines()

    @property
    def _tools_worker(self) -> asyncio.Task[None] | None:
        """The re-list under way (tests wait for it)."""
        return self._tools.worker

    async def settled(self) -> None:
        """Wait until no connection attempt is in progress (safe to cancel)."""
        async with self._connect_lock:
            pass

    # -- what the host decides ---------------------------------------------------------
    def mark_failed(self, detail: str | None = None) -> None:
        """The host found the server unusable (a bad listing, a config error): *detail*
        (``None``: the reason already given stands)."""
        self.status.failed(detail)

    def mark_not_running(self, reason: str) -> None:
        """Its desktop app is not running: not started (see ``host/liveness``)."""
        self.status.not_running(reason)

    def mark_lazy(self) -> None:
        """Registered from its cached listing: not started until its first call."""
        self.status.lazy()

    # -- attempts ----------------------------------------------------------------------
    async def connect(self) -> None:
        """Connect (or reconnect) within ``connect_timeout``; raises :class:`ServerError`."""
        async with self._connect_lock:
            if self.connected:
                return
            if self.closed:  # a call that waited while a reload or the host closed it
                raise ServerError(self.name, "the connection was closed (removed or reloaded)")
            if not await self._attempt():
                await self._attempt()  # once more, over SSE

    def _falls_back_to_sse(self) -> bool:
        """After a failed attempt: switch a ``url`` without ``transport:`` to SSE when the
        Streamable HTTP endpoint answered 404 or 405 (a legacy SSE-only server)."""
        if self._sse_opener is None or self._opener is self._sse_opener:
            return False
        if not any(answer.status in (404, 405) for answer in self._failures.http_answers()):
            return False
        log.info("MCP server '%s': no Streamable HTTP endpoint; trying SSE", self.name)
        self._opener = self._sse_opener
        self.transport_used = "sse"
        return True

    async def _attempt(self) -> bool:
        """One connection attempt; False when it should be tried again over SSE."""
        # The SDK is imported before the clock starts (the first time, about half a second
        # of CPU): ``connect_timeout`` bounds the server's answer, not this process's imports.
        from mcp import ClientSession  # noqa: F401
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS  # noqa: F401

        await self._stop_runner()
        self._failures.attempt_starts()
        self._transport_closed = False
        started = time.monotonic()
        self.status.attempting()
        self._stop = asyncio.Event()
        self._gone = asyncio.Event()
        self._keepalive.new_session()
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._runner = self._tasks.spawn(self._session_task.run(ready), name="session")
        if self._runner is None:
            raise ServerError(self.name, "the connection was closed (removed or reloaded)")
        try:
            try:
                await asyncio.wait_for(asyncio.shield(ready), self.spec.connect_timeout)
            finally:
                self.status.attempt_seconds = time.monotonic() - started
        except TimeoutError:
            await self._stop_runner(cancel=True)
            self._fail(
                ConnectFailure(
                    f"no answer to initialize within {self.spec.connect_timeout:g} s", Cause.OTHER
                )
            )
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                # We are cancelled ourselves (Ctrl-C, a caller's timeout): nobody waits for
                # this attempt any more, so end it now, its process with it.
                await self._stop_runner(cancel=True)
                raise
            # The connection was closed under us (a reload removed or changed the server).
            raise ServerError(self.name, "stopped while connecting") from None
        except ServerError as exc:
            await self._stop_runner(cancel=True)
            if self._falls_back_to_sse():
                return False
            failure = exc.failure or ConnectFailure(exc.detail, Cause.OTHER)
            if failure.cause is Cause.CLOSED and failure.exit is not None:
                message = f"the server {failure.exit.sentence()} during startup"
                failure = dataclasses.replace(failure, message=message)
            self._fail(self._failures.with_http_note(failure))
        self.status.connected(time.monotonic())
        self.last_used = time.monotonic()
        return True

    def _fail(self, failure: ConnectFailure) -> NoReturn:
        detail, failure = self._failures.attempt_failed(failure)
        self.status.failed(detail, failure)
        if self.spec.transport != "stdio":
            self.schedule_reconnect()  # whoever tried (a call, a re-list), keep trying
        raise ServerError(self.name, detail, failure=failure)

    async def _stop_runner(self, *, cancel: bool = False) -> None:
        runner, self._runner = self._runner, None
        if runner is None:
            return
        self._stop.set()
        if cancel:
            runner.cancel()
        try:
            await asyncio.wait_for(asyncio.shield(runner), 10)
        except (TimeoutError, asyncio.CancelledError, Exception):  # noqa: BLE001
            runner.cancel()
            with contextlib.suppress(BaseException):
                await runner

    async def close(self) -> None:
        """Stop the server (stdio children are terminated) and forget the session."""
        self._closed = True
        self._tools.close()
        self._reconnector.cancel()
        # (gently: the session ends, a stdio child is asked to exit); a session still starting
        # up does not watch for the stop, so it is cancelled at once.
        await self._stop_runner(cancel=self.session is None)
        await self._tasks.close()  # the rest is cancelled and awaited
        self._deadlines.close()  # (requests still waiting end with the session)
        self.status.closed()
        self._failures.close()

    # -- recovery ----------------------------------------------------------------------
    def schedule_reconnect(self) -> None:
        """HTTP: reconnect in the background, with capped exponential backoff and jitter."""
        self._reconnector.schedule()

    async def _reconnected(self) -> None:
        if self.on_reconnected is not None:
            await self.on_reconnected(self)

    async def recycle_if_due(self, idle_seconds: float, lifetime_seconds: float) -> bool:
        """Stop a stdio server that sat idle or lived too long; the next call restarts it."""
        if not self.connected or self._inflight or self.spec.transport != "stdio":
            return False
        now = time.monotonic()
        if not recycle_due(
            now, self.last_used, self.status.connected_at, idle_seconds, lifetime_seconds
        ):
            return False
        await self._stop_runner()
        self.status.recycled()
        return True

    async def _renew_session(self, stale: ClientSession | None) -> ClientSession | None:
        """The server no longer knows our session: a new one (its tools may have changed)."""
        if self.session is stale:  # (a parallel call may have renewed it already)
            self._gone.set()
        await self.connect()
        if self.on_reconnected is not None:
            self._tasks.spawn(self.on_reconnected(self), name="re-list after a new session")
        return self.session

    async def _went_away(self, what: str) -> ServerError:
        self._gone.set()
        # Let the session's task record why (an auth failure says "run `hermes mcp login`").
        runner = self._runner
        if runner is not None and not runner.done():
            with contextlib.suppress(TimeoutError, asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(runner), 0.5)
        return self._failures.went_away(what, self.status, self._transport_closed)
