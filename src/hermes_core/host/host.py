"""The MCP host: connect every configured server, register its tools, call them behind the gates.

::

    async with MCPHost(servers) as host:          # connects all enabled servers concurrently
        for tool in host.tools():                 # only tools whose server passes its gate
            print(tool.name)
        result = await host.call_tool("mcp_acme_studio_render", {"scene": "lobby"})

A slow, dead or misconfigured server never blocks or breaks the others: its
error is kept in :meth:`status` and its tools are simply absent.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

from hermes_core.host.breaker import CircuitBreaker, Outcome
from hermes_core.host.connection import ServerConnection, ServerError
from hermes_core.host.elicitation import (
    ElicitationHandler,
    ElicitationRequest,
    ElicitationSettings,
    Elicitor,
)
from hermes_core.host.filtering import ToolFilter, utility_tools
from hermes_core.host.gates import ServerGate
from hermes_core.host.gc_pause import paused_gc
from hermes_core.host.listing import annotations_of, checked_tool, execution_of
from hermes_core.host.naming import (
    NameCollision,
    assign_names,
    registered_tool_name,
    toolset_name,
)
from hermes_core.host.notifications import ProgressCallback, progress_forwarder
from hermes_core.host.registry import ToolEntry, ToolRegistry
from hermes_core.host.roots import Root, RootsHandler
from hermes_core.host.sanitize import (
    SHORT_ASCII,
    ascii_control,
    clean_meta,
    clean_text,
    prepare_input_schema,
    sanitize_value,
)
from hermes_core.host.supervisor import TaskSupervisor
from hermes_core.host.tls import ClientCertificate
from hermes_core.host.transports import BUILTIN_TRANSPORTS, Opener
from hermes_core.sampling.settings import SamplingSettings, unplannable

if TYPE_CHECKING:
    from hermes_core.host.factory import HostFactory
    from hermes_core.host.watch import ConfigWatcher
    from hermes_core.plugins.types import SamplingProvider
    from hermes_core.sampling.catalog import ModelCatalog
    from hermes_core.sampling.handler import SamplingHandler

__all__ = ["HostServer", "MCPHost", "ServerStatus"]

RELIST_DELAY_SECONDS = 0.5
LOGIN_POLL_SECONDS = 0.2
#: How much of a call's arguments an approval question shows.
APPROVAL_ARGS_SHOWN = 500
#: A call retries a reconnecting HTTP server at once only if its last attempt failed this fast.
RETRY_NOW_SECONDS = 5.0

log = logging.getLogger(__name__)

TASK_REQUIRED_REASON = (
    "not offered: it can only run as a task (execution.taskSupport: required), and the mcp SDK "
    "Hermes uses (2.3) accepts only a plain result from tools/call: it rejects the task a server "
    "creates, so such a call cannot be made yet"
)

#: JSON-RPC "method not found".
METHOD_NOT_FOUND = -32601
#: Bounds on what one list_* utility call gathers by following ``nextCursor``.
LIST_MAX_PAGES = 50
LIST_MAX_ITEMS = 1000

_NO_ARGS: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
_UTILITY_SCHEMAS: dict[str, dict[str, Any]] = {
    "list_resources": _NO_ARGS,
    "list_resource_templates": _NO_ARGS,
    "read_resource": {
        "type": "object",
        "properties": {
            "uri": {"type": "string", "minLength": 1, "description": "The resource URI."}
        },
        "required": ["uri"],
        "additionalProperties": False,
    },
    "list_prompts": _NO_ARGS,
    "get_prompt": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "description": "The prompt name."},
            "arguments": {
                "type": "object",
                "description": "Prompt arguments (strings; numbers and booleans are sent as text).",
                "additionalProperties": {"type": ["string", "number", "boolean"]},
            },
        },
        "required": ["name"],
        "additionalProperties": False,
    },
}
_UTILITY_DESCRIPTIONS = {
    "list_resources": "List the resources the MCP server '{s}' offers.",
    "list_resource_templates": (
        "List the resource templates (URI patterns such as file:///{{path}}) the MCP server "
        "'{s}' offers; fill one in and read it with read_resource."
    ),
    "read_resource": "Read one resource of the MCP server '{s}' by URI.",
    "list_prompts": "List the prompts the MCP server '{s}' offers.",
    "get_prompt": "Get one prompt of the MCP server '{s}' by name, with its arguments.",
}
#: list_* utility -> (the SDK method, the result's list key).
_LISTINGS = {
    "list_resources": ("list_resources", "resources"),
    "list_resource_templates": ("list_resource_templates", "resourceTemplates"),
    "list_prompts": ("list_prompts", "prompts"),
}


def _utility_argument_problem(tool: str, args: Mapping[str, Any]) -> str | None:
    """What is wrong with *args* for utility *tool* (its schema in ``_UTILITY_SCHEMAS``)."""
    schema = _UTILITY_SCHEMAS[tool]
    properties: dict[str, Any] = schema["properties"]
    unknown = sorted(set(args) - set(properties))
    if unknown:
        valid = ", ".join(properties) or "none"
        return f"unknown argument(s) {', '.join(map(repr, unknown))} (valid: {valid})"
    for key in schema.get("required", []):
        if key not in args:
            return f"missing required argument {key!r}"
    for key, value in args.items():
        kind = properties[key]["type"]
        if kind == "string":
            if not isinstance(value, str):
                return f"{key!r} must be a string, not {type(value).__name__}"
            if not value.strip():
                return f"{key!r} must not be empty"
        elif kind == "object":
            if not isinstance(value, dict):
                return f"{key!r} must be an object, not {type(value).__name__}"
            for name, item in value.items():
                if isinstance(item, dict | list) or item is None:
                    shown = "null" if item is None else type(item).__name__
                    return f"{key}.{name} must be a string, number or boolean, not {shown}"
    return None


@dataclass(frozen=True)
class HostServer:
    """One server as the host needs it (built from ``config.yaml`` by ``hermes_core.config``)."""

    name: str
    command: str | None = None
    args: list[str] = field(default_factory=list, hash=False)
    env: dict[str, str] = field(default_factory=dict, hash=False, repr=False)
    cwd: str | None = None
    """The stdio process's working folder (``None``: ours)."""
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict, hash=False, repr=False)
    transport: str = "stdio"
    sse_fallback: bool = False
    """A ``url`` without ``transport:``: when Streamable HTTP answers 404 or 405, try the
    legacy SSE transport at the same URL (as the TypeScript SDK's clients do)."""
    timeout: float = 300.0
    connect_timeout: float = 60.0
    enabled: bool = True
    supports_parallel_tool_calls: bool = False
    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()
    resources: bool = True
    prompts: bool = True
    idle_timeout_seconds: float = 0.0
    max_lifetime_seconds: float = 0.0
    keepalive_interval: float = 180.0
    """Probe the server after this many quiet seconds (0: never)."""
    keepalive_timeout: float = 30.0
    """How long a keepalive probe may take before the server counts as wedged."""
    breaker_threshold: int = 3
    breaker_cooldown: float = 60.0
    trust: Literal["full", "untrusted"] = "full"
    lazy: bool = False
    schema_cache: Path | None = field(default=None, compare=False)
    """Where this server's tool listing is cached (``lazy`` servers); None: no cache."""
    fingerprint: str | None = None
    """The connection-relevant config, hashed without credential values (the cache key)."""
    max_message_bytes: int = 64 * 1024 * 1024
    """The largest message accepted from the server (stdio line, SSE event, HTTP body)."""
    client_certificate: ClientCertificate | None = field(default=None, repr=False)
    auth: Any = field(default=None, repr=False, compare=False)
    """An ``httpx2.Auth`` for HTTP servers (``auth: oauth``), or None."""
    elicitation: ElicitationSettings = field(default_factory=ElicitationSettings)
    """The ``elicitation:`` block: whether this server may ask the user, and how long to wait."""
    options: Mapping[str, Any] = field(default_factory=dict, hash=False, repr=False)
    """The entry's keys that belong to its transport or auth provider (``${VAR}`` resolved):
    a plugin transport reads its ``config_key`` here."""
    sampling: SamplingSettings = field(default_factory=SamplingSettings)
    """The ``sampling:`` settings (the server's block over the host-wide one)."""
    roots: tuple[Root, ...] = ()
    """The ``roots:`` folders offered to the server (empty: no roots capability)."""
    display_name: str | None = None
    config_error: str | None = None
    """Set when the config entry could not be resolved; the server is not started."""

    def __repr__(self) -> str:
        # Resolved args, env, URLs and headers can carry secrets: show their shape only.
        from hermes_core.config.models import display_url

        where = display_url(self.url) if self.url else f"{self.command} ({len(self.args)} args)"
        return f"HostServer({self.name!r}, {self.transport}, {where}, enabled={self.enabled})"


@dataclass
class ServerStatus:
    """A row of ``hermes mcp status``."""

    server: str
    transport: str
    enabled: bool
    connection: str
    availability: str
    offered: bool
    tools: int
    last_error: str | None
    elicitation: dict[str, int] | None = None
    """Questions the server asked the user: requests, accepted, declined, cancelled, errors."""
    trust: str = "full"
    approvals: dict[str, int] | None = None
    """For an untrusted server: write-capable calls the user ``approved`` / ``refused``."""
    breaker: dict[str, Any] | None = None
    """The circuit breaker: state (closed/open/half_open), strikes, retry_in, opened, refused."""
    keepalive: dict[str, Any] | None = None
    """interval, probe (ping/tools_list), probes, failures, last_failure."""
    lazy: dict[str, Any] | None = None
    """For a ``lazy: true`` server: started, cached_tools, phantoms dropped at first use."""
    gate: str | None = None
    """Why a declared app keeps the server's tools from being offered ("Acme Studio is not
    installed. Install Acme Studio, then try again."); ``None`` when its app is offerable."""
    filtered_out: int = 0
    """Tools the server lists that ``tools: include/exclude`` keeps from being offered."""
    sampling: dict[str, Any] | None = None
    """Whether the server may sample (``offered``; ``reason`` when not), the model, and the
    counters: requests, completed, refused (by reason), errors, timeouts, tokens, last model."""
    name_collisions: list[str] = field(default_factory=list)
    """Tool name collisions this server takes part in (see ``naming.assign_names``)."""
    protocol: str | None = None
    """The protocol revision negotiated with the server (``2026-07-28`` speaks the per-request
    envelope, older ones the ``initialize`` handshake); ``None`` before it ever connected."""
    roots: list[dict[str, str | None]] | None = None
    """The ``roots:`` offered to the server (``path``, ``uri``, ``name``); ``None``: none."""
    failure: dict[str, Any] | None = None
    """The last failed connection attempt as a record (``last_error`` is its sentence): cause
    (``closed``, ``http_status``, ``auth``, ``network``, ``tls``, ``command_missing``...),
    http_status, exit_code, signal, stderr_tail; ``None`` while connected."""


class MCPHost:
    """Connections to every configured server, the tool registry and the gates."""

    def __init__(
        self,
        servers: Iterable[HostServer],
        *,
        transports: Mapping[str, Opener] | None = None,
        elicitor: Elicitor | None = None,
        clock: Callable[[], float] = time.monotonic,
        factory: HostFactory | None = None,
        sampling_providers: Mapping[str, SamplingProvider] | None = None,
        sampling_clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """*transports* maps each registered transport's name to its ``connect`` (default:
        the built-in plugins' stdio, Streamable HTTP and SSE); a server whose transport is
        not among them fails to connect with an error naming the transport.  Build hosts
        with :class:`~hermes_core.host.factory.HostFactory` to get the plugins' ones.

        *elicitor* shows a server's ``elicitation/create`` questions to the user (see
        :mod:`hermes_core.host.elicitation`); without one, servers are told the host cannot ask.
        It also approves sampling requests of servers with ``sampling.approval: ask``.

        *sampling_providers* are the LLM backends for ``sampling/createMessage`` (the plugin
        manager's ``sampling_providers()``); without one, no server is offered sampling.
        *sampling_clock* drives the sampling rate limits' sliding windows (tests pass a fake).

        *factory* (set by the factory) is what :meth:`watch_config` reloads through.
        """
        self._elicitor = elicitor
        self._sampling_providers = dict(sampling_providers or {})
        self._catalog: ModelCatalog | None = None
        self._catalog_lock = asyncio.Lock()
        self._samplings: dict[str, SamplingHandler] = {}
        self._sampling_why: dict[str, str] = {}
        self._sampling_clock = sampling_clock
        self._elicitations: dict[str, ElicitationHandler] = {}
        self._servers: dict[str, HostServer] = {s.name: s for s in servers}
        if transports is None:  # the built-in plugin's registrations, without a plugin manager
            transports = {t.name: t.connect for t in BUILTIN_TRANSPORTS if t.connect}
        self._openers: dict[str, Opener] = dict(transports)
        self.factory = factory
        self._connections: dict[str, ServerConnection] = {}
        self._refresh_locks: dict[str, asyncio.Lock] = {}
        self.registry = ToolRegistry()
        self.gate = ServerGate(self._is_connected)
        self.collisions: list[str] = []
        """Every current tool name collision (one line each), across all servers."""
        self._collisions: tuple[NameCollision, ...] = ()
        # Server -> (its usable tools (name, description, schema), its utility tools): the
        # input of the registry-wide name assignment.
        self._listed: dict[str, tuple[list[tuple[str, str, dict[str, Any], Any]], list[str]]] = {}
        self._invalid_tools: dict[str, list[str]] = {}
        self._tasks = TaskSupervisor("MCP host")
        """Owns every background task of the host and of its connections (see supervisor)."""
        # Server -> (the config it was prepared for, tool name -> (its wire dict, outcome)).
        self._prepared: dict[str, tuple[HostServer, dict[str, _Memo]]] = {}
        # Server -> (its config, registry name -> (the usable tuple, its entry)).
        self._entry_memo: dict[str, tuple[HostServer | None, dict[str, tuple[Any, ToolEntry]]]] = {}
        # Server -> (its listing, (tool, utility) -> plain registry name), and, while no names
        # collide, server -> (its config, its listing, its entries) as last applied.
        self._plain_names: dict[str, tuple[Any, dict[tuple[str, bool], str]]] = {}
        self._unchanged_entries: dict[str, tuple[HostServer | None, Any, list[ToolEntry]]] = {}
        self._reload_lock = asyncio.Lock()
        self._clock = clock  # the circuit breakers' (injectable for tests)
        self._breakers: dict[str, CircuitBreaker] = {}
        self._lazy: dict[str, dict[str, Any]] = {}
        self._listing_ttl: dict[str, int] = {}
        self._approvals: dict[str, int] = {}
        self._filtered_out: dict[str, int] = {}
        self._approval_refusals: dict[str, int] = {}
        # Server name -> set when its start in progress (connect + first listing) is over.
        self._starts: dict[str, asyncio.Event] = {}
        self.skipped_tools: dict[str, list[str]] = {}
        self.unoffered_tools: dict[str, dict[str, str]] = {}
        """Server -> {tool: why it is listed by the server but not offered}."""

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
        names = [n for n, s in self._servers.items() if s.enabled]

        async def one(name: str) -> str | None:
            started = time.monotonic()
            error = await self._start_one(name)
            if on_server is not None:
                on_server(name, error, time.monotonic() - started)
            return error

        results = await asyncio.gather(*(one(n) for n in names))
        if any(s.idle_timeout_seconds or s.max_lifetime_seconds for s in self._servers.values()):
            self._spawn(self._recycle_loop(), "recycler")  # (nothing once the host is closed)
        return dict(zip(names, results, strict=True))

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

    async def _start_one(self, name: str) -> str | None:
        done = self._starts[name] = asyncio.Event()
        try:
            return await self._start_server(name)
        finally:
            done.set()
            if self._starts.get(name) is done:
                del self._starts[name]

    async def _start_server(self, name: str) -> str | None:
        server = self._servers[name]
        elicitation = None
        if self._elicitor is not None and server.elicitation.enabled:
            elicitation = self._elicitations.get(name)
            if elicitation is None or elicitation.settings != server.elicitation:
                elicitation = ElicitationHandler(name, self._elicitor, server.elicitation)
                self._elicitations[name] = elicitation
        sampling = await self._sampling_handler(name, server)
        connection = ServerConnection(
            name,
            server,
            on_tools_changed=self._tools_changed,
            parallel=server.supports_parallel_tool_calls,
            opener=self._openers.get(server.transport),
            elicitation_callback=elicitation,
            sse_opener=self._openers.get("sse") if server.sse_fallback else None,
            sampling_callback=sampling,
            sampling_capabilities=sampling.capabilities if sampling is not None else None,
            list_roots_callback=RootsHandler(name, server.roots) if server.roots else None,
            tasks=self._tasks,
        )
        if self._tasks.closed:  # the host closed while this server was being prepared
            return "the host was closed"
        self._connections[name] = connection
        connection.on_reconnected = self._reconnected
        connection.status.on_change = self.gate.invalidate
        problem = server.config_error
        if problem is None and server.transport not in self._openers:
            registered = ", ".join(self._openers) or "none"
            problem = (
                f"MCP server '{name}': no transport named {server.transport!r} is registered "
                f"(registered: {registered})"
            )
        if problem is not None:
            connection.status.state, connection.status.last_error = "failed", problem
            return problem
        if server.lazy and self._register_from_cache(server, connection):
            return None  # started by its first call
        try:
            await connection.connect()
            await self.refresh_tools(name)
            if _may_miss_changes(connection):
                # Some servers register tools just after `initialized` and announce them
                # where we may not hear it yet (HTTP's event stream opens later) or not at
                # all: list once more a moment later.
                self._spawn(self._relist_later(name, connection), f"late re-list of '{name}'")
        except ServerError as exc:
            self.gate.invalidate()
            if connection.status.state == "connected":  # the listing failed (e.g. timed out)
                return await self._listing_failed(connection, exc.detail)
            if server.transport != "stdio":
                connection.schedule_reconnect()  # the endpoint may come up later
            return exc.detail
        except Exception as exc:  # noqa: BLE001 - e.g. the server answered tools/list with an error
            return await self._listing_failed(connection, f"{type(exc).__name__}: {exc}")
        self.gate.invalidate()
        return None

    async def _listing_failed(self, connection: ServerConnection, why: str) -> str:
        """A server that connected but could not list its tools (an error, a timeout) is a
        failed server, never ``connected`` with 0 tools: stop it and keep the reason."""
        detail = f"listing tools failed: {why}"
        connection.status.state, connection.status.last_error = "failed", detail
        await connection.close()
        connection.status.state = "failed"
        self.gate.invalidate()
        return detail

    async def sampling_catalog(self) -> ModelCatalog:
        """The models the sampling backends offer, listed once per host (in a worker thread)."""
        from hermes_core.sampling.catalog import ModelCatalog

        async with self._catalog_lock:
            if self._catalog is None:
                providers = self._sampling_providers
                self._catalog = (
                    await asyncio.to_thread(ModelCatalog.load, providers)
                    if providers
                    else ModelCatalog({}, {})
                )
            return self._catalog

    async def _sampling_handler(self, name: str, server: HostServer) -> SamplingHandler | None:
        """The server's sampling handler, or None (and why, for :meth:`status`)."""
        settings = server.sampling
        self._sampling_why.pop(name, None)
        # Without a model configured, the backends' models are never listed (nor imported).
        plan: Any = unplannable(settings, self._sampling_providers)
        if plan is None:
            plan = (await self.sampling_catalog()).plan(settings)
        if isinstance(plan, str):
            self._samplings.pop(name, None)
            self._sampling_why[name] = plan
            return None
        if settings.approval == "ask" and self._elicitor is None:
            self._samplings.pop(name, None)
            self._sampling_why[name] = "approval: ask, but this host has no way to ask the user"
            return None
        handler = self._samplings.get(name)
        if handler is None or handler.settings != settings or handler.plan != plan:
            from hermes_core.sampling.handler import SamplingHandler

            handler = SamplingHandler(
                name,
                settings,
                await self.sampling_catalog(),
                plan,
                approver=self._elicitor,
                approval_timeout=server.elicitation.timeout,
                clock=self._sampling_clock,
            )
            self._samplings[name] = handler
        return handler

    def _sampling_status(self, name: str) -> dict[str, Any] | None:
        handler = self._samplings.get(name)
        if handler is not None:
            plan = handler.plan
            return {
                "offered": True,
                "reason": None,
                "model": plan.model.id if plan.model is not None else None,
                "backend": plan.model.backend if plan.model is not None else None,
                "allowed_models": [m.id for m in plan.allowed],
                **dataclasses.asdict(handler.counters),
            }
        if name in self._sampling_why:
            return {"offered": False, "reason": self._sampling_why[name]}
        return None

    async def close(self) -> None:
        """Stop every server; no child process is left behind, and no task of the host is still
        running when this returns (nor is one started later: a closed host starts nothing)."""
        self._tasks.refuse_new()
        connections, self._connections = list(self._connections.values()), {}
        await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)
        await self._tasks.close()
        self.gate.invalidate()
        self.gate.close()

    async def reload(self, servers: Iterable[HostServer]) -> dict[str, list[str]]:
        """Apply a new config: connect added, drop removed, reconnect changed, keep the rest.

        A server in the middle of a browser login is never interrupted by a reload: unchanged,
        it is simply kept; changed, the change is applied once the login is over (it is listed
        under ``"deferred"``).  Removing or disabling it does stop the login.  Reloads may
        overlap (each applies its difference under a lock; connecting happens outside it).
        """
        async with self._reload_lock:
            new = {s.name: s for s in servers}
            added = [n for n in new if n not in self._servers]
            removed = [n for n in self._servers if n not in new]
            changed = [n for n in new if n in self._servers and new[n] != self._servers[n]]
            deferred = [n for n in changed if new[n].enabled and self._in_login(n)]
            for name in removed + changed:
                if name in deferred:
                    continue
                connection = self._connections.pop(name, None)
                if connection is not None:
                    await connection.close()
                self._forget_tools(name)
            self._servers = new
            for name in deferred:
                log.warning(
                    "MCP server '%s': its config changed during a login; the change is applied "
                    "when the login is over",
                    name,
                )
                self._spawn(self._apply_after_login(name, new[name]), f"apply '{name}' after login")
            starting = [n for n in added + changed if new[n].enabled and n not in deferred]
        await asyncio.gather(*(self._start_one(n) for n in starting))
        self.gate.invalidate()
        return {"added": added, "removed": removed, "changed": changed, "deferred": deferred}

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
        from hermes_core.host.watch import ConfigWatcher, config_loader

        loader, paths = config_loader(path, display_names=display_names, factory=self.factory)
        watcher = ConfigWatcher(self, load or loader, paths, interval=interval)
        self._spawn(watcher.run(), "config watcher")
        return watcher

    async def _retry_now(self, name: str) -> None:
        """A call to a server that is not connected right now: wait a little for a connection
        attempt in progress; for an HTTP server waiting out its reconnect backoff, try now, once,
        when its last attempt failed quickly (refused, not found); never wait out a dead host."""
        connection = self._connections.get(name)
        if connection is None or connection.closed:
            return
        if connection.status.state == "connecting":
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(connection.settled(), RETRY_NOW_SECONDS)
            if self.gate.check(name):
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
        self._spawn(
            self._reconnected(connection), f"re-list of '{name}'"
        )  # its tools may have changed meanwhile

    def _in_login(self, name: str) -> bool:
        connection = self._connections.get(name)
        auth = getattr(connection.spec, "auth", None) if connection is not None else None
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
                # "unknown server"; _start_one replaces it.
                await connection.close()
            self._forget_tools(name)
        error = await self._start_one(name)
        if error is not None:
            log.warning("MCP server '%s': %s", name, error)
        self.gate.invalidate()

    # -- lazy servers ------------------------------------------------------------------------
    def _register_from_cache(self, server: HostServer, connection: ServerConnection) -> bool:
        """Register a lazy server's tools from its cache entry, without starting it."""
        from mcp import types

        from hermes_core.host.schema_cache import read_cache

        info = self._lazy.setdefault(server.name, {"cache": "miss", "started": False})
        if server.schema_cache is None or server.fingerprint is None:
            return False
        listing = read_cache(server.schema_cache, server.fingerprint)
        if listing is None:
            return False
        tools = [tool for tool, _ in map(checked_tool, listing.tools) if tool is not None]
        flags = listing.capabilities
        caps = types.ServerCapabilities(
            tools=types.ToolsCapability() if flags.get("tools") else None,
            resources=types.ResourcesCapability() if flags.get("resources") else None,
            prompts=types.PromptsCapability() if flags.get("prompts") else None,
        )
        with paused_gc():
            self._listed[server.name] = self._usable_tools(server, tools, caps)
            self._assign_names()
        connection.status.state = "lazy"
        info.update(cache="hit", cached_tools=len(tools), phantoms=[])
        self.gate.invalidate()
        return True

    async def _wake_lazy(self, name: str) -> str | None:
        """The first call to a lazy server: connect it and re-list; ``None`` on success, else
        the error.  Tools the live server no longer has ("phantoms") are dropped and reported."""
        connection = self._connections.get(name)
        if connection is None or connection.status.state != "lazy":
            return None
        async with self._refresh_locks.setdefault(f"lazy:{name}", asyncio.Lock()):
            if connection.status.state != "lazy":
                return None  # another call woke it meanwhile
            log.info("MCP server '%s': lazy start on first use", name)
            try:
                await connection.connect()
                _added, removed = await self.refresh_tools(name)
            except ServerError as exc:
                self.gate.invalidate()
                return exc.detail
            info = self._lazy.setdefault(name, {})
            info.update(started=True, phantoms=removed)
            if removed:
                log.warning(
                    "MCP server '%s': cached tools the server no longer offers were dropped: %s",
                    name,
                    ", ".join(removed),
                )
            self.gate.invalidate()
            return None

    def _lazy_status(self, name: str) -> dict[str, Any]:
        info = dict(self._lazy.get(name, {}))
        connection = self._connections.get(name)
        info["started"] = bool(connection is not None and connection.status.state != "lazy")
        return info

    def _write_cache(self, config: HostServer, tools: list[dict[str, Any]], caps: Any) -> None:
        from hermes_core.host.schema_cache import write_cache

        if config.schema_cache is None or config.fingerprint is None:
            return
        ttl = self._listing_ttl.pop(config.name, None)
        if ttl == 0:
            with contextlib.suppress(OSError):
                config.schema_cache.unlink()  # the server asked not to be cached
            return
        flags = {
            "tools": caps is None or caps.tools is not None,
            "resources": caps is not None and caps.resources is not None,
            "prompts": caps is not None and caps.prompts is not None,
        }
        try:
            write_cache(config.schema_cache, config.fingerprint, tools, flags, ttl_ms=ttl)
        except OSError as exc:
            log.warning("MCP server '%s': could not write its tool cache: %s", config.name, exc)

    def _spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any] | None:
        """Run *coro* in the background, owned by the host (ended by :meth:`close`)."""
        return self._tasks.spawn(coro, name=name)

    def _is_connected(self, server: str) -> bool:
        connection = self._connections.get(server)
        # A server that went away still counts while it can be restarted on the next call.
        return connection is not None and connection.status.state in (
            "connected",
            "disconnected",
            "recycled",
            "lazy",  # registered from its cache; its first call starts it
        )

    async def _relist_later(self, name: str, connection: ServerConnection) -> None:
        await asyncio.sleep(RELIST_DELAY_SECONDS)
        if self._connections.get(name) is connection and connection.connected:
            try:
                await self._tools_changed(connection)
            except Exception as exc:  # noqa: BLE001 - a late re-list must never break the host
                log.warning("MCP server '%s': re-listing tools failed: %s", name, exc)

    async def _reconnected(self, connection: ServerConnection) -> None:
        try:
            await self.refresh_tools(connection.name)
        except ServerError as exc:
            log.warning("%s", exc)
        self.gate.invalidate()

    # -- tools --------------------------------------------------------------------------
    async def _tools_changed(self, connection: ServerConnection) -> None:
        if self._connections.get(connection.name) is not connection:
            return  # a notification of a connection already closed (or replaced): nothing to list
        try:
            added, removed = await self.refresh_tools(connection.name)
        except KeyError:
            if self._connections.get(connection.name) is connection:
                raise
            return  # the host closed (or dropped the server) while the listing waited its turn
        except ServerError as exc:
            if self._connections.get(connection.name) is connection and not connection.closed:
                log.warning("%s", exc)  # (nobody needs to hear about a closing connection)
            return
        if added or removed:
            log.warning(
                "MCP server '%s': tools changed — added: %s; removed: %s",
                connection.name,
                ", ".join(added) or "none",
                ", ".join(removed) or "none",
            )

    async def refresh_tools(self, server: str) -> tuple[list[str], list[str]]:
        """Re-list one server's tools and apply the difference (bursts are serialised)."""
        lock = self._refresh_locks.setdefault(server, asyncio.Lock())
        async with lock:
            connection = self._connections.get(server)
            config = self._servers.get(server)
            if connection is None or config is None or connection.closed:
                return [], []  # closed or removed meanwhile (e.g. a late list_changed)
            caps = connection.capabilities
            tools: list[Any] = []
            if caps is None or caps.tools is not None:
                tools = await self._list_all_tools(connection, config)
            if config.lazy:
                self._write_cache(config, tools, caps)
            with paused_gc():  # plain JSON trees: no cycles to collect (see gc_pause)
                listed = self._usable_tools(config, tools, caps)
                if _same_listing(self._listed.get(server), listed):
                    changes = {}  # the same tools, prepared before: no names can change
                else:
                    self._listed[server] = listed
                    changes = self._assign_names()
            self.gate.invalidate()
            return changes.get(server, ([], []))

    def _forget_tools(self, server: str) -> None:
        """Take *server*'s tools out of the registry (names of the others may change back)."""
        self._prepared.pop(server, None)
        if self._listed.pop(server, None) is not None:
            self._assign_names()
        self.registry.drop_server(server)

    def _assign_names(self) -> dict[str, tuple[list[str], list[str]]]:
        """Name every listed tool of every server at once and apply it to the registry.

        The names depend on the set of tools alone (not on which server connected first):
        see :func:`hermes_core.host.naming.assign_names`.  Returns server → (added, removed)
        for every server whose names changed; a server renamed by another's listing is logged.

        Starting N servers names the tools N times, so the common case is kept linear in the
        changed server's tools: each listing's plain names are computed once (kept with the
        listing), and when no two tools anywhere share a plain name (no collision: nothing to
        suffix) every tool's name is its plain name, exactly what :func:`assign_names` would
        give, and a server whose listing is unchanged keeps its entries as they are.
        """
        plain: dict[str, dict[tuple[str, bool], str]] = {}
        count = 0
        for server, listed in self._listed.items():
            known_names = self._plain_names.get(server)
            if known_names is None or known_names[0] is not listed:
                usable, utilities = listed
                names = {(name, False): registered_tool_name(server, name) for name, *_ in usable}
                names.update({(u, True): registered_tool_name(server, u) for u in utilities})
                known_names = self._plain_names[server] = (listed, names)
            plain[server] = known_names[1]
            count += len(known_names[1])
        for server in set(self._plain_names) - set(self._listed):
            del self._plain_names[server]
        distinct = len(set().union(*(names.values() for names in plain.values())))
        if distinct == count:  # no collisions: every name is its plain name

            def name_for(server: str, tool: str, *, utility: bool = False) -> str:
                return plain[server][(tool, utility)]

            collisions: tuple[NameCollision, ...] = ()
        else:
            assignment = assign_names(
                [(s, name) for s, (usable, _) in self._listed.items() for name, *_ in usable],
                [(s, u) for s, (_, utilities) in self._listed.items() for u in utilities],
            )
            name_for, collisions = assignment.name_for, assignment.collisions
        known = {c.message() for c in self._collisions}
        for collision in collisions:
            if collision.message() not in known:
                log.warning("%s", collision.message())
        self._collisions = collisions
        self.collisions = [c.message() for c in collisions]
        entries: dict[str, list[ToolEntry]] = {}
        for server, listed in self._listed.items():
            usable, utilities = listed
            config = self._servers.get(server)
            if not collisions:
                same = self._unchanged_entries.get(server)
                if same is not None and same[0] is config and same[1] is listed:
                    entries[server] = same[2]  # its listing and names as last time
                    continue
            shown = config.name if config is not None else server
            parallel = config.supports_parallel_tool_calls if config is not None else False
            toolset = toolset_name(server)
            # An entry is rebuilt only when its tool or its name changed: registering one
            # server leaves the others' entries (and the registry's sorted runs) as they are.
            memo_config, memo = self._entry_memo.get(server, (None, {}))
            if memo_config is not config:
                memo = {}
            kept: dict[str, tuple[Any, ToolEntry]] = {}
            mine: list[ToolEntry] = []
            for item in usable:
                name, desc, schema, tool = item
                registered = name_for(server, name)
                before = memo.get(registered)
                if before is not None and before[0] is item:
                    entry = before[1]
                else:
                    entry = ToolEntry(
                        registered,
                        server,
                        name,
                        desc,
                        schema,
                        toolset,
                        supports_parallel_tool_calls=parallel,
                        **_tool_metadata(tool),
                    )
                kept[registered] = (item, entry)
                mine.append(entry)
            for u in utilities:
                registered = name_for(server, u, utility=True)
                before = memo.get(registered)
                if before is not None and before[0] == u:
                    entry = before[1]
                else:
                    entry = ToolEntry(
                        registered,
                        server,
                        u,
                        _UTILITY_DESCRIPTIONS[u].format(s=shown),
                        _UTILITY_SCHEMAS[u],
                        toolset,
                        utility=True,
                        read_only=True,
                        annotations={"readOnlyHint": True},
                        supports_parallel_tool_calls=parallel,
                    )
                kept[registered] = (u, entry)
                mine.append(entry)
            self._entry_memo[server] = (config, kept)
            entries[server] = mine
            if not collisions:
                self._unchanged_entries[server] = (config, listed, mine)
            else:
                self._unchanged_entries.pop(server, None)
        for server in set(self._entry_memo) - set(self._listed):
            del self._entry_memo[server]
        for server in set(self._unchanged_entries) - set(self._listed):
            del self._unchanged_entries[server]
        return self.registry.replace_all(entries)

    def name_collisions(self, server: str) -> list[str]:
        """The current tool name collisions *server* takes part in, one line each."""
        return [c.message() for c in self._collisions if any(m.server == server for m in c.members)]

    async def _list_all_tools(
        self, connection: ServerConnection, config: HostServer
    ) -> list[dict[str, Any]]:
        """Every tool the server lists (following ``nextCursor``), as checked wire dicts.

        The answer is read as raw JSON and each tool checked once (:mod:`.listing`): one
        malformed tool is skipped with its reason instead of failing the whole listing, and no
        SDK models are built for tools the host keeps as JSON anyway.
        """
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        from hermes_core import _sdk_compat

        invalid: list[str] = []
        modern = connection.protocol in MODERN_PROTOCOL_VERSIONS

        async def page(session: Any, cursor: str | None) -> tuple[list[dict[str, Any]], Any]:
            raw = await _sdk_compat.send_raw_request(
                session, "tools/list", {"cursor": cursor} if cursor else None
            )
            if not isinstance(raw, dict):
                raw = {}
            items = raw.get("tools")
            tools = []
            for item in items if type(items) is list else ():
                tool, problem = checked_tool(item)
                if tool is None:
                    name = item.get("name") if isinstance(item, dict) else None
                    invalid.append(f"{name!r}: {problem}")
                else:
                    tools.append(tool)
            next_cursor = raw.get("nextCursor")
            next_cursor = next_cursor if isinstance(next_cursor, str) else None
            # Let the session know the tools' output schemas (it checks results against them);
            # on 2026-07-28 it drops tools with an invalid x-mcp-header, and so do we.
            kept, dropped = _sdk_compat.absorb_tool_listing(
                session, tools, next_cursor, complete=cursor is None and next_cursor is None
            )
            invalid.extend(dropped)
            if len(kept) != len(tools):
                still = {id(t) for t in kept}
                tools = [t for t in tools if id(t) in still]
            if cursor is None and modern:
                # ttlMs (2026-07-28 only: the SDK drops it from older revisions' answers).
                ttl = raw.get("ttlMs")
                if isinstance(ttl, int | float) and not isinstance(ttl, bool):
                    self._listing_ttl[config.name] = max(0, int(ttl))
            return tools, next_cursor

        async def pages(session: Any) -> list[dict[str, Any]]:
            collected: list[dict[str, Any]] = []
            cursor: str | None = None
            for _ in range(1000):  # a server paging forever must not hang us
                tools, cursor = await page(session, cursor)
                collected.extend(tools)
                if not cursor:
                    break
            return collected

        result: list[dict[str, Any]] = await connection.request(
            "tools/list", pages, config.connect_timeout
        )
        for problem in invalid:
            log.warning("MCP server '%s': skipping tool %s", config.name, problem)
        self._invalid_tools[config.name] = invalid
        return result

    def _usable_tools(
        self, config: HostServer, tools: list[dict[str, Any]], caps: Any
    ) -> tuple[list[tuple[str, str, dict[str, Any], dict[str, Any]]], list[str]]:
        chosen = ToolFilter(config.include, config.exclude)
        usable: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = []
        skipped: list[str] = []
        filtered_out = 0
        unoffered: dict[str, str] = {}
        # What each tool came to last time, for this same config: an unchanged tool (equal
        # JSON) keeps its prepared form, so a re-list prepares only what changed.
        memo_config, memo = self._prepared.get(config.name, (None, {}))
        if memo_config is not config:
            memo = {}
        prepared: dict[str, _Memo] = {}
        for tool in tools:
            name = tool["name"]
            if not chosen.allows(name):
                filtered_out += 1
                continue
            before = memo.get(name)
            if before is not None and (before[0] is tool or before[0] == tool):
                outcome = before[1]
            else:
                outcome = _prepare_tool(tool)
            prepared[name] = (tool, outcome)
            if isinstance(outcome, tuple):
                usable.append(outcome)
            elif outcome is _TASK_REQUIRED:
                # mcp 2.3 validates a tools/call answer as CallToolResult, so the
                # CreateTaskResult of a task-augmented call is refused inside the SDK, and a
                # plain call to such a tool is refused by the server (-32601).
                unoffered[name] = TASK_REQUIRED_REASON
            else:
                skipped.append(f"{name}: {outcome}")
                log.warning("MCP server '%s': skipping tool %r: %s", config.name, name, outcome)
        self._prepared[config.name] = (config, prepared)
        self.skipped_tools[config.name] = self._invalid_tools.pop(config.name, []) + skipped
        self._filtered_out[config.name] = filtered_out
        self.unoffered_tools[config.name] = unoffered
        flags = {
            "resources": caps is not None and caps.resources is not None,
            "prompts": caps is not None and caps.prompts is not None,
        }
        return usable, list(utility_tools(flags, config.resources, config.prompts))

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
        entry = self.registry.get(name)
        if entry is None:
            return {"error": f"unknown tool {name!r}"}
        config = self._servers[entry.server]
        breaker = None if entry.utility else self._breaker(config)
        if breaker is not None and (refused := breaker.admit()) is not None:
            return refused  # no transport work while the breaker is open
        outcome: Outcome | None = None
        try:
            args = dict(arguments or {})
            # The usual call (a connected, offered, trusted server's own tool) goes straight
            # to the connection: one coroutine frame here and one there, nothing else kept
            # alive while it waits.
            if (
                config.lazy
                or entry.utility
                or (config.trust == "untrusted" and not entry.read_only)
                or not self.gate.check(entry.server)
            ):
                early = await self._before_call(entry, config, args)
                if early is not None:
                    result, outcome = early
                    return result
            forward = None if on_progress is None else progress_forwarder(entry.server, on_progress)
            try:
                answer = await self._connections[entry.server].request(
                    f"the call to {entry.tool!r}",
                    ServerConnection.tools_call,
                    config.timeout,
                    entry.tool,
                    args,
                    forward,
                )
            except Exception as exc:  # noqa: BLE001 - every failure becomes a result
                result, outcome = self._call_failed(entry, exc)
                return result
            result = _render_result(answer)
            outcome = "application" if result.get("isError") else "ok"
            return result
        finally:
            if breaker is not None:
                if outcome is None:
                    breaker.release()
                else:
                    breaker.record(outcome)

    async def _before_call(
        self, entry: ToolEntry, config: HostServer, args: dict[str, Any]
    ) -> tuple[dict[str, Any], Outcome | None] | None:
        """What stands before the call itself: waking a lazy server, the gate, a utility tool
        (answered here), the approval of an untrusted server's tool.  ``None``: go ahead with
        the call; else the result and the breaker outcome (``None``: the call did not reach the
        server for a reason that says nothing of it)."""
        if config.lazy and (woke := await self._wake_lazy(entry.server)) is not None:
            error = f"MCP server '{entry.server}' (lazy) could not be started: {woke}"
            return {"error": error, "server": entry.server, "state": "not_connected"}, "transport"
        if config.lazy and self.registry.get(entry.name) is None:
            return {
                "error": f"MCP server '{entry.server}' no longer offers the tool {entry.tool!r} "
                "(it was in the tool cache; the live server dropped it)",
                "server": entry.server,
                "state": "phantom",
            }, None
        offered = self.gate.check(entry.server)
        if not offered:
            await self._retry_now(entry.server)
            offered = self.gate.check(entry.server)
        if not offered:
            payload = self.gate.error_payload(entry.server, config.display_name)
            connection = self._connections.get(entry.server)
            reason = connection.status.last_error if connection is not None else None
            if payload.get("state") == "not_connected" and reason:
                core = reason.removeprefix(f"MCP server '{entry.server}' ")
                payload["error"] += f": {core}" if core is reason else f": it {core}"
            not_connected = payload.get("state") == "not_connected"
            return payload, "transport" if not_connected else None
        connection = self._connections[entry.server]
        if entry.utility:
            problem = _utility_argument_problem(entry.tool, args)
            if problem is not None:
                return {
                    "error": f"{entry.tool} of MCP server '{entry.server}' was not called: "
                    f"{problem}",
                    "server": entry.server,
                    "state": "invalid_arguments",
                    "retryable": False,
                }, None
            try:
                return await self._call_utility(connection, config, entry.tool, args), None
            except ServerError as exc:
                self.gate.invalidate()
                return {"error": str(exc), "server": entry.server, "retryable": exc.retryable}, None
            except Exception as exc:  # noqa: BLE001 - an MCP error from the server is a result
                return {
                    "error": f"MCP server '{entry.server}': {type(exc).__name__}: {exc}",
                    "server": entry.server,
                }, None
        if config.trust == "untrusted" and not entry.read_only:
            refusal = await self._approve_untrusted(entry, config, args)
            if refusal is not None:
                return refusal, None
        return None

    def _call_failed(self, entry: ToolEntry, exc: Exception) -> tuple[dict[str, Any], Outcome]:
        """The result and breaker outcome of a call that raised *exc*."""
        if isinstance(exc, ServerError):
            self.gate.invalidate()
            failed = {"error": str(exc), "server": entry.server, "retryable": exc.retryable}
            return failed, "transport"
        from hermes_core import _sdk_compat

        if _sdk_compat.is_output_schema_violation(exc):
            # The SDK checks structuredContent against the tool's outputSchema (as the spec
            # asks of clients) and raises a bare RuntimeError when it does not match.
            return {
                "error": f"MCP server '{entry.server}': the result of {entry.tool!r} does "
                f"not match the tool's outputSchema, so it was discarded: "
                f"{str(exc).splitlines()[0]}",
                "server": entry.server,
                "tool": entry.tool,
                "state": "invalid_output",
                "retryable": False,
            }, "application"
        return {
            "error": clean_text(f"MCP server '{entry.server}': {type(exc).__name__}: {exc}"),
            "server": entry.server,
        }, "application"

    def _breaker(self, config: HostServer) -> CircuitBreaker:
        breaker = self._breakers.get(config.name)
        if (
            breaker is None
            or breaker.threshold != config.breaker_threshold
            or breaker.cooldown != config.breaker_cooldown
        ):
            breaker = CircuitBreaker(
                config.name,
                threshold=config.breaker_threshold,
                cooldown=config.breaker_cooldown,
                clock=self._clock,
            )
            self._breakers[config.name] = breaker
        return breaker

    async def _approve_untrusted(
        self, entry: ToolEntry, config: HostServer, args: dict[str, Any]
    ) -> dict[str, Any] | None:
        """Ask the user before a write-capable tool of an untrusted server runs; ``None`` when
        approved, else the "not run" error.  Fails closed: no channel, a timeout, a declined or
        cancelled answer, or an approver that raises all mean the call is not sent."""
        shown = json.dumps(args, ensure_ascii=False, default=str)
        if len(shown) > APPROVAL_ARGS_SHOWN:
            shown = shown[: APPROVAL_ARGS_SHOWN - 1] + "…"
        request = ElicitationRequest(
            server=entry.server,
            message=(
                f"MCP server '{entry.server}' is untrusted and wants to run {entry.tool!r}, "
                f"a tool it does not mark read-only, with arguments {shown}. Run it?"
            ),
            fields=(),
            schema={"type": "object", "properties": {}},
            kind="approval",
        )
        why = "there is no one to ask (no approval channel)"
        if self._elicitor is not None:
            try:
                answer = await asyncio.wait_for(self._elicitor(request), config.elicitation.timeout)
            except TimeoutError:
                why = f"no answer within {config.elicitation.timeout:g} s"
            except Exception as exc:  # noqa: BLE001 - an approver that fails blocks the call
                why = f"the approval failed ({type(exc).__name__})"
            else:
                if answer.action == "accept":
                    self._approvals[entry.server] = self._approvals.get(entry.server, 0) + 1
                    return None
                why = "the user declined" if answer.action == "decline" else "the user cancelled"
        self._approval_refusals[entry.server] = self._approval_refusals.get(entry.server, 0) + 1
        return {
            "error": (
                f"The write-capable MCP tool {entry.tool!r} on untrusted server "
                f"'{entry.server}' was NOT run: {why}. Do not retry without explicit user "
                "direction."
            ),
            "server": entry.server,
            "state": "not_approved",
            "retryable": False,
        }

    async def _call_utility(
        self, connection: ServerConnection, config: HostServer, tool: str, args: dict[str, Any]
    ) -> dict[str, Any]:
        if tool in _LISTINGS:
            return await self._list_all(connection, config, tool)

        prompt_args = {
            str(k): v if isinstance(v, str) else json.dumps(v)
            for k, v in (args.get("arguments") or {}).items()
        }

        async def run(session: Any) -> Any:
            # Either request may be answered with InputRequiredResult (2026-07-28).
            async def send(responses: Any, state: str | None) -> Any:
                if tool == "read_resource":
                    return await session.read_resource(
                        args["uri"],
                        input_responses=responses,
                        request_state=state,
                        allow_input_required=True,
                    )
                return await session.get_prompt(
                    args["name"],
                    prompt_args,
                    input_responses=responses,
                    request_state=state,
                    allow_input_required=True,
                )

            return await connection.until_answered(session, tool, send)

        result = await connection.request(tool, run, config.timeout)
        data: dict[str, Any] = sanitize_value(
            result.model_dump(mode="json", by_alias=True, exclude_none=True)
        )
        return data

    async def _list_all(
        self, connection: ServerConnection, config: HostServer, tool: str
    ) -> dict[str, Any]:
        """Every page of a listing, up to :data:`LIST_MAX_PAGES` pages and
        :data:`LIST_MAX_ITEMS` items; a cut-short listing says so (``truncated``)."""
        from mcp import types
        from mcp.shared.exceptions import MCPError

        method, key = _LISTINGS[tool]

        async def run(session: Any) -> tuple[list[Any], int, str | None]:
            items: list[Any] = []
            cursor: str | None = None
            seen: set[str] = set()
            pages = 0
            while True:
                params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                try:
                    page = await getattr(session, method)(params=params)
                except MCPError as exc:
                    if exc.code != METHOD_NOT_FOUND or pages or tool != "list_resource_templates":
                        raise
                    # Templates are optional within the resources capability.
                    return [], 1, None
                pages += 1
                dumped = page.model_dump(mode="json", by_alias=True, exclude_none=True)
                items.extend(dumped.get(key, []))
                cursor = page.next_cursor
                if not cursor:
                    return items, pages, None
                if len(items) >= LIST_MAX_ITEMS:
                    return items, pages, f"more than {LIST_MAX_ITEMS} items"
                if pages >= LIST_MAX_PAGES:
                    return items, pages, f"more than {LIST_MAX_PAGES} pages"
                if cursor in seen:
                    return items, pages, "the server sent a cursor it had sent before"
                seen.add(cursor)

        items, pages, cut = await connection.request(tool, run, config.timeout)
        data: dict[str, Any] = {key: sanitize_value(items[:LIST_MAX_ITEMS]), "pages": pages}
        if cut is not None:
            data["truncated"] = True
            data["note"] = (
                f"listing stopped early: {cut}; showing the first {len(data[key])} "
                f"{key} of MCP server '{config.name}'"
            )
        return data

    # -- status ----------------------------------------------------------------------------
    def status(self) -> list[ServerStatus]:
        from hermes_platform import declared

        rows = []
        for name, config in sorted(self._servers.items()):
            connection = self._connections.get(name)
            decl = declared.lookup(name)
            rows.append(
                ServerStatus(
                    server=name,
                    transport=connection.transport_used if connection else config.transport,
                    enabled=config.enabled,
                    connection=connection.status.state
                    if connection
                    else ("disabled" if not config.enabled else "not started"),
                    availability=_availability(decl) if decl else "undeclared",
                    offered=self.gate.check(name),
                    tools=len(self.registry.snapshot(name)),
                    last_error=connection.status.last_error if connection else None,
                    elicitation=dataclasses.asdict(self._elicitations[name].counters)
                    if name in self._elicitations
                    else None,
                    trust=config.trust,
                    approvals={
                        "approved": self._approvals.get(name, 0),
                        "refused": self._approval_refusals.get(name, 0),
                    }
                    if config.trust == "untrusted"
                    else None,
                    breaker=self._breaker(config).snapshot(),
                    keepalive=connection.keepalive_status() if connection else None,
                    lazy=self._lazy_status(name) if config.lazy else None,
                    gate=self._gate_sentence(decl, config.display_name) if decl else None,
                    filtered_out=self._filtered_out.get(name, 0),
                    sampling=self._sampling_status(name),
                    name_collisions=self.name_collisions(name),
                    protocol=connection.protocol if connection else None,
                    roots=[dataclasses.asdict(root) for root in config.roots] or None,
                    failure=connection.status.failure.as_dict()
                    if connection and connection.status.failure
                    else None,
                )
            )
        return rows

    @staticmethod
    def _gate_sentence(decl: Any, display_name: str | None) -> str | None:
        from hermes_platform.resolver.availability import availability
        from hermes_platform.sentences import guidance

        advice = guidance(decl, availability(decl), display_name=display_name)
        return advice.sentence if advice else None


def _availability(decl: Any) -> str:
    """The availability state of a declared server's app (hermes_platform's resolvers)."""
    from hermes_platform.resolver.availability import availability

    return availability(decl).state


#: A listed tool offered: (name, description, its prepared input schema, the wire dict).
_Usable = tuple[str, str, dict[str, Any], dict[str, Any]]
#: A listed tool not offered because it only runs as a task.
_TASK_REQUIRED = "task required"
#: What a listed tool comes to: offered, task-only, or skipped (the reason).
_Prepared = _Usable | str
#: A tool's wire dict and what it came to (see ``MCPHost._prepared``).
_Memo = tuple[dict[str, Any], _Prepared]


def _prepare_tool(tool: dict[str, Any]) -> _Prepared:
    """One listed tool, ready to register: its schema validated and repaired (kept as it is
    when it needs no repair), its description cleaned; or why it is not offered."""
    schema, problem = prepare_input_schema(tool["inputSchema"])
    if schema is None:
        return str(problem)
    execution = tool.get("execution")
    if execution and execution.get("taskSupport") == "required":
        return _TASK_REQUIRED
    return (tool["name"], clean_text(tool.get("description") or ""), schema, tool)


def _same_listing(
    before: tuple[list[_Usable], list[str]] | None, after: tuple[list[_Usable], list[str]]
) -> bool:
    """Whether *after* holds the very prepared tools of *before* (a re-list found no change)."""
    if before is None or before[1] != after[1] or len(before[0]) != len(after[0]):
        return False
    return all(a is b for a, b in zip(before[0], after[0], strict=True))


def _may_miss_changes(connection: ServerConnection) -> bool:
    """Whether a change to the server's tools just after it connected could go unheard.

    Over stdio in the handshake era every message the server writes reaches the session,
    whose handler is in place from the start, so a server that announces changes
    (``tools.listChanged``) is heard: its first listing stands until it says otherwise, and
    no second listing is sent.  Over HTTP a notification can go out before the event stream
    is open; a server that does not announce changes may still add tools a moment after
    ``initialized``; and on 2026-07-28 changes come on a ``subscriptions/listen`` stream
    that mcp 2.3 does not yet deliver them on reliably (see docs/performance.md).
    """
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    if connection.transport_used != "stdio" or connection.protocol in MODERN_PROTOCOL_VERSIONS:
        return True
    tools = getattr(connection.capabilities, "tools", None)
    return getattr(tools, "list_changed", None) is not True


def _tool_metadata(tool: Mapping[str, Any]) -> dict[str, Any]:
    """A listed tool's title, annotations, output schema and execution, sanitised."""
    hints = annotations_of(tool)
    title = tool.get("title") or hints.get("title")
    output_schema = tool.get("outputSchema")
    execution = execution_of(tool)
    return {
        "read_only": hints.get("readOnlyHint") is True,
        "title": clean_text(title) if isinstance(title, str) else None,
        "annotations": sanitize_value(hints) if hints else None,
        "output_schema": sanitize_value(dict(output_schema))
        if isinstance(output_schema, Mapping)
        else None,
        "execution": sanitize_value(execution) if execution else None,
    }


_PLAIN_TYPES: tuple[Any, Any] | None = None
"""The SDK's ``CallToolResult`` and ``TextContent``, imported on the first result."""


def _plain_text_result(result: Any) -> dict[str, Any] | None:
    """The usual result, text content and nothing else, rendered directly: what
    :func:`_render_result`'s dump and walk would give, or ``None`` when *result* holds anything
    more (metadata, structured content, annotations, other content, extra fields, text that
    loses characters to :func:`clean_text`), which the general way renders."""
    global _PLAIN_TYPES  # a cache of an import
    if _PLAIN_TYPES is None:
        from mcp_types import CallToolResult, TextContent

        _PLAIN_TYPES = (CallToolResult, TextContent)
    result_type, text_type = _PLAIN_TYPES
    if (
        type(result) is not result_type
        or result.meta is not None
        or result.structured_content is not None
        or result.result_type != "complete"
        or type(result.is_error) is not bool
        or result.__pydantic_extra__  # (model_extra, without the property's call)
    ):
        return None
    content = []
    for item in result.content:
        if (
            type(item) is not text_type
            or item.annotations is not None
            or item.meta is not None
            or item.__pydantic_extra__
        ):
            return None
        text = item.text
        if type(text) is not str:
            return None
        # Short plain ASCII (most text) is checked here; anything else by clean_text.
        if not (len(text) < SHORT_ASCII and text.isascii() and ascii_control(text) is None) and (
            clean_text(text) is not text
        ):
            return None
        content.append({"type": "text", "text": text})
    return {"content": content, "isError": result.is_error, "resultType": "complete"}


def _render_result(result: Any) -> dict[str, Any]:
    """A ``CallToolResult`` as JSON-ready data, TAG characters stripped, ``_meta`` cleaned.

    The usual result (text content only) is built directly (:func:`_plain_text_result`);
    anything else takes one ``model_dump`` (pydantic's serialiser, in Rust; nothing is encoded as
    JSON text), then one walk over the strings (:func:`sanitize_value`: pure-ASCII text is only
    searched for controls, and the same objects come back when nothing changes)."""
    plain = _plain_text_result(result)
    return plain if plain is not None else _render_any_result(result)


def _render_any_result(result: Any) -> dict[str, Any]:
    data = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    meta = data.pop("_meta", None)
    rendered: dict[str, Any] = sanitize_value(data)
    if meta is not None and (meta := clean_meta(meta)):
        rendered["_meta"] = meta
    for item in rendered.get("content", ()):
        if type(item) is dict and "_meta" in item:
            cleaned = clean_meta(item.pop("_meta"))
            if cleaned:
                item["_meta"] = cleaned
    if "isError" not in rendered:
        rendered["isError"] = False
    return rendered
