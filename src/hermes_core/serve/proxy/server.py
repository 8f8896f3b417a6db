"""``hermes mcp proxy``: the host's servers offered to another agent as one MCP server.

The downstream client sees exactly what :meth:`MCPHost.tools` offers (``mcp_<server>_<tool>``
names, the servers' ``tools:`` filters, sanitised text, the availability gates), narrowed by a
:class:`~hermes_core.serve.proxy.profiles.Profile`; every call goes through
:meth:`MCPHost.call_tool`, so the circuit breaker, the trust tiers and the approvals apply.
A name the profile hides is an unknown tool, whether it was listed or guessed.

Forwarded: the host's tool list changing (an upstream ``list_changed``, a server connecting or
going) becomes ``notifications/tools/list_changed`` downstream (2025-11-25 sessions) and a
``ToolsListChanged`` event on ``subscriptions/listen`` streams (2026-07-28), only when what the
profile offers changed (a change of a server outside it is not heard); a call's progress
goes to the downstream caller's progress token; a downstream cancel cancels the upstream call
(the call's task is cancelled, and the host's client sends ``notifications/cancelled``).
Resources and prompts are served by the servers' utility tools, namespaced as the tools are:
a prompt ``mcp_<server>_<prompt>``, a resource ``hermes://<server>/<quoted URI>``.
"""

from __future__ import annotations

import asyncio
import logging
import urllib.parse
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

import mcp_types as types
from mcp.server._otel import OpenTelemetryMiddleware
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from hermes_core import __version__
from hermes_core.host.calls.refusals import unknown_tool
from hermes_core.host.calls.result_text import render_text
from hermes_core.host.tools.naming import sanitize_component
from hermes_core.host.tools.registry import ToolEntry
from hermes_core.host.tools.utility_results import utility_data
from hermes_core.json_text import compact_json
from hermes_core.sanitize import sanitize_value
from hermes_core.serve.proxy.downstream import Asker, Downstream, DownstreamElicitor
from hermes_core.serve.proxy.input_rounds import HeldCalls, RoundAsker
from hermes_core.serve.proxy.logs import LogForwarder
from hermes_core.serve.proxy.profiles import Profile

if TYPE_CHECKING:
    from mcp.server.connection import Connection
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
    from mcp.server.models import InitializationOptions
    from mcp.server.session import ServerSession

    from hermes_core.host.host import MCPHost

__all__ = ["RESOURCE_SCHEME", "ProxyServer", "call_result", "plain_result_json"]

log = logging.getLogger(__name__)
RESOURCE_SCHEME = "hermes"
INVALID_PARAMS = -32602
#: How many downstream connections are told of tool list changes (the oldest is forgotten).
MAX_LISTENERS = 1024
INSTRUCTIONS = (
    "Hermes proxies the MCP servers configured on this machine: each tool is named "
    "mcp_<server>_<tool>; calls are gated, filtered and approved by the Hermes host."
)


class ProxyServer:
    """The lowlevel ``Server`` over *host*, narrowed by *profile*."""

    def __init__(
        self, host: MCPHost, profile: Profile, elicitor: DownstreamElicitor | None = None
    ) -> None:
        """*elicitor*: the one the host was built with, told which client each call is of."""
        self.host = host
        self.elicitor = elicitor or DownstreamElicitor()
        self.profile = profile
        self.bus = InMemorySubscriptionBus()
        self._sessions: OrderedDict[int, tuple[Connection, ServerSession]] = OrderedDict()
        """id(connection) -> (connection, a session of it): who hears list_changed."""
        self._by_session_id: dict[str, int] = {}
        """A Streamable HTTP connection's ``Mcp-Session-Id`` -> its key in ``_sessions``."""
        self._pending: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._prompts: dict[str, tuple[str, str]] = {}
        self._logs: LogForwarder | None = None
        self.held = HeldCalls()
        """The 2026-07-28 calls waiting for their clients' answers (:mod:`.input_rounds`)."""
        self.on_told: Callable[[], Awaitable[None]] | None = None
        """Awaited after this proxy's clients were told its offer changed (a fleet tells
        the other replicas' listeners)."""
        self.server: Server = Server(
            "hermes-proxy",
            version=__version__,
            instructions=INSTRUCTIONS,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_list_resources=self._list_resources,
            on_read_resource=self._read_resource,
            on_list_prompts=self._list_prompts,
            on_get_prompt=self._get_prompt,
            on_subscriptions_listen=ListenHandler(self.bus),
        )
        # The SDK's OpenTelemetry span per message is a cost on every call and exports
        # nothing here (the host traces its own calls): off, as the SDK documents.
        self.server.middleware[:] = [
            m for m in self.server.middleware if type(m) is not OpenTelemetryMiddleware
        ]
        self.server.middleware.append(self._remember_initialize)
        self._offered: tuple[ToolEntry, ...] = tuple(self.entries())
        """What the profile offered when its clients were last told (or at the start)."""
        self._unlisten = host.registry.add_listener(self._registry_changed)

    def forward_logs(self) -> None:
        """Send upstream servers' log messages to the downstream clients (see :mod:`.logs`)."""
        forwarder = LogForwarder(
            asyncio.get_running_loop(),
            lambda: [s for _, s in self._sessions.values()],
            self.profile.keeps_server,
        )
        root = logging.getLogger("hermes.mcp")
        root.addHandler(forwarder)
        if root.getEffectiveLevel() > logging.INFO:
            root.setLevel(logging.INFO)
        self._logs = forwarder

    def options(self) -> InitializationOptions:
        return self.server.create_initialization_options(NotificationOptions(tools_changed=True))

    def close(self) -> None:
        self._unlisten()
        self.held.close()
        if self._logs is not None:
            logging.getLogger("hermes.mcp").removeHandler(self._logs)
            self._logs.close()

    # -- what the profile sees ---------------------------------------------------------
    def entries(self) -> list[ToolEntry]:
        keeps = self.profile.keeps
        return [e for e in self.host.tools() if keeps(e.server, e.name)]

    def find(self, name: str) -> ToolEntry | None:
        """The offered entry named *name*: registered, its server passing its gate, kept by
        the profile; anything else is unknown (however the name was learned)."""
        entry = self.host.registry.get(name)
        if entry is None or not self.profile.keeps(entry.server, entry.name):
            return None
        return entry if self.host.gate.check(entry.server) else None

    # -- list_changed ------------------------------------------------------------------
    def _remember(self, ctx: ServerRequestContext) -> None:
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return  # a connection per request: its client listens on subscriptions/listen
        session = ctx.session
        connection = session._connection  # the SDK keeps it private
        key = id(connection)
        known = key in self._sessions
        self._sessions[key] = (connection, session)  # its newest request's session
        if known:
            self._sessions.move_to_end(key)
        session_id = getattr(connection, "session_id", None)
        if isinstance(session_id, str):
            self._by_session_id[session_id] = key
        while len(self._sessions) > MAX_LISTENERS:
            _, (gone, _) = self._sessions.popitem(last=False)
            forgotten = getattr(gone, "session_id", None)
            if isinstance(forgotten, str):
                self._by_session_id.pop(forgotten, None)

    async def _remember_initialize(
        self, ctx: ServerRequestContext, call_next: CallNext
    ) -> HandlerResult:
        """Middleware: a connection is remembered from its handshake on, so one that calls
        tools without listing them hears of list changes too."""
        result = await call_next(ctx)
        if ctx.method == "initialize":
            self._remember(ctx)
        return result

    def _registry_changed(self) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._schedule()
        else:
            loop.call_soon_threadsafe(self._schedule)

    def _schedule(self) -> None:
        if self._pending is None or self._pending.done():
            self._pending = asyncio.get_running_loop().create_task(self._announce())

    def _offer_changed(self) -> bool:
        """Whether what the profile offers changed since it was last told (other servers'
        changes are none of its clients' business)."""
        now = tuple(self.entries())
        before, self._offered = self._offered, now
        return len(now) != len(before) or any(a is not b for a, b in zip(now, before, strict=True))

    async def _announce(self) -> None:
        await asyncio.sleep(0)  # a burst of changes is one notification
        if not self._offer_changed():
            return
        await self.tell()
        if self.on_told is not None:
            await self.on_told()

    async def tell(self) -> None:
        """Tell this proxy's listeners that the tool list changed."""
        await self.bus.publish(ToolsListChanged())
        for key, (_, session) in list(self._sessions.items()):
            try:
                await session.send_tool_list_changed()
            except Exception:
                log.debug("tools/list_changed not delivered; dropping the session", exc_info=True)
                self._sessions.pop(key, None)

    # -- tools -------------------------------------------------------------------------
    async def _list_tools(
        self, ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        self._remember(ctx)
        return types.ListToolsResult(tools=[_tool(e) for e in self.entries()])

    async def _call_tool(
        self, ctx: ServerRequestContext, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        self._remember(ctx)
        progress = ctx if _wants_progress(ctx) else None
        arguments = params.arguments or {}
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            caller = Downstream(ctx.session, ctx.request_id)
            return await self.answer(params.name, arguments, caller, progress)
        # 2026-07-28: what the call asks of its caller goes out as input_required rounds.
        if params.request_state is not None:
            return await self.held.resume(
                params.name, arguments, params.request_state, params.input_responses
            )
        asker = RoundAsker(ctx.session.client_capabilities)
        run = self.answer(params.name, arguments, asker, progress)
        return await self.held.start(params.name, arguments, asker, run)

    async def answer(
        self,
        name: str,
        arguments: Mapping[str, object],
        caller: Asker,
        progress: ServerRequestContext | None = None,
    ) -> types.CallToolResult:
        """The downstream call of tool *name*, through the host's call pipeline; *caller* is
        asked the call's questions; *progress*: the request context whose progress token
        hears the call's progress reports (``None``: none asked for)."""
        return call_result(await self.answer_data(name, arguments, caller, progress))

    async def answer_data(
        self,
        name: str,
        arguments: Mapping[str, object],
        caller: Asker,
        progress: ServerRequestContext | None = None,
    ) -> Mapping[str, object]:
        """What :meth:`answer` answers, as the host's result (data, not validated yet)."""
        entry = self.find(name)
        if entry is None:
            # Looked up again once the host caught up with what changed on disk (a pin
            # accepted, a decision, a policy edit: the listing may not have caught up yet).
            await self.host.catch_up()
            entry = self.find(name)
            if entry is None:
                return await self._not_offered(name, arguments)
        with self.elicitor.calling(entry.server, caller):
            if progress is None:  # the usual call: no forwarding task at all
                return await self.host.call_tool(entry.name, arguments)
            return await self._with_progress(progress, entry, arguments)

    async def _not_offered(
        self, name: str, arguments: Mapping[str, object]
    ) -> Mapping[str, object]:
        """Why *name* is not called: the host's refusal (its gate, policy, a pin, a decision),
        the words every door uses, when the profile keeps the tool; else an unknown tool."""
        known = self.host.registry.get(name)
        if known is not None and self.profile.keeps(known.server, known.name):
            return await self.host.call_tool(name, arguments)  # its gate answers
        if known is None:
            result = await self.host.call_tool(name, arguments)  # answered, never sent
            server = result.get("server")
            if isinstance(server, str) and self.profile.keeps(server, name):
                return result
        return unknown_tool(name, (e.name for e in self.entries()))

    def http_session(self, session_id: str) -> ServerSession | None:
        """The session of the Streamable HTTP connection *session_id* once its handshake is
        done (``None``: unknown, or not yet initialized); it hears list changes anew."""
        key = self._by_session_id.get(session_id)
        found = self._sessions.get(key) if key is not None else None
        if key is None or found is None or not found[0].initialize_accepted:
            return None
        self._sessions.move_to_end(key)
        return found[1]

    def latest_session(self) -> ServerSession | None:
        """The session of the connection heard from last (``None``: none yet)."""
        if not self._sessions:
            return None
        return next(reversed(self._sessions.values()))[1]

    async def _with_progress(
        self, ctx: ServerRequestContext, entry: ToolEntry, arguments: Mapping[str, object]
    ) -> Mapping[str, object]:
        """The call, its progress reports sent to the caller in order as they come."""
        reports: asyncio.Queue[tuple[float, float | None, str | None] | None] = asyncio.Queue()

        def on_progress(progress: float, total: float | None, message: str | None) -> None:
            reports.put_nowait((progress, total, message))

        async def forward() -> None:
            while (item := await reports.get()) is not None:
                try:
                    await ctx.session.report_progress(*item)
                except Exception:
                    log.debug("progress not delivered", exc_info=True)

        forwarder = asyncio.get_running_loop().create_task(forward())
        try:
            return await self.host.call_tool(entry.name, arguments, on_progress=on_progress)
        finally:
            reports.put_nowait(None)
            try:
                await asyncio.shield(forwarder)
            except asyncio.CancelledError:
                forwarder.cancel()
                raise

    # -- resources and prompts ---------------------------------------------------------
    def _utility(self, tool: str) -> list[ToolEntry]:
        return [e for e in self.entries() if e.utility and e.tool == tool]

    async def _list_resources(
        self, ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        self._remember(ctx)
        resources = []
        for entry in self._utility("list_resources"):
            listed = utility_data(entry.tool, await self.host.call_tool(entry.name, {})) or {}
            for item in listed.get("resources", ()):
                if not isinstance(item, dict) or not isinstance(item.get("uri"), str):
                    continue
                quoted = urllib.parse.quote(item["uri"], safe="")
                server = urllib.parse.quote(entry.server, safe="")
                resources.append(
                    {
                        **item,
                        "uri": f"{RESOURCE_SCHEME}://{server}/{quoted}",
                        "name": f"mcp_{sanitize_component(entry.server)}_{item.get('name', '')}",
                    }
                )
        return types.ListResourcesResult.model_validate({"resources": resources})

    async def _read_resource(
        self, ctx: ServerRequestContext, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        self._remember(ctx)
        parsed = urllib.parse.urlsplit(str(params.uri))
        server = urllib.parse.unquote(parsed.netloc)
        original = urllib.parse.unquote(parsed.path.removeprefix("/"))
        reader = [e for e in self._utility("read_resource") if e.server == server]
        if parsed.scheme != RESOURCE_SCHEME or not reader or not original:
            raise MCPError(INVALID_PARAMS, f"unknown resource {str(params.uri)!r}")
        result = await self._utility_answer(reader[0], {"uri": original})
        contents = result.get("contents")
        for item in contents if isinstance(contents, list) else ():
            if isinstance(item, dict):
                item["uri"] = str(params.uri)
        return types.ReadResourceResult.model_validate(result)

    async def _list_prompts(
        self, ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        self._remember(ctx)
        prompts = []
        names: dict[str, tuple[str, str]] = {}
        for entry in self._utility("list_prompts"):
            listed = utility_data(entry.tool, await self.host.call_tool(entry.name, {})) or {}
            for item in listed.get("prompts", ()):
                if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                    continue
                name = f"mcp_{sanitize_component(entry.server)}_{item['name']}"
                names[name] = (entry.server, item["name"])
                prompts.append({**item, "name": name})
        self._prompts = names
        return types.ListPromptsResult.model_validate({"prompts": prompts})

    async def _get_prompt(
        self, ctx: ServerRequestContext, params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        self._remember(ctx)
        if params.name not in self._prompts:
            await self._list_prompts(ctx, None)
        found = self._prompts.get(params.name)
        getter = [e for e in self._utility("get_prompt") if found and e.server == found[0]]
        if found is None or not getter:
            raise MCPError(INVALID_PARAMS, f"unknown prompt {params.name!r}")
        arguments: dict[str, object] = {"name": found[1]}
        if params.arguments:
            arguments["arguments"] = dict(params.arguments)
        result = await self._utility_answer(getter[0], arguments)
        return types.GetPromptResult.model_validate(result)

    async def _utility_answer(
        self, entry: ToolEntry, arguments: Mapping[str, object]
    ) -> dict[str, object]:
        """What utility *entry*'s MCP request answered; its failure as the request's error."""
        result = await self.host.call_tool(entry.name, arguments)
        data = utility_data(entry.tool, result)
        if data is None:
            raise MCPError(INVALID_PARAMS, render_text(result).text.removeprefix("error: "))
        return data


def _wants_progress(ctx: ServerRequestContext) -> bool:
    meta = ctx.meta
    if not meta:
        return False
    return meta.get("progress_token") is not None or meta.get("progressToken") is not None


def _tool(entry: ToolEntry) -> types.Tool:
    data: dict[str, object] = {
        "name": entry.name,
        "description": entry.description,
        "inputSchema": entry.input_schema,
    }
    if entry.title:
        data["title"] = entry.title
    if entry.annotations:
        data["annotations"] = entry.annotations
    if entry.output_schema:
        data["outputSchema"] = entry.output_schema
    return types.Tool.model_validate(sanitize_value(data))


def _error_result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def plain_result_json(result: Mapping[str, object]) -> str | None:
    """The JSON of the usual result, ASCII text content and nothing else: the same JSON
    :func:`call_result`'s model would dump, without validating it again (the host built
    it: :func:`~hermes_core.host.calls.render.plain_text_result`); ``None`` for any other
    shape, which takes the model's way."""
    if len(result) != 3 or result.get("resultType") != "complete":
        return None
    content, is_error = result.get("content"), result.get("isError")
    if type(content) is not list or type(is_error) is not bool:
        return None
    for item in content:
        if type(item) is not dict or len(item) != 2 or item.get("type") != "text":
            return None
        text = item.get("text")
        if type(text) is not str or not text.isascii():  # (non-ASCII: the model's checks)
            return None
    error = "true" if is_error else "false"
    text = compact_json(content)
    return f'{{"content":{text},"isError":{error},"resultType":"complete"}}'


def call_result(result: Mapping[str, object]) -> types.CallToolResult:
    """The host's result as a ``CallToolResult``; the host's own failures (``{"error": ...}``:
    not connected, breaker open, not approved) as an error result saying so."""
    if "error" in result and "content" not in result:  # the sentence every door shows
        return _error_result(render_text(result).text.removeprefix("error: "))
    data = {k: v for k, v in result.items() if k != "resultType"}
    try:
        return types.CallToolResult.model_validate(data)
    except ValidationError as exc:  # never a traceback downstream: say what was wrong
        log.warning("a result the host gave is not a CallToolResult: %s", exc)
        return _error_result(
            f"the result could not be forwarded: it is not a valid CallToolResult "
            f"({exc.error_count()} problem(s), the first: {exc.errors()[0]['msg']})"
        )
