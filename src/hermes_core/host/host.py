"""The MCP host: connect every configured server, register its tools, call them behind the gates.

::

    async with MCPHost(servers) as host:          # connects all enabled servers concurrently
        for tool in host.tools():                 # only tools whose server passes its gate
            print(tool.name)
        result = await host.call_tool("mcp_acme_studio_render", {"scene": "lobby"})

A slow, dead or misconfigured server never blocks or breaks the others: its
error is kept in :meth:`status` and its tools are simply absent.

:class:`MCPHost` owns the servers and their connections and assembles the parts that do the
work: :mod:`.lifecycle` (running the servers), :mod:`.tools.refresh` (their tools, with
:mod:`.tools.discovery`, :mod:`.tools.preparation` and :mod:`.tools.registration`),
:mod:`.tools.lazy_servers`, :mod:`.connection.client_offers` (elicitation and sampling),
:mod:`.calls` (the call pipeline) and :mod:`.server_status`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, TypeVar

from hermes_core.home import hermes_home
from hermes_core.host.calls.approval import Approvals
from hermes_core.host.calls.breaker import Breakers
from hermes_core.host.calls.call import Proceed, Result
from hermes_core.host.calls.intercept.step import ActiveInterceptor, InterceptStep
from hermes_core.host.calls.intercept.table import InterceptorTable
from hermes_core.host.calls.pipeline import CallPipeline
from hermes_core.host.calls.recheck import Recheck
from hermes_core.host.calls.refusals import CallError, CallState
from hermes_core.host.calls.send_step import SendStep
from hermes_core.host.calls.steps import (
    AdmitStep,
    ApproveStep,
    GateStep,
    PolicyStep,
    RecordStep,
    UtilityStep,
    WakeStep,
)
from hermes_core.host.calls.telemetry import CallSpanStep, TelemetryStep
from hermes_core.host.connection import ServerConnection
from hermes_core.host.connection.client_offers import ClientOffers
from hermes_core.host.connection.state_checks import counts_as_connected
from hermes_core.host.lifecycle import ServerRunner
from hermes_core.host.optional import follow_config, trust_screen
from hermes_core.host.server_notifications import ProgressCallback
from hermes_core.host.server_spec import HostServer
from hermes_core.host.server_status import ServerStatus, status_row
from hermes_core.host.setup.otel import configure_telemetry, telemetry_wanted
from hermes_core.host.supervisor import TaskSupervisor
from hermes_core.host.tasks import TaskLog, TaskRecord
from hermes_core.host.tasks.run import TaskRun
from hermes_core.host.tools.lazy_servers import LazyServers
from hermes_core.host.tools.name_pattern import match_names
from hermes_core.host.tools.naming import registered_tool_name, sanitize_component
from hermes_core.host.tools.offer_gates import ServerGate
from hermes_core.host.tools.overrides import shown_name
from hermes_core.host.tools.refresh import ToolRefresh
from hermes_core.host.tools.registry import ToolEntry, ToolRegistry
from hermes_core.host.tools.search import ToolSearchIndex
from hermes_core.host.tools.unoffered import UnofferedReasons
from hermes_core.host.transports import BUILTIN_TRANSPORTS, Opener
from hermes_core.host.transports.http_sessions import session_id
from hermes_core.json_types import JsonObject
from hermes_core.offers.elicitation import Elicitor
from hermes_core.sampling.route import SamplingRouter

if TYPE_CHECKING:
    from hermes_core.host.config_watch import ConfigWatcher
    from hermes_core.host.setup.config_source import ConfigSource
    from hermes_core.host.trust.decisions import Decision
    from hermes_core.host.trust.state import TrustState
    from hermes_core.plugins.types import SamplingProvider
    from hermes_core.sampling.catalog import ModelCatalog

__all__ = ["HostServer", "MCPHost", "ServerStatus"]

log = logging.getLogger(__name__)
T = TypeVar("T")


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
        trust: TrustState | None = None,
        interceptors: Mapping[str, ActiveInterceptor] | None = None,
        telemetry: bool | None = None,
        sampling_router: SamplingRouter | None = None,
    ) -> None:
        """*transports* maps each registered transport's name to its ``connect`` (default:
        the built-in plugins' stdio, Streamable HTTP and SSE); a server whose transport is
        not among them fails to connect with an error naming the transport.  Build hosts
        with :class:`~hermes_core.host.setup.factory.HostFactory` to get the plugins' ones.

        *elicitor* shows a server's ``elicitation/create`` questions to the user (see
        :mod:`hermes_core.offers.elicitation`); without one, servers are told the host cannot ask.
        It also approves sampling requests of servers with ``sampling.approval: ask``.

        *sampling_providers* are the LLM backends for ``sampling/createMessage`` (the plugin
        manager's ``sampling_providers()``); without one, no server is offered sampling.
        *sampling_clock* drives the sampling rate limits' sliding windows (tests pass a fake).
        *sampling_router* picks each server's sampling callback instead (every server is then
        offered sampling; :mod:`hermes_core.sampling.route`): ``hermes mcp proxy``'s
        sends a request to the downstream client when it can sample.

        *clock* drives the circuit breakers (injectable for tests).

        *factory* (set by the factory) is what :meth:`watch_config` reloads through.

        *trust* is the trust state (``$HERMES_HOME/trust.db``: pinned tool definitions and
        remembered decisions; the factory passes it); without one, nothing is pinned and no
        decision is remembered.

        *interceptors* are the call interceptors by name (a server's ``interceptors`` name
        them; default: the built-in ``audit`` and ``result_budget`` under ``$HERMES_HOME``,
        see :class:`~hermes_core.host.calls.intercept.table.InterceptorTable`).  *telemetry*
        turns the OpenTelemetry spans and metric on (``None``: when the ``OTEL_*`` variables
        or an SDK tracer provider ask for it, :mod:`hermes_core.host.setup.otel`).
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
        self._offers = ClientOffers(
            elicitor, sampling_providers, sampling_clock, sampling_router=sampling_router
        )
        self._screen = None if trust is None else trust_screen(trust)
        self._watcher: ConfigWatcher | None = None
        """Follows config.yaml, .env and the policy files (:meth:`watch_config`)."""
        self._unoffered = UnofferedReasons(
            lambda: [name for name in self._servers if self._is_connected(name)],
            lambda: self.unoffered_tools,
            self._offers.sampling_status,
            self._wants_sampling,
            self._registered_as,
        )
        self._tools = ToolRefresh(
            self._servers, self._connections, self.registry, self.gate, self._screen
        )
        self._lazy = LazyServers(
            self._connections, self.gate, register=self._tools.register, refresh=self.refresh_tools
        )
        self._approvals = Approvals(elicitor, remember=self._remember if trust else None)
        self._breakers = Breakers(clock)
        self.task_log = TaskLog()
        """The MCP tasks this host's calls started (:meth:`tasks`)."""
        self._search = ToolSearchIndex()
        """The tool search index (``sqlite3`` is loaded, and the index built, on a search)."""
        self._runner = ServerRunner(
            self._servers,
            self._connections,
            openers=self._openers,
            tasks=self._tasks,
            gate=self.gate,
            offers=self._offers,
            lazy=self._lazy,
            tools=self._tools,
            task_log=self.task_log,
        )
        self.gate.follow_apps(self._runner.apps.not_running)
        if interceptors is None:
            interceptors = InterceptorTable.builtin(hermes_home())
        self._interceptors = interceptors
        self._recheck = Recheck(
            self.catch_up,
            lambda name: self.pipeline.resolve(name),
            self.refusal,
            self.why_not_offered,
            self._decision,
            self._approvals.blocked,
        )
        self.pipeline = CallPipeline(
            self.registry,
            self._servers,
            [
                PolicyStep(),
                InterceptStep(interceptors),
                AdmitStep(self._breakers),
                RecordStep(),
                WakeStep(self._lazy.wake, self.registry, self._after_wake, self.refusal),
                GateStep(self.gate, self._connections, self._runner.retry_now),
                UtilityStep(self._connections, self.gate),
                ApproveStep(self._approvals, self._decision, self._recheck),
                SendStep(self._connections, self.gate),
            ],
            refused=self.refusal,
            offered=lambda: [entry.name for entry in self.tools()],
            unoffered=self.why_not_offered,
        )
        """The steps of every :meth:`call_tool` (see :mod:`hermes_core.host.calls.pipeline`)."""
        if telemetry is None:
            telemetry = telemetry_wanted(os.environ) and configure_telemetry(os.environ) is None
        if telemetry:
            self.pipeline.insert(TelemetryStep(self._protocol_of, session_id), before="utility")
            self.pipeline.insert(CallSpanStep(), before="policy")

    def _after_wake(self, entry: ToolEntry, server: HostServer) -> Proceed:
        return self.pipeline.chain_after("wake", entry, server)

    # -- trust ----------------------------------------------------------------------------
    def _decision(self, server: str, tool: str) -> Decision | None:
        return None if self._screen is None else self._screen.decision(server, tool)

    def _registered_as(self, server: str, tool: str) -> str:
        """The plain registry name of *server*'s *tool* (its override's name, if it has one)."""
        config = self._servers.get(server)
        return registered_tool_name(server, shown_name(config.overrides, tool) if config else tool)

    def refusal(self, name: str) -> JsonObject | None:
        """The refusal a call of *name* gets when the policy or the trust state holds the tool
        back (its definition changed since it was pinned, the user decided never to run it)
        or its server was never started (refused, unresolvable); ``None`` when nothing holds
        it back."""
        for server, reasons in self._tools.policy_refusals.items():
            for tool, reason in reasons.items():
                if self._registered_as(server, tool) == name:
                    error = f"The MCP tool {tool!r} of server '{server}' was NOT run: {reason}"
                    return CallError(error, CallState.POLICY, server, retryable=False).result()
        if self._screen is not None:
            for server, refusals in self._screen.refusals.items():
                for tool, refusal in refusals.items():
                    if self._registered_as(server, tool) == name:
                        return refusal.payload()
        return self._never_started(name)

    def _never_started(self, name: str) -> JsonObject | None:
        """The refusal of a tool name of a server that was never started because its entry
        is refused (the policy) or cannot be resolved: what a cold call says of it."""
        owners = [s for s in self._servers if name.startswith(f"mcp_{sanitize_component(s)}_")]
        if not owners:
            return None
        server = self._servers[max(owners, key=len)]  # the longest prefix owns the name
        if server.enabled and self._runner.apps.not_running(server.name) is not None:
            return self.gate.error_payload(server.name, server.display_name)
        if server.config_error is None or not server.enabled:
            return None
        return CallError(
            f"MCP server '{server.name}' failed, so {name!r} is not available: "
            f"{server.config_error}",
            CallState.NOT_CONNECTED,
            server.name,
        ).result()

    def _remember(self, server: str, tool: str, decision: Decision) -> None:
        """A decision the user gave at a prompt ("always", "never"): kept and applied now."""
        if self._screen is None:
            return
        problem = self._screen.decide(server, tool, decision)
        if problem is not None:
            log.warning(
                "MCP server '%s': the decision for %r was not kept: %s", server, tool, problem
            )
        self.trust_changed()

    def trust_changed(self) -> None:
        """Apply the trust state again (pins accepted, decisions changed, by this process or
        another): held-back tools come back or go, the approval step decides anew."""
        if self._screen is None:
            return
        self._screen.reload()
        self._tools.rescreen()
        self.pipeline.invalidate()

    def _trust_checked(self) -> None:
        screen = self._screen
        if screen is not None and screen.store.changed():
            self.trust_changed()

    async def catch_up(self) -> None:
        """Apply what changed on disk since the last look before anything is decided: the
        config, ``.env`` and the policy files (while :meth:`watch_config` follows them; a
        change is waited for until it is applied) and ``trust.db`` (pins and remembered
        decisions, changed by this process or another).  Every call does this first."""
        watcher = self._watcher
        if watcher is not None:
            catching_up = watcher.pending()
            if catching_up is not None:
                await asyncio.shield(catching_up)
        if self._screen is not None:
            self._trust_checked()

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
        self._search.close()
        closer = getattr(self._interceptors, "close", None)
        if callable(closer):
            closer()

    async def reload(
        self, servers: Iterable[HostServer], *, applied: asyncio.Event | None = None
    ) -> dict[str, list[str]]:
        """Apply a new config: connect added, drop removed, reconnect changed, keep the rest
        (a kept server whose policy changed has its tools screened again).

        A server in the middle of a browser login is never interrupted by a reload: unchanged,
        it is simply kept; changed, the change is applied once the login is over (it is listed
        under ``"deferred"``).  Removing or disabling it does stop the login.  Reloads may
        overlap (each applies its difference under a lock; connecting happens outside it).
        *applied* is set once the difference is applied, before servers connect.
        """
        return await self._runner.reload(servers, applied=applied)

    def watch_config(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        interval: float = 0.5,
        display_names: Mapping[str, str] | None = None,
        load: Callable[[], Iterable[HostServer]] | None = None,
        on_reload: Callable[[Mapping[str, list[str]]], object] | None = None,
    ) -> ConfigWatcher:
        """Apply edits of ``config.yaml``, ``$HERMES_HOME/.env`` and the administrator's policy
        files while the host runs: every call looks first (one ``stat`` per file) and waits
        for a change to be applied; between calls the watcher looks every *interval* seconds.

        See :mod:`hermes_core.host.config_watch`; *load* replaces building the servers from *path*;
        *on_reload(diff)* runs on the host's loop after each reload.  The watcher stops with
        the host.
        """
        self._watcher = follow_config(
            self,
            path,
            interval=interval,
            display_names=display_names,
            load=load,
            source=self.factory,
            on_reload=on_reload,
        )
        return self._watcher

    def spawn(self, coro: Coroutine[object, object, T], name: str) -> asyncio.Task[T] | None:
        """Run *coro* in the background, owned by the host (ended by :meth:`close`)."""
        return self._tasks.spawn(coro, name=name)

    async def sampling_catalog(self) -> ModelCatalog:
        """The models the sampling backends offer, listed once per host (in a worker thread)."""
        return await self._offers.sampling_catalog()

    def _protocol_of(self, server: str) -> str | None:
        connection = self._connections.get(server)
        return connection.protocol if connection is not None else None

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
        if self._screen is not None:
            self._trust_checked()
        listing, owners = self.registry.listing(server)
        if include_gated:
            return list(listing)
        gated = {owner for owner in owners if not self.gate.check(owner)}
        if not gated:
            return list(listing)
        return [e for e in listing if e.server not in gated]

    def search_tools(self, query: str, limit: int = 5) -> list[ToolEntry]:
        """The offered tools that best match *query* (BM25 over names, titles and
        descriptions), best first, at most *limit*; see :mod:`hermes_core.host.tools.search`.

        The index is built on the first search and again only after the tools change.
        """
        snapshot, owners = self.registry.listing()
        hidden = [owner for owner in owners if not self.gate.check(owner)]
        return self._search.search(snapshot, query, limit, hidden_servers=hidden)

    def match_tools(self, pattern: str, limit: int = 5) -> list[ToolEntry]:
        """The offered tools whose registered name the regular expression *pattern* matches
        (case-insensitive, anywhere in the name), in listing order, at most *limit*; bounded in
        size and time (:mod:`hermes_core.host.tools.name_pattern`: ``PatternError`` past them)."""
        snapshot, owners = self.registry.listing()
        hidden = [owner for owner in owners if not self.gate.check(owner)]
        return match_names(snapshot, pattern, limit, hidden_servers=hidden)

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

    def forget_preparation(self, server: str) -> None:
        """Forget what was prepared from *server*'s last listing: its next listing is prepared
        from scratch, as at its first registration (what the benchmarks time)."""
        self._tools.preparation.forget(server)

    # -- calls ---------------------------------------------------------------------------
    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, object] | None = None,
        *,
        on_progress: ProgressCallback | None = None,
    ) -> Result:
        """Call a registered tool; failures come back as ``{"error": ..., ...}``, never raised.

        *on_progress(progress, total, message)* is called for each progress notification the
        server sends about this call (see :mod:`hermes_core.host.server_notifications`).
        """
        watcher = self._watcher  # (catch_up, inlined: this is every call's path)
        if watcher is not None:
            catching_up = watcher.pending()
            if catching_up is not None:
                await asyncio.shield(catching_up)
        if self._screen is not None:
            self._trust_checked()
        return await self.pipeline.call(name, arguments, on_progress)

    def start_task(
        self,
        name: str,
        arguments: Mapping[str, object] | None = None,
        *,
        on_progress: ProgressCallback | None = None,
    ) -> TaskRun:
        """Start a call of *name* in the background and return its handle: the server's task
        (``await run.created()`` → its id; ``run.status()``), ``await run.result()`` (what
        :meth:`call_tool` returns) and ``await run.cancel()`` (``tasks/cancel`` to the server).
        A tool whose ``taskSupport`` is ``optional`` is called as a task on 2025-11-25; one
        without task support is called plainly (``run.task_id`` stays ``None``)."""
        run = TaskRun(name, self.task_log)
        run.start(self._task_call(name, arguments, on_progress))
        return run

    async def _task_call(
        self,
        name: str,
        arguments: Mapping[str, object] | None,
        on_progress: ProgressCallback | None,
    ) -> Result:
        await self.catch_up()
        return await self.pipeline.call(name, arguments, on_progress, as_task=True)

    def tasks(self, server: str | None = None) -> list[TaskRecord]:
        """The tasks this host's calls started, newest first (only *server*'s when given)."""
        return self.task_log.records(server)

    # -- status ----------------------------------------------------------------------------
    def server_stderr(self, server: str) -> list[str]:
        """The lines of *server*'s stderr the host still keeps (bounded, oldest first), to be
        shown: ``hermes mcp doctor`` looks there for the line that names an error."""
        connection = self._connections.get(server)
        return connection.stderr_lines() if connection is not None else []

    def status(self) -> list[ServerStatus]:
        """One row per configured server, sorted by name (``hermes mcp status``)."""
        rows = []
        for name, config in sorted(self._servers.items()):
            listed = self.registry.snapshot(name)
            rows.append(
                status_row(
                    name,
                    config,
                    self._connections.get(name),
                    offered=self.gate.check(name),
                    tools=len(listed),
                    host_tools=sum(1 for entry in listed if entry.utility),
                    elicitation=self._offers.elicitation_counters(name),
                    approvals=self._approvals.counts(name) if config.trust == "untrusted" else None,
                    breaker=self._breakers.of(config).snapshot(),
                    lazy=self._lazy.status(name) if config.lazy else None,
                    filtered_out=self._tools.preparation.filtered_out.get(name, 0),
                    sampling=self._offers.sampling_status(name),
                    name_collisions=self.name_collisions(name),
                    override_problems=self._tools.preparation.override_problems.get(name),
                    app_away=not self._is_connected(name)
                    and self._runner.apps.not_running(name) is not None,
                )
            )
        return rows
