"""``hermes mcp serve``: the session store as an MCP server (stdio, or Streamable HTTP).

In stdio mode stdout carries the protocol and nothing else; every log line goes to stderr
(``--verbose``: debug level).  The event watcher starts before the transport and stops after.
"""

from __future__ import annotations

import errno
import logging
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from hermes_core import __version__
from hermes_core._sdk_compat import request_handlers
from hermes_core.pgstate import Database
from hermes_core.serve.events import EventQueue, StoreWatcher
from hermes_core.serve.http_auth import BearerGate
from hermes_core.serve.http_guard import guarded_protocol, is_loopback, transport_security
from hermes_core.serve.messaging import Messaging
from hermes_core.serve.tools import Bridge, register_tools
from hermes_core.sessions.shared import session_store

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["INSTRUCTIONS", "build_server", "is_loopback", "run_http", "run_stdio"]

log = logging.getLogger(__name__)
INSTRUCTIONS = (
    "Hermes bridges the conversations it keeps (state.db) to MCP clients. "
    "conversations_list / conversation_get / messages_read / attachments_fetch read them; "
    "events_poll and events_wait follow new messages and approval requests (cursors start "
    "when this server starts); messages_send and channels_list send through the messaging "
    "adapters configured in config.yaml; permissions_list_open and permissions_respond answer "
    "the questions Hermes is waiting on."
)


def build_server(bridge: Bridge, *, verbose: bool = False) -> MCPServer:
    """The ``MCPServer`` named ``hermes`` with the ten tools."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(
        "hermes",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="DEBUG" if verbose else "WARNING",
    )
    register_tools(server, bridge)
    _tools_only(server)
    return server


_NOT_SERVED = (
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "prompts/list",
    "prompts/get",
)


def _tools_only(server: MCPServer) -> None:
    """Advertise tools only: ``MCPServer`` always installs resource and prompt handlers, so
    clients would see (and hosts list) empty resource and prompt capabilities.  The SDK derives
    capabilities from its handler table; removing these entries is the only way it offers."""
    handlers = request_handlers(server)
    if handlers is not None:
        for method in _NOT_SERVED:
            handlers.pop(method, None)


def listen_problem(host: str, port: int) -> str | None:
    """Why ``--http`` cannot listen on *host*:*port* (in use, not an address of this host,
    a name that does not resolve), as one sentence; ``None`` when it can.  Checked by
    binding a socket as the server will, before it starts: the server's own failure is an
    exception group of sixty lines."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return f"cannot listen on {host}:{port}: the host name did not resolve ({exc.strerror})"
    family, kind, proto, _, address = found[0]
    try:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # (as uvicorn does)
            probe.bind(address)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            why = "the port is in use (another program listens there; pick another --port)"
        elif exc.errno == errno.EADDRNOTAVAIL:
            why = "that address is not one of this host's (see --host)"
        elif exc.errno == errno.EACCES:
            why = "permission denied (ports below 1024 need privileges)"
        else:
            why = exc.strerror or type(exc).__name__
        return f"cannot listen on {host}:{port}: {why}"
    return None


async def _with_watcher(bridge: Bridge, body: Callable[[], Awaitable[None]]) -> None:
    watcher = StoreWatcher(bridge.store, bridge.queue)
    async with anyio.create_task_group() as group:
        group.start_soon(watcher.run)
        try:
            await body()
        finally:
            group.cancel_scope.cancel()


def run_stdio(bridge: Bridge, *, verbose: bool = False) -> None:
    server = build_server(bridge, verbose=verbose)
    log.info("serving %s over stdio", bridge.store.path)
    anyio.run(_with_watcher, bridge, server.run_stdio_async)


def run_http(bridge: Bridge, *, host: str, port: int, token: str, verbose: bool = False) -> None:
    import uvicorn

    server = build_server(bridge, verbose=verbose)
    # Host/Origin checked on every loopback address; half-sent heads time out (http_guard)
    app = server.streamable_http_app(host=host, transport_security=transport_security(host))
    config = uvicorn.Config(
        BearerGate(app, token),
        host=host,
        port=port,
        log_level="debug" if verbose else "warning",
        access_log=verbose,
        lifespan="on",
        http=guarded_protocol(),
    )
    runner = uvicorn.Server(config)
    anyio.run(_with_watcher, bridge, runner.serve)


def open_bridge(home: Path, messaging: Messaging, state: Database | None = None) -> Bridge:
    """The store at ``home/state.db`` (created or migrated) with a fresh event queue; its
    approvals in the state database *state* when given (``state:`` in ``config.yaml``)."""
    return Bridge(session_store(state, home / "state.db"), EventQueue(), messaging)


def configure_logging(verbose: bool, command: str = "serve") -> None:
    """Log lines to stderr: warnings, and with *verbose* our own debug lines and every
    library's info lines.  Below info, libraries log message bodies (the SDK each message,
    ``sse_starlette`` each event it sends): a people's messages server logs no message text
    at any level, so their debug records are dropped, whichever library or logger.  *command*
    names the line's source (``serve``, ``proxy``, ``up``)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        logging.Formatter(f"hermes mcp {command}: %(levelname)s %(name)s: %(message)s")
    )
    handler.addFilter(_no_library_debug)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if verbose else logging.WARNING)
    if verbose:
        # The SDK logs every message body at debug; keep ours and its info lines.
        for name in _CHATTY:
            logging.getLogger(name).setLevel(logging.INFO)


_CHATTY = ("mcp", "sse_starlette", "starlette", "httpx2", "httpcore", "anyio")
"""Libraries whose debug records are not even made (the filter drops any others')."""


def _no_library_debug(record: logging.LogRecord) -> bool:
    """Whether *record* may be written: any at info or above, and our own below it."""
    return record.levelno >= logging.INFO or record.name.split(".", 1)[0] == "hermes_core"
