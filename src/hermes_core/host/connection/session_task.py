"""The task that owns one SDK session: open the transport, negotiate, then wait for its end.

The SDK's transports must be entered and left in one task, so each connection attempt runs
:meth:`SessionTask.run` in a task of its own: it opens the transport (through
:class:`~hermes_core.host.connection.end_watch.EndWatch`, which notes the moment the server's
side closes), negotiates the revision, hands the session over (*ready*), and then sleeps until
the connection is stopped, the server goes away or a keepalive probe is due.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from hermes_core._sdk_compat import quiet_sdk_spans
from hermes_core._sdk_compat.tasks import session_extensions
from hermes_core.host.connection.diagnostics import Cause
from hermes_core.host.connection.end_watch import EndWatch
from hermes_core.host.connection.errors import ServerError
from hermes_core.host.connection.failures import describe, process_exit
from hermes_core.host.connection.negotiation import listen_for_changes, negotiate
from hermes_core.host.connection.waits import until_either
from hermes_core.host.server_notifications import log_callback
from hermes_core.host.transports.raw_calls import RawCalls
from hermes_core.host.transports.spawned import capture_spawned

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.client.session import ElicitationFnT, ListRootsFnT, SamplingFnT
    from mcp.types import Implementation, SamplingCapability, ServerCapabilities

    from hermes_core.host.connection.diagnostics import ProcessExit
    from hermes_core.host.connection.failures import FailureReports
    from hermes_core.host.connection.keepalive import Keepalive
    from hermes_core.host.connection.list_changed import ToolsChanged
    from hermes_core.host.connection.state import ConnectionStatus
    from hermes_core.host.supervisor import TaskSupervisor
    from hermes_core.host.transports import Opener
    from hermes_core.plugins.types import ServerSpec

__all__ = ["SessionCallbacks", "SessionOwner", "SessionTask"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SessionCallbacks:
    """What the session answers a server's requests with (``None``: not offered)."""

    elicitation: ElicitationFnT | None = None
    sampling: SamplingFnT | None = None
    sampling_capabilities: SamplingCapability | None = None
    list_roots: ListRootsFnT | None = None


class SessionOwner(Protocol):
    """What a :class:`SessionTask` fills in and reads of its connection
    (:class:`~hermes_core.host.connection.ServerConnection`)."""

    name: str
    status: ConnectionStatus
    session: ClientSession | None
    capabilities: ServerCapabilities | None
    server_info: Implementation | None
    protocol: str | None
    raw_calls: RawCalls | None
    last_used: float
    _opener: Opener | None
    _callbacks: SessionCallbacks
    _failures: FailureReports
    _keepalive: Keepalive
    _tools: ToolsChanged
    _tasks: TaskSupervisor
    _stop: asyncio.Event
    _gone: asyncio.Event
    _inflight: int
    _exit: ProcessExit | None
    _transport_closed: bool

    @property
    def spec(self) -> ServerSpec: ...

    def schedule_reconnect(self) -> None: ...


class SessionTask:
    """The session's own task, run for one connection: it fills the connection's attributes
    (the session, what the server said of itself, why it ended) and asks it to reconnect."""

    def __init__(self, connection: SessionOwner) -> None:
        self._connection = connection

    async def run(self, ready: asyncio.Future[None]) -> None:
        """One attempt's session: open, negotiate, hand it over (*ready*), then serve it."""
        from mcp import ClientSession

        conn = self._connection
        quiet_sdk_spans()  # no tracing work per request while telemetry is off

        try:
            async with contextlib.AsyncExitStack() as stack:
                opener = conn._opener
                if opener is None:
                    raise LookupError(f"no transport named {conn.spec.transport!r} is registered")
                spawned = stack.enter_context(capture_spawned())
                transport_read, write = await stack.enter_async_context(
                    opener(conn.spec, conn._failures.errlog)
                )
                read = EndWatch.around(transport_read, conn._gone)
                callbacks = conn._callbacks
                session = await stack.enter_async_context(
                    ClientSession(
                        read,
                        write,
                        message_handler=conn._tools.on_message,
                        elicitation_callback=callbacks.elicitation,
                        logging_callback=log_callback(conn.name),
                        sampling_callback=callbacks.sampling,
                        sampling_capabilities=callbacks.sampling_capabilities,
                        list_roots_callback=callbacks.list_roots,
                        **session_extensions(),  # the tasks extension (2026-07-28)
                    )
                )
                try:
                    await negotiate(session)
                except Exception:
                    conn._exit = await process_exit(spawned)
                    raise
                await self._adopt(session, write, stack)
                ready.set_result(None)
                await self._serve(session, read)
        except asyncio.CancelledError:
            if not ready.done():
                ready.cancel()
            raise
        except BaseException as exc:  # noqa: BLE001 - every failure becomes the connection's error
            broke = describe(exc, conn.spec)
            if conn._exit is not None:
                broke, conn._exit = dataclasses.replace(broke, exit=conn._exit), None
            message = broke.message
            conn.status.needs_login = broke.cause is Cause.AUTH
            if not ready.done():
                ready.set_exception(ServerError(conn.name, message, failure=broke))
            else:
                if message.startswith(f"MCP server '{conn.name}'"):
                    log.warning("%s", message)
                else:
                    log.warning("MCP server '%s' failed: %s", conn.name, message)
                conn.status.last_error = message
        finally:
            conn.session = None
            conn.raw_calls = None
            conn._gone.set()
            degraded = conn._keepalive.failed
            if conn.status.session_ended(degraded=degraded):
                if degraded and not conn._stop.is_set():
                    conn.schedule_reconnect()  # stdio too: the wedged child was stopped
                elif conn.spec.transport != "stdio" and not conn._stop.is_set():
                    conn.schedule_reconnect()

    async def _adopt(
        self, session: ClientSession, write: object, stack: contextlib.AsyncExitStack
    ) -> None:
        """The negotiated session becomes the connection's: what the server said of itself,
        the modern revision's change stream, and the pipe lane of a handshake-era stdio server."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        conn = self._connection
        conn.capabilities = session.server_capabilities
        conn.server_info = session.server_info
        conn.protocol = session.protocol_version
        modern = conn.protocol in MODERN_PROTOCOL_VERSIONS
        if modern:
            conn._keepalive.modern()  # ping is gone in the modern revision
            if conn._tools.wanted:
                await listen_for_changes(
                    stack, session, conn.capabilities, conn._tools.notice, conn._tasks, conn.name
                )
        conn.session = session
        raw = getattr(write, "raw_calls", None)
        if isinstance(raw, RawCalls) and not modern:
            conn.raw_calls = raw

    async def _serve(self, session: ClientSession, read: EndWatch) -> None:
        """The session is up: wait for a close, for the server's side of the transport to close
        (the read stream's end sets ``_gone``) and, with keepalive on, for a probe to be due."""
        conn = self._connection
        keepalive = conn._keepalive
        while not conn._stop.is_set() and not conn._gone.is_set():
            wait = keepalive.wait(conn.last_used, conn.status.connected_at, conn._inflight)
            await until_either(conn._stop, conn._gone, wait)
            if read.ended:
                conn._transport_closed = True
                conn.status.last_error = "the server went away"
                break
            if conn._stop.is_set() or conn._gone.is_set():
                break
            if keepalive.due(conn.last_used, conn.status.connected_at, conn._inflight):
                failure = await keepalive.probe(session, conn.capabilities, conn._stop)
                if failure is not None:
                    keepalive.probe_failed(failure)
                    conn.status.last_error = f"keepalive failed: {failure}"
                    log.warning(
                        "MCP server '%s': keepalive failed (%s); reconnecting", conn.name, failure
                    )
                    break
