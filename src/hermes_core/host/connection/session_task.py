"""The task that owns one SDK session: open the transport, negotiate, then wait for its end.

The SDK's transports must be entered and left in one task, so each connection attempt runs
:meth:`SessionTask._run` in a task of its own: it opens the transport (through
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
from typing import TYPE_CHECKING

from hermes_core._sdk_compat import quiet_sdk_spans
from hermes_core._sdk_compat.tasks import session_extensions
from hermes_core.host.connection.diagnostics import Cause, ProcessExit
from hermes_core.host.connection.end_watch import EndWatch
from hermes_core.host.connection.errors import ServerError
from hermes_core.host.connection.failures import FailureReports, describe, process_exit
from hermes_core.host.connection.keepalive import Keepalive
from hermes_core.host.connection.list_changed import ToolsChanged
from hermes_core.host.connection.negotiation import listen_for_changes, negotiate
from hermes_core.host.connection.state import ConnectionStatus
from hermes_core.host.connection.waits import until_either
from hermes_core.host.server_notifications import log_callback
from hermes_core.host.supervisor import TaskSupervisor
from hermes_core.host.transports import Opener
from hermes_core.host.transports.raw_calls import RawCalls
from hermes_core.host.transports.spawned import capture_spawned
from hermes_core.plugins.types import ServerSpec

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.client.session import ElicitationFnT, ListRootsFnT, SamplingFnT
    from mcp.types import Implementation, SamplingCapability, ServerCapabilities

__all__ = ["SessionCallbacks", "SessionTask"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SessionCallbacks:
    """What the session answers a server's requests with (``None``: not offered)."""

    elicitation: ElicitationFnT | None = None
    sampling: SamplingFnT | None = None
    sampling_capabilities: SamplingCapability | None = None
    list_roots: ListRootsFnT | None = None


class SessionTask:
    """The session's own task (a base of :class:`~hermes_core.host.connection.ServerConnection`,
    whose attributes it fills: the session, what the server said of itself, why it ended)."""

    name: str
    spec: ServerSpec
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

    def schedule_reconnect(self) -> None:
        raise NotImplementedError

    async def _run(self, ready: asyncio.Future[None]) -> None:
        from mcp import ClientSession
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        quiet_sdk_spans()  # no tracing work per request while telemetry is off

        try:
            async with contextlib.AsyncExitStack() as stack:
                opener = self._opener
                if opener is None:
                    raise LookupError(f"no transport named {self.spec.transport!r} is registered")
                spawned = stack.enter_context(capture_spawned())
                transport_read, write = await stack.enter_async_context(
                    opener(self.spec, self._failures.errlog)
                )
                read = EndWatch.around(transport_read, self._gone)
                callbacks = self._callbacks
                session = await stack.enter_async_context(
                    ClientSession(
                        read,
                        write,
                        message_handler=self._tools.on_message,
                        elicitation_callback=callbacks.elicitation,
                        logging_callback=log_callback(self.name),
                        sampling_callback=callbacks.sampling,
                        sampling_capabilities=callbacks.sampling_capabilities,
                        list_roots_callback=callbacks.list_roots,
                        **session_extensions(),  # the tasks extension (2026-07-28)
                    )
                )
                try:
                    await negotiate(session)
                except Exception:
                    self._exit = await process_exit(spawned)
                    raise
                self.capabilities = session.server_capabilities
                self.server_info = session.server_info
                self.protocol = session.protocol_version
                if self.protocol in MODERN_PROTOCOL_VERSIONS:
                    self._keepalive.modern()  # ping is gone in the modern revision
                    if self._tools.wanted:
                        await listen_for_changes(
                            stack,
                            session,
                            self.capabilities,
                            self._tools.notice,
                            self._tasks,
                            self.name,
                        )
                self.session = session
                raw = getattr(write, "raw_calls", None)
                if isinstance(raw, RawCalls) and self.protocol not in MODERN_PROTOCOL_VERSIONS:
                    self.raw_calls = raw
                ready.set_result(None)
                await self._serve(session, read)
        except asyncio.CancelledError:
            if not ready.done():
                ready.cancel()
            raise
        except BaseException as exc:  # noqa: BLE001 - every failure becomes the connection's error
            broke = describe(exc, self.spec)
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
            self.raw_calls = None
            self._gone.set()
            degraded = self._keepalive.failed
            if self.status.session_ended(degraded=degraded):
                if degraded and not self._stop.is_set():
                    self.schedule_reconnect()  # stdio too: the wedged child was stopped
                elif self.spec.transport != "stdio" and not self._stop.is_set():
                    self.schedule_reconnect()

    async def _serve(self, session: ClientSession, read: EndWatch) -> None:
        """The session is up: wait for a close, for the server's side of the transport to close
        (the read stream's end sets ``_gone``) and, with keepalive on, for a probe to be due."""
        keepalive = self._keepalive
        while not self._stop.is_set() and not self._gone.is_set():
            wait = keepalive.wait(self.last_used, self.status.connected_at, self._inflight)
            await until_either(self._stop, self._gone, wait)
            if read.ended:
                self._transport_closed = True
                self.status.last_error = "the server went away"
                break
            if self._stop.is_set() or self._gone.is_set():
                break
            if keepalive.due(self.last_used, self.status.connected_at, self._inflight):
                failure = await keepalive.probe(session, self.capabilities, self._stop)
                if failure is not None:
                    keepalive.probe_failed(failure)
                    self.status.last_error = f"keepalive failed: {failure}"
                    log.warning(
                        "MCP server '%s': keepalive failed (%s); reconnecting", self.name, failure
                    )
                    break
