"""The built-in transport names: stdio, Streamable HTTP and SSE.

They reserve the names and config shapes now; the MCP host supplies
``connect`` for each (on the official ``mcp`` SDK).
"""

from __future__ import annotations

from collections.abc import Iterable

from hermes_core.plugins.hookspecs import hookimpl
from hermes_core.plugins.types import TransportSpec

BUILTIN_TRANSPORTS = (
    TransportSpec(
        "stdio", "command", "a local server started as a subprocess (command, args, env)"
    ),
    TransportSpec("streamable_http", "url", "a remote server over Streamable HTTP (url, headers)"),
    TransportSpec("sse", "url", "a legacy remote server over HTTP+SSE (url with transport: sse)"),
)


@hookimpl
def transport() -> Iterable[TransportSpec]:
    return BUILTIN_TRANSPORTS
