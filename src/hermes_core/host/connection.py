"""One MCP server's connection: spawn or dial, initialize, list, call, notice death, restart.

A connection runs its SDK session inside a task of its own (the SDK's
transports must be entered and left in one task), so the caller only ever
awaits ``connect``/``call_tool``/``close``.  The session reads the transport
through :class:`_EndWatch`, which notes the moment the server side closes, so
the next call restarts the server instead of hanging; nothing is polled.

A request costs an entry in the connection's deadline queue
(:mod:`hermes_core.host.deadlines`: one loop timer per connection) and nothing
else of ours: no watchdog task, no liveness check, no look into the server's
log unless the request failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import ssl
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import IO, Any, NoReturn, cast

from hermes_core.host.deadlines import Deadlines
from hermes_core.host.diagnostics import (
    Cause,
    ConnectFailure,
    Diagnostics,
    HttpError,
    ProcessExit,
    TransportNote,
)
from hermes_core.host.notifications import log_callback
from hermes_core.host.sanitize import clean_text
from hermes_core.host.server_log import ServerLog
from hermes_core.host.supervisor import TaskSupervisor
from hermes_core.host.transports import Opener, ServerSpec, capture_spawned

__all__ = ["ConnectionState", "ServerConnection", "ServerError"]

log = logging.getLogger(__name__)
_STDERR_TAIL_LINES = 8
RECONNECT_BASE_SECONDS = 1.0
RECONNECT_CAP_SECONDS = 60.0
#: A keepalive probe (``ping``, or a listing) must answer within this many seconds.
KEEPALIVE_TIMEOUT_SECONDS = 30.0
#: Rounds of ``InputRequiredResult`` (2026-07-28) one call may take before it fails.
INPUT_REQUIRED_MAX_ROUNDS = 10
#: JSON-RPC "method not found".
_METHOD_NOT_FOUND = -32601
#: Transports whose opener notes HTTP errors in the log instead of a child's stderr.
_HTTP_NOTED = frozenset({"streamable_http", "sse"})


class ServerError(RuntimeError):
    """A server could not be reached or a call to it failed; the message says what happened."""

    def __init__(
        self,
        server: str,
        message: str,
        *,
        retryable: bool = False,
        failure: ConnectFailure | None = None,
    ) -> None:
        message = clean_text(message)  # it can quote the server (stderr, error texts)
        own = message.startswith(f"MCP server '{server}'")  # already says which server
        super().__init__(message if own else f"MCP server '{server}': {message}")
        self.server = server
        self.detail = message
        self.retryable = retryable
        self.failure = failure
        """For a failed connection attempt: what happened, as a record."""


@dataclass
class KeepaliveStats:
    """What ``hermes mcp status --json`` shows of a server's keepalive."""

    interval: float
    probe: str = "ping"
    """``ping``; ``tools_list`` for a server without ping; ``off`` when it offers neither."""
    probes: int = 0
    failures: int = 0
    last_failure: str | None = None


@dataclass
class ConnectionState:
    """What ``hermes mcp status`` shows for one server."""

    state: str = (
        "disconnected"  # disconnected | connecting | connected | degraded | recycled | failed
        # | closed
    )
    last_error: str | None = None
    connected_at: float | None = None
    connects: int = 0
    recycles: int = 0
    next_retry_in: float | None = None
    attempt_seconds: float | None = None
    """How long the last connection attempt took (successful or not)."""
    needs_login: bool = False
    """The last failure was the server refusing our authorization (``last_error`` says what
    to do, e.g. run ``hermes mcp login``)."""
    failure: ConnectFailure | None = None
    """The last failed connection attempt, as a record (``last_error`` is its sentence)."""
    on_change: Callable[[], None] | None = field(default=None, repr=False, compare=False)
    """Called whenever :attr:`state` changes (the host clears its gate cache)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "last_error" and isinstance(value, str):
            value = clean_text(value)  # shown on terminals; it can quote the server
        changed = name == "state" and getattr(self, "state", value) != value
        object.__setattr__(self, name, value)
        if changed and self.on_change is not None:
            self.on_change()


class ServerConnection:
    """The SDK session to one server, owned by a background task."""

    def __init__(
        self,
        name: str,
        spec: ServerSpec,
        *,
        on_tools_changed: Callable[[ServerConnection], Coroutine[Any, Any, None]] | None = None,
        parallel: bool = False,
        opener: Opener | None = None,
        elicitation_callback: Any = None,
        sse_opener: Opener | None = None,
        sampling_callback: Any = None,
        sampling_capabilities: Any = None,
        list_roots_callback: Any = None,
        tasks: TaskSupervisor | None = None,
    ) -> None:
        """*tasks* is the host's supervisor: this connection's background tasks (the session
        runner, reconnects, re-lists, the deadline watchdog) are started in a child of it, so
        the host's close ends them all (a connection on its own gets its own)."""
        self.name = name
        self._tasks = (tasks or TaskSupervisor("MCP host")).child(f"MCP server '{name}'")
        self._sse_opener = sse_opener
        self.transport_used: str = spec.transport
        """The transport in use: ``sse`` after a fallback from Streamable HTTP."""
        self._elicitation_callback = elicitation_callback
        self._sampling_callback = sampling_callback
        self._sampling_capabilities = sampling_capabilities
        self._list_roots_callback = list_roots_callback
        self.spec = spec
        self._opener = opener
        self.status = ConnectionState()
        self.session: Any = None
        self.capabilities: Any = None
        self.server_info: Any = None
        self.protocol: str | None = None
        """The revision negotiated with the server (``2025-11-25``, ``2026-07-28``...)."""
        self._on_tools_changed = on_tools_changed
        self._runner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._gone = asyncio.Event()
        self._connect_lock = asyncio.Lock()
        self._call_lock: asyncio.Lock | None = None if parallel else asyncio.Lock()
        self._tools_dirty = False
        self._tools_worker: asyncio.Task[None] | None = None
        self._records = Diagnostics()  # what our transports noted (HTTP errors, limits)
        self._stderr = ServerLog(self._records)  # the server's own words, bounded, shown only
        self._closed = False
        self._attempt_mark = 0  # the records of the current attempt start here
        self._exit: ProcessExit | None = None
        self._transport_closed = False  # the session ended because the server side closed
        self._read: _EndWatch | None = None
        self._inflight = 0
        self._deadlines = Deadlines()
        self.last_used = time.monotonic()
        self._reconnector: asyncio.Task[None] | None = None
        self.on_reconnected: Callable[[ServerConnection], Coroutine[Any, Any, None]] | None = None
        self.keepalive = KeepaliveStats(interval=float(getattr(spec, "keepalive_interval", 0.0)))
        self._probe_kind: str | None = "ping"  # per connection: ping, tools_list or None (off)
        self._probed_at = 0.0
        self._keepalive_failed = False

    # -- lifecycle -------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        """Closed for good (:meth:`close`); a closed connection never reconnects."""
        return self._closed

    async def settled(self) -> None:
        """Wait until no connection attempt is in progress (safe to cancel)."""
        async with self._connect_lock:
            pass

    @property
    def reconnecting(self) -> bool:
        """An HTTP server is being retried in the background (with backoff)."""
        return self._reconnector is not None and not self._reconnector.done()

    @property
    def connected(self) -> bool:
        return self.session is not None and not self._gone.is_set()

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
        answers = self._records.since(self._attempt_mark, HttpError)
        if not any(answer.status in (404, 405) for answer in answers):
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
        self._attempt_mark = self._records.mark()
        self._transport_closed = False
        started = time.monotonic()
        self.status.state = "connecting"
        self._stop = asyncio.Event()
        self._gone = asyncio.Event()
        self._probe_kind, self._keepalive_failed = "ping", False  # a new session: ping again
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._runner = self._tasks.spawn(self._run(ready), name="session")
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
            self._fail(self._with_http_note(failure))
        self.status.state = "connected"
        self.status.last_error = None
        self.status.failure = None
        self.status.needs_login = False
        self.status.connected_at = time.monotonic()
        self.status.connects += 1
        self.last_used = time.monotonic()
        return True

    def _transport_note(self) -> str | None:
        """The last thing our transport noted about the server during this attempt, if any
        (a record: never a line of the server's own stderr)."""
        notes = self._records.since(self._attempt_mark, TransportNote)
        return notes[-1].text if notes else None

    def _fail(self, failure: ConnectFailure) -> NoReturn:
        detail = failure.message
        note = self._transport_note()
        if note and failure.cause is not Cause.MESSAGE_TOO_LARGE:  # (that one says it already)
            detail = f"{detail} ({note})"
        tail = self._stderr_tail() if self.spec.transport not in _HTTP_NOTED else ""
        if tail:
            detail += f"; its stderr ended with:\n{tail}"
        lines = tuple(clean_text(line.strip()) for line in tail.splitlines())
        failure = dataclasses.replace(failure, message=clean_text(detail), stderr_tail=lines)
        self.status.state = "failed"
        self.status.last_error = detail
        self.status.failure = failure
        if self.spec.transport != "stdio":
            self.schedule_reconnect()  # whoever tried (a call, a re-list), keep trying
        raise ServerError(self.name, detail, failure=failure)

    def _with_http_note(self, failure: ConnectFailure) -> ConnectFailure:
        """For HTTP: the SDK's generic "Server returned an error response" (a JSON-RPC error)
        or a bare status replaced by what the server really answered during this attempt
        (status, auth challenge), with a hint."""
        if self.spec.transport not in _HTTP_NOTED or failure.cause not in (
            Cause.PROTOCOL,
            Cause.HTTP_STATUS,
        ):
            return failure
        answers = self._records.since(self._attempt_mark, HttpError)
        if not answers:
            return failure
        answer = answers[-1]
        message = answer.sentence()
        if answer.status == 401 and getattr(self.spec, "auth", None) is None:
            message += (
                "; the server asks for authorization: set `auth: oauth` for this server and "
                f"run `hermes mcp login {self.name}`, or give its token in `headers`"
            )
        elif answer.status == 403:
            message += "; the server refused these credentials"
        elif answer.status == 404:
            message += "; check the url (the path of the MCP endpoint, often /mcp)"
        return ConnectFailure(message, Cause.HTTP_STATUS, http_status=answer.status)

    def _stderr_tail(self) -> str:
        try:
            self._stderr.flush()
            self._stderr.seek(0)
            lines = self._stderr.read().splitlines()[-_STDERR_TAIL_LINES:]
            self._stderr.seek(0, 2)
        except (OSError, ValueError):
            return ""
        return "\n".join("    " + line for line in lines if line.strip())

    async def _run(self, ready: asyncio.Future[None]) -> None:
        from mcp import ClientSession
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        try:
            async with contextlib.AsyncExitStack() as stack:
                opener = self._opener
                if opener is None:
                    raise LookupError(f"no transport named {self.spec.transport!r} is registered")
                spawned = stack.enter_context(capture_spawned())
                transport_read, write = await stack.enter_async_context(
                    opener(self.spec, cast(IO[str], self._stderr))
                )
                read = self._read = _EndWatch.around(transport_read, self._gone)
                session = await stack.enter_async_context(
                    ClientSession(
                        read,
                        write,
                        message_handler=self._on_message,
                        elicitation_callback=self._elicitation_callback,
                        logging_callback=log_callback(self.name),
                        sampling_callback=self._sampling_callback,
                        sampling_capabilities=self._sampling_capabilities,
                        list_roots_callback=self._list_roots_callback,
                    )
                )
                try:
                    await _negotiate(session)
                except Exception:
                    self._exit = await _process_exit(spawned)
                    raise
                self.capabilities = session.server_capabilities
                self.server_info = session.server_info
                self.protocol = session.protocol_version
                if self.protocol in MODERN_PROTOCOL_VERSIONS:
                    self._probe_kind = "tools_list"  # ping is gone in the modern revision
                    await self._listen_for_changes(stack, session)
                self.session = session
                ready.set_result(None)
                # Woken by a close, by the server's side of the transport closing (the
                # read stream's end sets _gone) and, with keepalive on, when a probe is due.
                while not self._stop.is_set() and not self._gone.is_set():
                    await self._until_stop_or_gone(self._keepalive_wait())
                    if read.ended:
                        self._transport_closed = True
                        self.status.last_error = "the server went away"
                        break
                    if self._stop.is_set() or self._gone.is_set():
                        break
                    if self._keepalive_due():
                        failure = await self._keepalive_probe(session)
                        if failure is not None:
                            self._keepalive_failed = True
                            self.keepalive.failures += 1
                            self.keepalive.last_failure = failure
                            self.status.last_error = f"keepalive failed: {failure}"
                            log.warning(
                                "MCP server '%s': keepalive failed (%s); reconnecting",
                                self.name,
                                failure,
                            )
                            break
        except asyncio.CancelledError:
            if not ready.done():
                ready.cancel()
            raise
        except BaseException as exc:  # noqa: BLE001 - every failure becomes the connection's error
            broke = _describe(exc, self.spec)
            if self._exit is not None:
                broke, self._exit = dataclasses.replace(broke, exit=self._exit), None
            message = broke.message
            self.status.needs_login = broke.cause is Cause.AUTH
            if not ready.done():
                ready.set_exception(ServerError(self.name, message, failure=broke))
            else:
                if message.startswith(f"MCP server '{self.name}'"):
                    log.warning("%s", message)
                else:
                    log.warning("MCP server '%s' failed: %s", self.name, message)
                self.status.last_error = message
        finally:
            self.session = None
            self._gone.set()
            if self.status.state == "connected":
                self.status.state = "degraded" if self._keepalive_failed else "disconnected"
                if self._keepalive_failed and not self._stop.is_set():
                    self.schedule_reconnect()  # stdio too: the wedged child was stopped
                elif self.spec.transport != "stdio" and not self._stop.is_set():
                    self.schedule_reconnect()

    async def _listen_for_changes(self, stack: contextlib.AsyncExitStack, session: Any) -> None:
        """Modern revision: list_changed comes only on a ``subscriptions/listen`` stream."""
        from mcp.client.subscriptions import SubscriptionLost, ToolsListChanged, listen

        tools = getattr(self.capabilities, "tools", None)
        if self._on_tools_changed is None or not getattr(tools, "list_changed", False):
            return
        subscription = await stack.enter_async_context(listen(session, tools_list_changed=True))

        async def pump() -> None:
            try:
                async for event in subscription:
                    if isinstance(event, ToolsListChanged):
                        self._tools_changed()
            except SubscriptionLost:
                # The stream ended without the server closing it: it went away (or dropped
                # us).  One line, not a traceback: the next request says what it finds.
                log.warning(
                    "MCP server '%s': its list_changed stream ended (the server went away?)",
                    self.name,
                )

        task = self._tasks.spawn(pump(), name="list_changed subscription")
        if task is not None:
            stack.push_async_callback(_cancel_and_wait, task)

    async def _until_stop_or_gone(self, timeout: float | None) -> None:
        """Wait until the connection is stopped or its server gone, at most *timeout* s."""
        waiters = {
            asyncio.ensure_future(self._stop.wait()),
            asyncio.ensure_future(self._gone.wait()),
        }
        try:
            await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:  # ended here, never left pending
            for waiter in waiters:
                await _cancel_and_wait(waiter)

    # -- keepalive ---------------------------------------------------------------------
    def _keepalive_wait(self) -> float | None:
        """Seconds until a keepalive probe may be due; ``None`` when keepalive is off."""
        interval = self.keepalive.interval
        if interval <= 0 or self._probe_kind is None:
            return None
        if self._inflight:
            return interval  # the call's end moves the quiet time on
        quiet_since = max(self.last_used, self.status.connected_at or 0.0, self._probed_at)
        return max(0.0, quiet_since + interval - time.monotonic())

    def _keepalive_due(self) -> bool:
        """Quiet for a whole interval, nothing in flight, and a way to probe left."""
        interval = self.keepalive.interval
        if interval <= 0 or self._probe_kind is None or self._inflight:
            return False
        quiet_since = max(self.last_used, self.status.connected_at or 0.0, self._probed_at)
        return time.monotonic() - quiet_since >= interval

    async def _keepalive_probe(self, session: Any) -> str | None:
        """Probe the server; ``None`` when it answered, else what went wrong.  A server without
        ``ping`` is probed with a tools listing from then on (for this session)."""
        from mcp.shared.exceptions import MCPError

        self._probed_at = time.monotonic()
        self.keepalive.probes += 1
        # Not tied to the interval: a busy machine must not turn a slow answer into a failure.
        timeout = float(getattr(self.spec, "keepalive_timeout", KEEPALIVE_TIMEOUT_SECONDS))
        has_tools = self.capabilities is not None and self.capabilities.tools is not None
        try:
            if self._probe_kind == "ping":
                try:
                    await self._until_stopped(session.send_ping(), timeout)
                    return None
                except MCPError as exc:
                    if exc.code != _METHOD_NOT_FOUND:
                        raise
                    if not has_tools:
                        self._probe_kind = None  # nothing cheap to probe with: stop probing
                        return None
                    self._probe_kind = "tools_list"
                except TimeoutError:
                    if not has_tools:
                        raise
                    # Some servers never answer ping; a listing decides.
                    await self._until_stopped(session.list_tools(), timeout)
                    self._probe_kind = "tools_list"
                    return None
            await self._until_stopped(session.list_tools(), timeout)
            return None
        except TimeoutError:
            return f"no answer within {timeout:g} s"
        except Exception as exc:  # noqa: BLE001 - any failed probe means the session is suspect
            return f"{type(exc).__name__}: {exc}"
        finally:
            self.keepalive.probe = self._probe_kind or "off"
            self._probed_at = time.monotonic()

    async def _until_stopped(self, request: Coroutine[Any, Any, Any], timeout: float) -> None:
        """Await *request* within *timeout*; a close in the meantime ends the wait at once."""
        task = asyncio.ensure_future(request)
        stop = asyncio.ensure_future(self._stop.wait())
        try:
            done, _ = await asyncio.wait(
                {task, stop}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:  # both are ours to end, whatever happened (a cancel of this very wait too)
            await _cancel_and_wait(stop)
            if not task.done():
                await _cancel_and_wait(task)
        if task in done:
            task.result()
            return
        if stop in done:
            return  # closing: not a failure of the server
        raise TimeoutError

    def keepalive_status(self) -> dict[str, Any] | None:
        if self.keepalive.interval <= 0:
            return None
        return dataclasses.asdict(self.keepalive)

    # -- recovery ----------------------------------------------------------------------
    def schedule_reconnect(self) -> None:
        """HTTP: reconnect in the background, with capped exponential backoff and jitter."""
        if self._closed or (self._reconnector is not None and not self._reconnector.done()):
            return
        self._reconnector = self._tasks.spawn(self._reconnect_loop(), name="reconnect")

    async def _reconnect_loop(self) -> None:
        attempt = 0
        while not self._closed and not self.connected:
            delay = min(RECONNECT_CAP_SECONDS, RECONNECT_BASE_SECONDS * 2**attempt)
            self.status.next_retry_in = delay * random.uniform(0.5, 1.0)
            await asyncio.sleep(self.status.next_retry_in)
            try:
                await self.connect()
            except ServerError:
                attempt += 1
                continue
            self.status.next_retry_in = None
            if self.on_reconnected is not None:
                await self.on_reconnected(self)
            return

    async def recycle_if_due(self, idle_seconds: float, lifetime_seconds: float) -> bool:
        """Stop a stdio server that sat idle or lived too long; the next call restarts it."""
        if not self.connected or self._inflight or self.spec.transport != "stdio":
            return False
        now = time.monotonic()
        idle = idle_seconds > 0 and now - self.last_used >= idle_seconds
        old = (
            lifetime_seconds > 0
            and self.status.connected_at is not None
            and now - self.status.connected_at >= lifetime_seconds
        )
        if not (idle or old):
            return False
        await self._stop_runner()
        self.status.state = "recycled"
        self.status.recycles += 1
        return True

    async def _on_message(self, message: Any) -> None:
        from mcp import types

        inner = getattr(message, "root", message)
        if isinstance(inner, types.ToolListChangedNotification) and self._on_tools_changed:
            self._tools_changed()

    def _tools_changed(self) -> None:
        # Never refresh inline: the handler runs on the session's receive loop.  A storm is
        # coalesced: one re-list at a time, and one more only if a change came meanwhile.
        if self._on_tools_changed is not None:
            self._tools_dirty = True
            if self._tools_worker is None or self._tools_worker.done():
                self._tools_worker = self._tasks.spawn(self._relist_while_dirty(), name="re-list")

    async def _relist_while_dirty(self) -> None:
        while self._tools_dirty and self._on_tools_changed is not None and not self._closed:
            self._tools_dirty = False
            await self._on_tools_changed(self)

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
        if self._reconnector is not None:
            self._reconnector.cancel()
        # (gently: the session ends, a stdio child is asked to exit); a session still starting
        # up does not watch for the stop, so it is cancelled at once.
        await self._stop_runner(cancel=self.session is None)
        await self._tasks.close()  # the rest is cancelled and awaited
        self._deadlines.close()  # (requests still waiting end with the session)
        self.status.state = "closed"
        with contextlib.suppress(OSError):
            self._stderr.close()

    # -- requests --------------------------------------------------------------------
    @staticmethod
    def tools_call(
        session: Any, tool: str, args: dict[str, Any], progress: Any = None, **answers: Any
    ) -> Coroutine[Any, Any, Any]:
        """``tools/call`` on *session* in either revision, as a :meth:`request` call:
        ``connection.request(what, ServerConnection.tools_call, timeout, tool, args)``.

        A plain function returning the SDK's coroutine (no frame of its own on the call path).
        On 2026-07-28 the server may answer with an ``InputRequiredResult``; :meth:`request`
        then answers its rounds and calls this again with *answers* (``input_responses``,
        ``request_state``)."""
        call: Coroutine[Any, Any, Any] = session.call_tool(
            tool, args, progress_callback=progress, allow_input_required=True, **answers
        )
        return call

    async def until_answered(
        self,
        session: Any,
        what: str,
        send: Callable[[Any, str | None], Awaitable[Any]],
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
        from mcp.client.context import ClientRequestContext

        from hermes_core._sdk_compat import InputRoundsExceeded, run_input_required

        async def dispatch(key: str, request: Any) -> Any:
            meta = request.params.meta if request.params else None
            context = ClientRequestContext(session=session, request_id=key, meta=meta)
            return await session.dispatch_input_request(context, request)

        try:
            return await run_input_required(
                first, dispatch=dispatch, retry=send, max_rounds=INPUT_REQUIRED_MAX_ROUNDS
            )
        except InputRoundsExceeded as exc:
            raise ServerError(self.name, f"{what}: {exc}") from None

    async def ensure(self) -> Any:
        """The live session, reconnecting first when the server went away."""
        if not self.connected:
            await self.connect()
        return self.session

    async def request(
        self,
        what: str,
        call: Callable[..., Coroutine[Any, Any, Any]],
        timeout: float,
        *args: Any,
    ) -> Any:
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
            mark = self._records.mark() if self.spec.transport in _HTTP_NOTED else None
            try:
                try:
                    result = await call(session, *args)
                except Exception:
                    if mark is None or not self._session_refused_since(mark):
                        raise
                    # The server no longer knows our session (it restarted, or expired it) and
                    # refused the request, so it never ran: start a new session and send it
                    # again.
                    log.info("MCP server '%s': its session ended; starting a new one", self.name)
                    session = await self._renew_session(session)
                    result = await call(session, *args)
                if isinstance(result, _INPUT_REQUIRED or _input_required_type()):
                    result = await self._answer_rounds(session, what, result, call, args)
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
                if self._gone.is_set() or _connection_closed(exc):
                    raise await self._went_away(what) from None
                raise
            finally:
                deadlines.finish(deadline)
                if lock is not None:
                    lock.release()
        finally:
            self._inflight -= 1
            self.last_used = time.monotonic()

    async def _answer_rounds(
        self,
        session: Any,
        what: str,
        first: Any,
        call: Callable[..., Coroutine[Any, Any, Any]],
        args: tuple[Any, ...],
    ) -> Any:
        async def send(responses: Any, state: str | None) -> Any:
            return await call(session, *args, input_responses=responses, request_state=state)

        if call is ServerConnection.tools_call:
            what = args[0]  # a tool's rounds are told by its name ("forever: the server asked…")
        return await self.until_answered(session, what, send, first=first)

    def _session_refused_since(self, mark: int) -> bool:
        """Whether, since *mark*, an HTTP request was refused as not belonging to a live
        session (404, the spec's answer; 400, what several SDK servers answer)."""
        from hermes_core.config.models import display_url

        endpoint = display_url(self.spec.url or "")
        return any(
            answer.status in (404, 400) and answer.method == "POST" and answer.url == endpoint
            for answer in self._records.since(mark, HttpError)
        )

    async def _renew_session(self, stale: Any) -> Any:
        if self.session is stale:  # (a parallel call may have renewed it already)
            self._gone.set()
        await self.connect()
        if self.on_reconnected is not None:  # its tools may have changed with the restart
            self._tasks.spawn(self.on_reconnected(self), name="re-list after a new session")
        return self.session

    async def _went_away(self, what: str) -> ServerError:
        self._gone.set()
        # Let the session's task record why (an auth failure says "run `hermes mcp login`").
        runner = self._runner
        if runner is not None and not runner.done():
            with contextlib.suppress(TimeoutError, asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(runner), 0.5)
        reason = self.status.last_error
        if reason and self.status.needs_login:
            # The server refused the request itself (401/403): the call never ran.
            core = reason.removeprefix(f"MCP server '{self.name}' ")
            return ServerError(self.name, f"{what} was not run: the server {core}")
        if not reason or self._transport_closed:
            reason = self._transport_note()  # e.g. a message over max_message_bytes
        why = f" ({reason})" if reason else ""
        return ServerError(
            self.name,
            f"the server went away during {what}{why}; "
            "the call was not retried (its outcome is unknown)",
        )


_INPUT_REQUIRED: type | None = None
"""The SDK's ``InputRequiredResult``, imported on the first call (not per call)."""


def _input_required_type() -> type:
    global _INPUT_REQUIRED  # a cache of an import
    from mcp_types import InputRequiredResult

    _INPUT_REQUIRED = InputRequiredResult
    return InputRequiredResult


class _EndWatch:
    """The transport's read stream as the session reads it, noting when it ends.

    The session's receive loop is the only reader, so the end of the stream (the server
    exited, crashed or dropped the connection) is seen here the moment it happens: *gone* is
    set and :attr:`ended` becomes true, before the session fails the requests in flight.  The
    SDK's loop reads through ``__anext__`` either way, so this adds no call per message.
    """

    __slots__ = ("_gone", "_inner", "ended")

    def __init__(self, inner: Any, gone: asyncio.Event) -> None:
        self._inner = inner
        self._gone = gone
        self.ended = False

    def _end(self) -> None:
        self.ended = True
        self._gone.set()

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except _stream_ends():
            self._end()
            raise

    def __aiter__(self) -> _EndWatch:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self._inner.receive()
        except _stream_ends() as exc:
            self._end()
            import anyio  # (once per stream: it ends once)

            if isinstance(exc, anyio.EndOfStream):
                raise StopAsyncIteration from None
            raise

    async def __aenter__(self) -> _EndWatch:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> Any:
        return await self._inner.__aexit__(*exc_info)

    last_context: Any = None
    """The sender's context of the last message (the SDK's HTTP streams keep one)."""

    def __getattr__(self, name: str) -> Any:  # close, aclose, statistics, ...
        return getattr(self._inner, name)

    @staticmethod
    def around(inner: Any, gone: asyncio.Event) -> _EndWatch:
        if hasattr(inner, "last_context"):
            return _ContextEndWatch(inner, gone)
        return _EndWatch(inner, gone)


class _ContextEndWatch(_EndWatch):
    """:class:`_EndWatch` over a stream that keeps each message's sender context."""

    __slots__ = ()

    @property
    def last_context(self) -> Any:
        return self._inner.last_context


def _stream_ends() -> tuple[type[BaseException], ...]:
    import anyio

    return (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError)


async def _negotiate(session: Any) -> None:
    """Choose the server's revision: the ``initialize`` handshake first, and the 2026-07-28
    per-request envelope (``server/discover``) when the server refuses the handshake.

    Handshake first, not the SDK's discover-first ``negotiate_auto``: servers that speak both
    eras keep the handshake, where the SDK lets a tool ask the user (``ctx.elicit``) in the
    middle of a call; on the modern revision that same tool fails ("no back-channel for
    server-initiated requests").  A handshake-era server also never sees an unknown request
    before ``initialize`` (some ignore it: the SDK's probe would wait 10 s).
    """
    from mcp.shared.exceptions import MCPError

    from hermes_core import _sdk_compat

    # The initialize carries the per-request envelope too (headers and ``_meta``): a server
    # of the current revision requires it on every request, a handshake-era one ignores it.
    _sdk_compat.envelope_handshake(session)
    try:
        await session.initialize()
    except (MCPError, RuntimeError) as refused:
        # Refused (a 2026-only server: -32022 or "method not found"), or answered with a
        # 2026-era version (which the handshake cannot carry): ask ``server/discover``.
        if isinstance(refused, RuntimeError) and not _sdk_compat.modern_answer_to_initialize(
            refused
        ):
            raise
        try:
            await session.discover()  # adopts the newest revision both sides speak
        except Exception:  # noqa: BLE001 - not a modern server either: the handshake's error
            raise refused from None


async def _process_exit(spawned: list[Any]) -> ProcessExit | None:
    """How the one process the transport started ended, once it has exited."""
    if len(spawned) != 1:
        return None
    process = spawned[0]
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), 0.5)
    except Exception:  # noqa: BLE001 - a diagnostic must never mask the real error
        return None
    code = getattr(process, "returncode", None)
    return ProcessExit.from_returncode(code) if isinstance(code, int) else None


def _connection_closed(exc: BaseException) -> bool:
    """The SDK's "the connection closed under this request" (JSON-RPC ``CONNECTION_CLOSED``,
    but not a request's broken SSE stream, which the SDK reports with that code too), or the
    streams' own end."""
    import anyio
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    from hermes_core import _sdk_compat

    if isinstance(exc, MCPError):
        return exc.code == CONNECTION_CLOSED and not _sdk_compat.is_sse_stream_failure(exc)
    return isinstance(exc, anyio.ClosedResourceError | anyio.EndOfStream)


async def _cancel_and_wait(task: asyncio.Future[Any]) -> None:
    """Cancel *task* and wait until it has ended; its outcome is retrieved, not raised (a
    cancel of the caller itself still propagates)."""
    task.cancel()
    await asyncio.wait([task])
    if not task.cancelled():
        task.exception()  # it ended on its own meanwhile: retrieved, never "never retrieved"


def _first_leaf(exc: BaseException) -> BaseException:
    if isinstance(exc, BaseExceptionGroup):
        leaves = list(_leaves(exc))
        return leaves[0] if leaves else exc
    return exc


def _is_auth_failure(exc: BaseException) -> bool:
    """Ours (:class:`~hermes_core.auth.errors.OAuthError`) or the SDK's OAuth errors."""
    from mcp.client.auth import OAuthFlowError

    from hermes_core.auth.errors import OAuthError

    return isinstance(_first_leaf(exc), OAuthError | OAuthFlowError)


def _tls_failure(exc: BaseException) -> bool:
    """A TLS error, or the server's certificate failing verification behind the HTTP client's
    connect error (a server refusing *our* certificate just drops the connection)."""
    if isinstance(exc, ssl.SSLError):
        return True
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, ssl.SSLCertVerificationError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _describe(exc: BaseException, spec: ServerSpec) -> ConnectFailure:
    """What went wrong while connecting: a sentence (URLs shown without secrets) and its kind."""
    import httpx2
    from mcp.shared.exceptions import MCPError

    from hermes_core import _sdk_compat
    from hermes_core.auth.errors import OAuthError
    from hermes_core.config.models import display_url
    from hermes_core.host.transports import MessageTooLargeError

    url = display_url(spec.url) if spec.url else ""
    exc = _first_leaf(exc)
    name = type(exc).__name__
    text = str(exc).strip()
    if isinstance(exc, OAuthError):
        return ConnectFailure(str(exc), Cause.AUTH)  # says what happened and what to do
    if _is_auth_failure(exc):
        return ConnectFailure(f"OAuth failed: {text or name}", Cause.AUTH)
    if isinstance(exc, FileNotFoundError) and spec.transport == "stdio":
        return ConnectFailure(
            f"command not found: {spec.command!r} (not on PATH, or the file does not exist)",
            Cause.COMMAND_MISSING,
        )
    if isinstance(exc, PermissionError) and spec.transport == "stdio":
        return ConnectFailure(
            f"command cannot be run: {spec.command!r} ({exc.strerror})", Cause.COMMAND_DENIED
        )
    if isinstance(exc, MessageTooLargeError):
        return ConnectFailure(f"{name}: {text}", Cause.MESSAGE_TOO_LARGE)
    if _sdk_compat.is_sse_event_too_large(exc):
        return ConnectFailure(
            f"{name}: {text} (max_message_bytes of this server)", Cause.MESSAGE_TOO_LARGE
        )
    if isinstance(exc, httpx2.HTTPStatusError):
        status = exc.response.status_code
        return ConnectFailure(f"HTTP {status} from {url}", Cause.HTTP_STATUS, http_status=status)
    if _tls_failure(exc):
        reason = getattr(exc, "reason", None) or text or name
        return ConnectFailure(f"TLS error with {url}: {reason}", Cause.TLS)
    network = (
        httpx2.ConnectError,
        httpx2.ConnectTimeout,
        httpx2.ReadError,
        httpx2.WriteError,
        httpx2.RemoteProtocolError,
    )
    if isinstance(exc, network):
        detail = f"cannot connect to {url}: {text or name}"
        if not isinstance(exc, httpx2.ConnectTimeout) and (spec.url or "").startswith("https:"):
            certificate = getattr(spec, "client_certificate", None)
            detail += (
                " (the server dropped the connection; if it requires a client certificate, "
                "set client_cert)"
                if certificate is None
                else " (the server dropped the connection; it may not accept this client_cert)"
            )
        return ConnectFailure(detail, Cause.NETWORK)
    if _connection_closed(exc):
        return ConnectFailure(
            "the server closed the connection during startup (it exited or crashed)",
            Cause.CLOSED,
        )
    cause = Cause.PROTOCOL if isinstance(exc, MCPError) else Cause.OTHER
    return ConnectFailure(f"{name}: {text}" if text else name, cause)


def _leaves(group: BaseExceptionGroup) -> Any:
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            yield from _leaves(exc)
        else:
            yield exc
