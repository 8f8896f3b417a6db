"""In-process MCP servers for host tests: the ``mcp`` SDK's in-memory streams as a transport.

``MCPHost(servers, transports={MEMORY: transport})`` reaches each ``HostServer(name,
transport=MEMORY)`` through :class:`MemoryTransport`, which runs the server registered under
that name (a low-level SDK ``Server``) in this process: the host's real client, handshake,
listing, gating, breaker and rendering run, and no subprocess or socket is opened.

:class:`ToyServer` is a scripted server for such tests: its tools are plain Python callables,
it records every request that reached it, and it can announce ``tools/list_changed``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.shared.memory import create_client_server_memory_streams

from hermes_core.host.host import HostServer
from hermes_core.plugins.types import ServerSpec, TransportStreams

MEMORY = "memory"
"""The transport name the in-memory servers are registered under."""

OBJECT: dict[str, Any] = {"type": "object", "properties": {}}

Handler = Callable[..., Awaitable[Any] | Any]
"""A toy tool: called with the call's arguments (and, for a tool added with ``context=True``,
the SDK's request context: ``ctx.session`` asks the client, reports progress); returns a
``str`` (one text block), a list of SDK content blocks, or a whole ``CallToolResult``."""


class MemoryTransport:
    """A transport ``connect`` (see ``hermes_core.plugins.types.Connect``) that serves each
    server name from an in-process SDK server; unknown names, and names in :attr:`refuse`,
    fail like an unreachable peer (``OSError``)."""

    def __init__(self, servers: Mapping[str, ToyServer | Server[Any]] | None = None) -> None:
        self.servers: dict[str, ToyServer | Server[Any]] = dict(servers or {})
        self.connects: dict[str, int] = {}
        """How many connections each server name was asked for."""
        self.open: set[str] = set()
        """The server names with a connection open right now."""
        self.refuse: set[str] = set()

    def __call__(
        self, spec: ServerSpec, errlog: IO[str], /
    ) -> contextlib.AbstractAsyncContextManager[TransportStreams]:
        return self._connect(spec.name, errlog)

    @contextlib.asynccontextmanager
    async def _connect(self, name: str, errlog: IO[str]) -> AsyncIterator[TransportStreams]:
        self.connects[name] = self.connects.get(name, 0) + 1
        served = self.servers.get(name)
        if served is None or name in self.refuse:
            errlog.write(f"memory transport: {name} refused\n")
            raise ConnectionRefusedError(f"no in-memory server answers for {name!r}")
        server, options = _sdk_server(served)
        async with (
            create_client_server_memory_streams() as (client, (server_read, server_write)),
            anyio.create_task_group() as group,
        ):
            group.start_soon(server.run, server_read, server_write, options)
            self.open.add(name)
            try:
                yield client
            finally:
                self.open.discard(name)
                group.cancel_scope.cancel()


def _sdk_server(served: ToyServer | Server[Any]) -> tuple[Server[Any], Any]:
    if isinstance(served, ToyServer):
        return served.sdk, served.sdk.create_initialization_options(
            NotificationOptions(tools_changed=served.announces)
        )
    return served, served.create_initialization_options()


def memory_server(name: str, **settings: Any) -> HostServer:
    """A host entry for the in-memory server *name* (*settings*: any ``HostServer`` field)."""
    return HostServer(name, transport=MEMORY, **settings)


@dataclass
class ToyTool:
    """One tool of a :class:`ToyServer`."""

    handler: Handler
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=lambda: dict(OBJECT))
    read_only: bool | None = None
    """``readOnlyHint`` (None: no annotations, i.e. write-capable for the host)."""
    title: str | None = None
    context: bool = False
    """Whether the handler also takes the request context."""


class ToyServer:
    """A scripted MCP server (the low-level SDK ``Server``) run in this process."""

    def __init__(self, name: str = "toy", *, announces: bool = False) -> None:
        self.name = name
        self.announces = announces
        """Whether it advertises ``tools.listChanged``."""
        self.tools: dict[str, ToyTool] = {}
        self.calls: list[tuple[str, dict[str, Any]]] = []
        """Each ``tools/call`` that reached it: (tool, arguments)."""
        self.listings = 0
        """How many ``tools/list`` requests it answered."""
        self.list_error: str | None = None
        """When set, ``tools/list`` answers with this error."""
        self._sessions: list[Any] = []
        self.sdk: Server[Any] = Server(
            name, on_list_tools=self._on_list_tools, on_call_tool=self._on_call_tool
        )

    def tool(
        self,
        name: str,
        handler: Handler | str | None = None,
        *,
        description: str | None = None,
        input_schema: dict[str, Any] | None = None,
        read_only: bool | None = None,
        title: str | None = None,
        context: bool = False,
    ) -> ToyServer:
        """Offer *name*; *handler* a callable, a fixed text, or None (answers ``"<name>: ok"``)."""
        text = f"{name}: ok" if handler is None else handler
        self.tools[name] = ToyTool(
            handler=text if callable(text) else _fixed(text),
            description=f"The {name} tool." if description is None else description,
            input_schema=dict(OBJECT) if input_schema is None else input_schema,
            read_only=read_only,
            title=title,
            context=context,
        )
        return self

    def called(self, tool: str) -> int:
        """How many calls of *tool* reached the server."""
        return sum(1 for name, _ in self.calls if name == tool)

    async def announce(self) -> None:
        """Send ``notifications/tools/list_changed`` on every open connection."""
        for session in list(self._sessions):
            await session.send_tool_list_changed()

    async def _on_list_tools(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        self.listings += 1
        if ctx.session not in self._sessions:
            self._sessions.append(ctx.session)
        if self.list_error is not None:
            from mcp.shared.exceptions import MCPError

            raise MCPError(-32603, self.list_error)
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=name,
                    title=tool.title,
                    description=tool.description,
                    input_schema=tool.input_schema,
                    annotations=(
                        None
                        if tool.read_only is None
                        else types.ToolAnnotations(read_only_hint=tool.read_only)
                    ),
                )
                for name, tool in self.tools.items()
            ]
        )

    async def _on_call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        self.calls.append((params.name, arguments))
        tool = self.tools.get(params.name)
        if tool is None:
            return error_result(f"unknown tool {params.name}")
        outcome = tool.handler(arguments, ctx) if tool.context else tool.handler(arguments)
        if isinstance(outcome, Awaitable):
            outcome = await outcome
        if isinstance(outcome, types.CallToolResult):
            return outcome
        if isinstance(outcome, str):
            return types.CallToolResult(content=[types.TextContent(type="text", text=outcome)])
        return types.CallToolResult(content=list(outcome))


def _fixed(text: str) -> Handler:
    def answer(_args: dict[str, Any]) -> str:
        return text

    return answer


def error_result(text: str) -> types.CallToolResult:
    """A tool's error result (``isError: true``) with one text block."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
