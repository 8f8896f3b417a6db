"""Running the servers: start (all at once), close, reload a new config (a login in progress
is never interrupted), the quick retry of a call to a reconnecting server, and the recycling
of idle or old stdio servers."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping
from typing import TYPE_CHECKING, TypeVar

from hermes_core.host.calls.failures import server_error_words
from hermes_core.host.connection import ServerConnection, ServerError
from hermes_core.host.connection.client_offers import ClientOffers
from hermes_core.host.connection.state_checks import (
    is_connected,
    is_connecting,
    mark_failed,
    mark_not_running,
)
from hermes_core.host.liveness.follow import AppFollower
from hermes_core.host.optional import live_spec
from hermes_core.host.server_spec import HostServer
from hermes_core.host.supervisor import TaskSupervisor
from hermes_core.host.tasks import TaskLog
from hermes_core.host.tools.lazy_servers import LazyServers
from hermes_core.host.tools.offer_gates import ServerGate
from hermes_core.host.tools.refresh import ToolRefresh
from hermes_core.host.transports import Opener
from hermes_core.offers.elicitation import ElicitationHandler
from hermes_core.offers.roots import RootsHandler

if TYPE_CHECKING:
    from hermes_core.sampling.handler import SamplingHandler

__all__ = ["LOGIN_POLL_SECONDS", "RETRY_NOW_SECONDS", "ServerRunner", "may_miss_changes"]

log = logging.getLogger(__name__)
T = TypeVar("T")

LOGIN_POLL_SECONDS = 0.2
#: A call retries a reconnecting HTTP server at once only if its last attempt failed this fast.
RETRY_NOW_SECONDS = 5.0


class ServerRunner:
    """Starts, stops and replaces the host's connections (*connections*, one per server of
    *servers*, both owned by the host and changed in place here)."""

    def __init__(
        self,
        servers: dict[str, HostServer],
        connections: dict[str, ServerConnection],
        *,
        openers: Mapping[str, Opener],
        tasks: TaskSupervisor,
        gate: ServerGate,
        offers: ClientOffers,
        lazy: LazyServers,
        tools: ToolRefresh,
        task_log: TaskLog,
    ) -> None:
        self._servers = servers
        self._task_log = task_log
        self._connections = connections
        self._openers = openers
        self._tasks = tasks
        self._gate = gate
        self._offers = offers
        self._lazy = lazy
        self._tools = tools
        self._reload_lock = asyncio.Lock()
        self._closing: set[ServerConnection] = set()
        """Connections a restart took out and is closing (a host closed meanwhile closes them)."""
        # Server name -> set when its start in progress (connect + first listing) is over.
        self._starts: dict[str, asyncio.Event] = {}
        self.apps = AppFollower(servers, self.restart, self.spawn)
        """Follows the desktop apps that serve some servers (a declaration's ``liveness``)."""

    def spawn(self, coro: Coroutine[object, object, T], name: str) -> asyncio.Task[T] | None:
        """Run *coro* in the background, owned by the host (ended by :meth:`close`)."""
        return self._tasks.spawn(coro, name=name)

    # -- start and stop ------------------------------------------------------------------
    async def start(
        self, on_server: Callable[[str, str | None, float], None] | None = None
    ) -> dict[str, str | None]:
        """Connect every enabled server concurrently; returns server → error (``None`` if ok)."""
        names = [n for n, s in self._servers.items() if s.enabled]

        async def one(name: str) -> str | None:
            started = time.monotonic()
            error = await self.start_one(name)
            if on_server is not None:
                on_server(name, error, time.monotonic() - started)
            return error

        results = await asyncio.gather(*(one(n) for n in names))
        self.apps.follow()
        if any(s.idle_timeout_seconds or s.max_lifetime_seconds for s in self._servers.values()):
            self.spawn(self._recycle_loop(), "recycler")  # (nothing once the host is closed)
        return dict(zip(names, results, strict=True))

    async def start_one(self, name: str) -> str | None:
        done = self._starts[name] = asyncio.Event()
        try:
            return await self._start_server(name)
        finally:
            done.set()
            if self._starts.get(name) is done:
                del self._starts[name]

    def _connection(
        self,
        name: str,
        server: HostServer,
        elicitation: ElicitationHandler | None,
        sampling: SamplingHandler | None,
    ) -> ServerConnection:
        callback, capabilities = self._offers.sampling_callback(name, server, sampling)
        return ServerConnection(
            name,
            server,
            on_tools_changed=self._tools.tools_changed,
            parallel=server.supports_parallel_tool_calls,
            opener=self._openers.get(server.transport),
            elicitation_callback=elicitation,
            sse_opener=self._openers.get("sse") if server.sse_fallback else None,
            sampling_callback=callback,
            sampling_capabilities=capabilities,
            list_roots_callback=RootsHandler(name, server.roots) if server.roots else None,
            tasks=self._tasks,
            task_log=self._task_log,
        )

    async def _start_server(self, name: str) -> str | None:
        server = self._servers[name]
        running = self.apps.observe(name) if self.apps.applies(name) else None
        if running is not None and running.running:
            server = live_spec(server, running)  # type: ignore[arg-type]
        elicitation = self._offers.elicitation_handler(name, server)
        sampling = await self._offers.sampling_handler(name, server)
        connection = self._connection(name, server, elicitation, sampling)
        if self._tasks.closed:  # the host closed while this server was being prepared
            return "the host was closed"
        self._connections[name] = connection
        connection.on_reconnected = self._tools.reconnected
        connection.status.on_change = self._gate.invalidate
        problem = server.config_error
        if problem is None and running is None and _needs_an_app(server):
            problem = (
                f"MCP server '{name}': needs a 'command' or a 'url' (its app declaration says "
                "where the running app serves on another OS only, or it is not registered)"
            )
        if problem is None and server.transport not in self._openers:
            registered = ", ".join(self._openers) or "none"
            problem = (
                f"MCP server '{name}': no transport named {server.transport!r} is registered "
                f"(registered: {registered})"
            )
        if problem is not None:
            mark_failed(connection, problem)
            return problem
        if running is not None and not running.running:
            mark_not_running(connection, running.reason)  # type: ignore[union-attr]
            self._gate.invalidate()
            return None
        if server.lazy and self._lazy.register_from_cache(server, connection):
            return None  # started by its first call
        try:
            await connection.connect()
            await self._tools.refresh(name)
            if may_miss_changes(connection):
                # Some servers register tools just after `initialized` and announce them
                # where we may not hear it yet (HTTP's event stream opens later) or not at
                # all: list once more a moment later.
                self.spawn(self._tools.relist_later(name, connection), f"late re-list of '{name}'")
        except ServerError as exc:
            self._gate.invalidate()
            if is_connected(connection):  # the listing failed (e.g. timed out)
                return await self._listing_failed(connection, exc.detail)
            if server.transport != "stdio":
                connection.schedule_reconnect()  # the endpoint may come up later
            return exc.detail
        except Exception as exc:  # noqa: BLE001 - e.g. the server answered tools/list with an error
            why = server_error_words(name, exc).replace(f"MCP server '{name}'", "the server", 1)
            return await self._listing_failed(connection, why)
        self._gate.invalidate()
        return None

    async def _listing_failed(self, connection: ServerConnection, why: str) -> str:
        """A server that connected but could not list its tools (an error, a timeout) is a
        failed server, never ``connected`` with 0 tools: stop it and keep the reason."""
        detail = f"listing tools failed: {why}"
        mark_failed(connection, detail)
        await connection.close()
        mark_failed(connection)
        self._gate.invalidate()
        return detail

    async def close(self) -> None:
        """Stop every server and every background task (a closed host starts nothing)."""
        self._tasks.refuse_new()
        await self._close_connections()
        await self._tasks.close()
        # A restart cancelled by the line above may have left a connection it was closing or
        # had just started: no child process is left behind.
        await self._close_connections()
        self._gate.invalidate()
        self._gate.close()

    async def _close_connections(self) -> None:
        connections = [*self._connections.values(), *self._closing]
        self._connections.clear()
        await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)

    async def _recycle_loop(self) -> None:
        """Stop idle or old stdio servers; their tools stay registered (next call restarts)."""
        limits = [
            v
            for s in self._servers.values()
            for v in (s.idle_timeout_seconds, s.max_lifetime_seconds)
            if v > 0
        ]
        interval = min(5.0, max(0.1, min(limits) / 4)) if limits else 5.0
        while True:
            await asyncio.sleep(interval)
            for name, connection in list(self._connections.items()):
                server = self._servers.get(name)
                if server is None:
                    continue
                try:
                    await connection.recycle_if_due(
                        server.idle_timeout_seconds, server.max_lifetime_seconds
                    )
                except Exception as exc:  # noqa: BLE001 - recycling must never stop the host
                    log.warning("MCP server '%s': recycling failed: %s", name, exc)

    # -- reload --------------------------------------------------------------------------
    async def reload(
        self, servers: Iterable[HostServer], *, applied: asyncio.Event | None = None
    ) -> dict[str, list[str]]:
        """Apply a new config (see :meth:`MCPHost.reload`); *applied* is set once the
        difference is applied (before added or changed servers are connected)."""
        try:
            async with self._reload_lock:
                diff, starting = await self._apply(servers)
        finally:
            if applied is not None:
                applied.set()
        await asyncio.gather(*(self.start_one(n) for n in starting))
        self._gate.invalidate()
        self.apps.follow()
        return diff

    async def restart(self, name: str) -> None:
        """Start *name* again from scratch (its desktop app started, quit or moved): its tools
        are withdrawn first, at once, then it connects to where the app serves now."""
        async with self._reload_lock:
            if name not in self._servers:
                return
            connection = self._connections.pop(name, None)
            self._tools.forget(name)
            self._gate.invalidate()
        if connection is not None:
            self._closing.add(connection)
            try:
                await connection.close()
            finally:
                self._closing.discard(connection)
        if self._servers.get(name) is None or not self._servers[name].enabled:
            return
        error = await self.start_one(name)
        if error is not None:
            log.warning("MCP server '%s': %s", name, error)
        self._gate.invalidate()

    async def _apply(self, servers: Iterable[HostServer]) -> tuple[dict[str, list[str]], list[str]]:
        """The difference applied (under the reload lock), and the servers to start."""
        new = {s.name: s for s in servers}
        old = self._servers
        added = [n for n in new if n not in old]
        removed = [n for n in old if n not in new]
        changed = [n for n in new if n in old and new[n] != old[n]]
        # The policy is no part of an entry's equality: a kept server's tools are screened
        # again under the new one (refused tools go, allowed ones come back).
        repoliced = any(
            new[n].policy != old[n].policy for n in new if n in old and n not in changed
        )
        deferred = [n for n in changed if new[n].enabled and self._in_login(n)]
        for name in removed + changed:
            if name in deferred:
                continue
            self.apps.forget(name)
            connection = self._connections.pop(name, None)
            if connection is not None:
                await connection.close()
            self._tools.forget(name)
        old.clear()
        old.update(new)
        if repoliced:
            self._tools.rescreen()
        for name in deferred:
            log.warning(
                "MCP server '%s': its config changed during a login; the change is applied "
                "when the login is over",
                name,
            )
            self.spawn(self._apply_after_login(name, new[name]), f"apply '{name}' after login")
        self._gate.invalidate()
        starting = [n for n in added + changed if new[n].enabled and n not in deferred]
        diff = {"added": added, "removed": removed, "changed": changed, "deferred": deferred}
        return diff, starting

    def _in_login(self, name: str) -> bool:
        connection = self._connections.get(name)
        auth = connection.spec.auth if connection is not None else None
        return bool(getattr(auth, "login_in_progress", False))

    async def _apply_after_login(self, name: str, server: HostServer) -> None:
        connection = self._connections.get(name)
        while connection is not None and self._connections.get(name) is connection:
            # Wait for the start in progress (its connect, login and first listing) to be
            # over, and for any connection attempt of a reconnect, instead of reading states.
            starting = self._starts.get(name)
            if starting is not None:
                await starting.wait()
            await connection.settled()
            if not self._in_login(name) and name not in self._starts:
                break
            await asyncio.sleep(LOGIN_POLL_SECONDS)  # a login outside a start: rare
        async with self._reload_lock:
            if self._servers.get(name) is not server or self._connections.get(name) is not (
                connection
            ):
                return  # a later reload took over
            if connection is not None:
                # Stays registered while it closes: a call now reads "not connected", never
                # "unknown server"; start_one replaces it.
                await connection.close()
            self._tools.forget(name)
        error = await self.start_one(name)
        if error is not None:
            log.warning("MCP server '%s': %s", name, error)
        self._gate.invalidate()

    # -- calls to a server that is not connected ------------------------------------------
    async def retry_now(self, name: str) -> None:
        """A call to a server that is not connected right now: wait a little for a connection
        attempt in progress; for an HTTP server waiting out its reconnect backoff, try now, once,
        when its last attempt failed quickly (refused, not found); never wait out a dead host."""
        connection = self._connections.get(name)
        if connection is None or connection.closed:
            return
        if is_connecting(connection):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(connection.settled(), RETRY_NOW_SECONDS)
            if self._gate.check(name):
                return
        if not connection.reconnecting:
            return
        last = connection.status.attempt_seconds
        if last is None or last > RETRY_NOW_SECONDS:
            return
        try:
            await connection.connect()
        except ServerError:
            return
        # Its tools may have changed meanwhile.
        self.spawn(self._tools.reconnected(connection), f"re-list of '{name}'")


def _needs_an_app(server: HostServer) -> bool:
    """An HTTP entry with no ``url`` (one a desktop app serves) whose app does not say here
    where it serves."""
    return server.transport == "streamable_http" and server.url is None and not server.options


def may_miss_changes(connection: ServerConnection) -> bool:
    """Whether a change to the server's tools just after it connected could go unheard.

    Over stdio in the handshake era every message the server writes reaches the session,
    whose handler is in place from the start, so a server that announces changes
    (``tools.listChanged``) is heard: its first listing stands until it says otherwise, and
    no second listing is sent.  Over HTTP a notification can go out before the event stream
    is open; a server that does not announce changes may still add tools a moment after
    ``initialized``; and on 2026-07-28 changes come on a ``subscriptions/listen`` stream
    that mcp 2.3 does not yet deliver them on reliably (see docs/performance-history.md).
    """
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    if connection.transport_used != "stdio" or connection.protocol in MODERN_PROTOCOL_VERSIONS:
        return True
    tools = getattr(connection.capabilities, "tools", None)
    return getattr(tools, "list_changed", None) is not True
