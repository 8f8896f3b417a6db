"""The MCP host: connect every configured server, register its tools, call them behind the gates.

::

    async with MCPHost(servers) as host:          # connects all enabled servers concurrently
        for tool in host.tools():                 # only tools whose server passes its gate
            print(tool.name)
        result = await host.call_tool("mcp_acme_studio_render", {"scene": "lobby"})

A slow, dead or misconfigured server never blocks or breaks the others: its
error is kept in :meth:`status` and its tools are simply absent.

:class:`MCPHost` owns the servers and their connections and assembles the parts that do the
work: :mod:`.lifecycle` (running the servers), :mod:`.tool_refresh` (their tools, with
:mod:`.tool_discovery`, :mod:`.tool_preparation` and :mod:`.tool_names`), :mod:`.lazy`,
:mod:`.offers` (elicitation and sampling), :mod:`.calls` (the call pipeline) and
:mod:`.status`.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any

from hermes_core.host.breaker import Breakers
from hermes_core.host.calls.approval import Approvals
from hermes_core.host.calls.pipeline import CallPipeline
from hermes_core.host.calls.steps import (
    AdmitStep,
    ApproveStep,
    GateStep,
    RecordStep,
    SendStep,
    UtilityStep,
    WakeStep,
)
from hermes_core.host.connection import ServerConnection
from hermes_core.host.connection_state import counts_as_connected
from hermes_core.host.gates import ServerGate
from hermes_core.host.lazy import LazyServers
from hermes_core.host.lifecycle import ServerRunner
from hermes_core.host.notifications import ProgressCallback
from hermes_core.host.offers import ClientOffers
from hermes_core.host.optional import follow_config
from hermes_core.host.registry import ToolEntry, ToolRegistry
from hermes_core.host.spec import HostServer
from hermes_core.host.status import ServerStatus, status_row
from hermes_core.host.supervisor import TaskSupervisor
from hermes_core.host.tool_preparation import Listed
from hermes_core.host.tool_refresh import ToolRefresh
from hermes_core.host.transports import BUILTIN_TRANSPORTS, Opener
from hermes_core.host.unoffered import UnofferedReasons
from hermes_core.offers.elicitation import Elicitor

if TYPE_CHECKING:
    from hermes_core.host.config_source import ConfigSource
    from hermes_core.host.watch import ConfigWatcher
    from hermes_core.plugins.types import SamplingProvider
    from hermes_core.sampling.catalog import ModelCatalog

__all__ = ["HostServer", "MCPHost", "ServerStatus"]


class MCPHost:
    """Connections to every configured server, the tool registry and the gates."""

    def __init__(
        self,
        servers: Iterable[HostServer],
        *,
        transports: Mapping[str, Opener] | None = None,
        elicitor: Elicitor | None = None,
        clock: Callable[[], float] = time.monotonic,
        factory: ConfigSource | None = None,
        sampling_providers: Mapping[str, SamplingProvider] | None = None,
        sampling_clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """*transports* maps each registered transport's name to its ``connect`` (default:
        the built-in plugins' stdio, Streamable HTTP and SSE); a server whose transport is
        not among them fails to connect with an error naming the transport.  Build hosts
        with :class:`~hermes_core.host.factory.HostFactory` to get the plugins' ones.

        *elicitor* shows a server's ``elicitation/create`` questions to the user (see
        :mod:`hermes_core.offers.elicitation`); without one, servers are told the host cannot ask.
        It also approves sampling requests of servers with ``sampling.approval: ask``.

        *sampling_providers* are the LLM backends for ``sampling/createMessage`` (the plugin
        manager's ``sampling_providers()``); without one, no server is offered sampling.
        *sampling_clock* drives the sampling rate limits' sliding windows (tests pass a fake).

        *clock* drives the circuit breakers (injectable for tests).

        *factory* (set by the factory) is what :meth:`watch_config` reloads through.
        """
        self._servers: dict[str, HostServer] = {s.name: s for s in servers}
        if transports is None:  # the built-in plugin's registrations, without a plugin manager
            transports = {t.name: t.connect for t in BUILTIN_TRANSPORTS if t.connect}
        self._openers: dict[str, Opener] = dict(transports)
        self.factory = factory
        self._connections: dict[str, ServerConnection] = {}
        self.registry = ToolRegistry()
        self.gate = ServerGate(self._is_connected)
        self._tasks = TaskSupervisor("MCP host")
        """Owns every background task of the host and of its connections (see supervisor)."""
        self._offers = ClientOffers(elicitor, sampling_providers, sampling_clock)
        self._unoffered = UnofferedReasons(
            lambda: [name for name in self._servers if self._is_connected(name)],
            lambda: self.unoffered_tools,
            self._offers.sampling_status,
            self._wants_sampling,
        )
        self._tools = ToolRefresh(self._servers, self._connections, self.registry, self.gate)
        self._lazy = LazyServers(
            self._connections, self.gate, register=self._tools.register, refresh=self.refresh_tools
        )
        self._approvals = Approvals(elicitor)
        self._breakers = Breakers(clock)
        self._runner = ServerRunner(
            self._servers,
            self._connections,
            openers=self._openers,
            tasks=self._tasks,
            gate=self.gate,
            offers=self._offers,
            lazy=self._lazy,
            tools=self._tools,
        )
        self.pipeline = CallPipeline(
            self.registry,
            self._servers,
            [
                AdmitStep(self._breakers),
                RecordStep(),
                WakeStep(self._lazy.wake, self.registry),
                GateStep(self.gate, self._connections, self._runner.retry_now),
                UtilityStep(self._connections, self.gate),
                ApproveStep(self._approvals),
                SendStep(self._connections, self.gate),
            ],
            unoffered=self.why_not_offered,
        )
        """The steps of every :meth:`call_tool` (see :mod:`hermes_core.host.calls.pipeline`)."""

    # -- lifecycle ---------------------------------------------------------------------
    async def __aenter__(self) -> MCPHost:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def start(
        self, on_server: Callable[[str, str | None, float], None] | None = None
    ) -> dict[str, str | None]:
        """Connect every enabled server concurrently; returns server → error (``None`` if ok).

        *on_server(name, error, seconds)* is called as each server finishes (progress display).
        """
        return await self._runner.start(on_server)

    async def close(self) -> None:
        """Stop every server; no child process is left behind, and no task of the host is still
        running when this returns (nor is one started later: a closed host starts nothing)."""
        await self._runner.close()

    async def reload(self, servers: Iterable[HostServer]) -> dict[str, list[str]]:
        """Apply a new config: connect added, drop removed, reconnect changed, keep the rest.

        A server in the middle of a browser login is never interrupted by a reload: unchanged,
        it is simply kept; changed, the change is applied once the login is over (it is listed
        under ``"deferred"``).  Removing or disabling it does stop the login.  Reloads may
        overlap (each applies its difference under a lock; connecting happens outside it).
        """
        return await self._runner.reload(servers)

    def watch_config(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        interval: float = 2.0,
        display_names: Mapping[str, str] | None = None,
        load: Callable[[], Iterable[HostServer]] | None = None,
    ) -> ConfigWatcher:
        """Apply edits of ``config.yaml`` (and ``$HERMES_HOME/.env``) while the host runs.

        See :mod:`hermes_core.host.watch`; *load* replaces building the servers from *path*.
        The watcher stops with the host.
        """
        return follow_config(
            self,
            path,
            interval=interval,
            display_names=display_names,
            load=load,
            source=self.factory,
        )

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any] | None:
        """Run *coro* in the background, owned by the host (ended by :meth:`close`)."""
        return self._tasks.spawn(coro, name=name)

    async def sampling_catalog(self) -> ModelCatalog:
        """The models the sampling backends offer, listed once per host (in a worker thread)."""
        return await self._offers.sampling_catalog()

    def _wants_sampling(self, server: str) -> bool:
        found = self._servers.get(server)
        wanted = found.sampling if found is not None else None
        return wanted is not None and wanted.enabled and bool(wanted.model or wanted.allowed_models)

    def _is_connected(self, server: str) -> bool:
        return counts_as_connected(self._connections.get(server))

    async def wake(self, name: str) -> str | None:
        """Start a lazy server now (as its first call would); ``None`` on success, else why."""
        return await self._lazy.wake(name)

    # -- tools --------------------------------------------------------------------------
    async def refresh_tools(self, server: str) -> tuple[list[str], list[str]]:
        """Re-list one server's tools and apply the difference (bursts are serialised)."""
        return await self._tools.refresh(server)

    def tools(self, server: str | None = None, *, include_gated: bool = False) -> list[ToolEntry]:
        """Registered tools whose server passes its gate (or all, with ``include_gated``).

        Sorted by name, from the registry's cached snapshot: one gate check per server, no sort.
        """
        listing, owners = self.registry.listing(server)
        if include_gated:
            return list(listing)
        gated = {owner for owner in owners if not self.gate.check(owner)}
        if not gated:
            return list(listing)
        return [e for e in listing if e.server not in gated]

    @property
    def collisions(self) -> list[str]:
        """Every current tool name collision (one line each), across all servers."""
        return self._tools.naming.collision_lines()

    def name_collisions(self, server: str) -> list[str]:
        """The current tool name collisions *server* takes part in, one line each."""
        return self._tools.naming.collisions_of(server)

    @property
    def skipped_tools(self) -> dict[str, list[str]]:
        """Server -> the tools it lists that are malformed (each with the reason)."""
        return self._tools.preparation.skipped_tools

    @property
    def unoffered_tools(self) -> dict[str, dict[str, str]]:
        """Server -> {tool: why it is listed by the server but not offered}."""
        return self._tools.preparation.unoffered_tools

    def why_not_offered(self, name: str) -> str | None:
        """Why the host does not offer the tool *name* (not in the registry), as ``status``
        says it, or ``None`` when the host has no reason of its own (see ``unoffered``)."""
        return self._unoffered(name)

    # What the benchmarks time of the preparation alone (benchmarks/bench_host.py).
    @property
    def _prepared(self) -> dict[str, Any]:
        return self._tools.preparation.prepared

    def _usable_tools(self, config: HostServer, tools: list[dict[str, Any]], caps: Any) -> Listed:
        return self._tools.usable_tools(config, tools, caps)

    # -- calls ---------------------------------------------------------------------------
    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        on_progress: ProgressCallback | None = None,
    ) -> dict[str, Any]:
        """Call a registered tool; failures come back as ``{"error": ..., ...}``, never raised.

        *on_progress(progress, total, message)* is called for each progress notification the
        server sends about this call (see :mod:`hermes_core.host.notifications`).
        """
        return await self.pipeline.call(name, arguments, on_progress)

    # -- status ----------------------------------------------------------------------------
    def status(self) -> list[ServerStatus]:
        """One row per configured server, sorted by name (``hermes mcp status``)."""
        rows = []
        for name, config in sorted(self._servers.items()):
            rows.append(
                status_row(
                    name,
                    config,
                    self._connections.get(name),
                    offered=self.gate.check(name),
                    tools=len(self.registry.snapshot(name)),
                    elicitation=self._offers.elicitation_counters(name),
                    approvals=self._approvals.counts(name) if config.trust == "untrusted" else None,
                    breaker=self._breakers.of(config).snapshot(),
                    lazy=self._lazy.status(name) if config.lazy else None,
                    filtered_out=self._tools.preparation.filtered_out.get(name, 0),
                    sampling=self._offers.sampling_status(name),
                    name_collisions=self.name_collisions(name),
                )
            )
        return rows
