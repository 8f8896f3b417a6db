"""The built-in transports: stdio, Streamable HTTP and SSE, on the official ``mcp`` SDK.

Each ``connect`` lives in :mod:`hermes_core.host.transports` and imports ``mcp``
only when called.
"""

from __future__ import annotations

from collections.abc import Iterable

from hermes_core.host.transports import open_sse, open_stdio, open_streamable_http
from hermes_core.plugins.hookspecs import hookimpl
from hermes_core.plugins.types import TransportSpec

BUILTIN_TRANSPORTS = (
    TransportSpec(
        "stdio",
        "command",
        "a local server started as a subprocess (command, args, env)",
        connect=open_stdio,
    ),
    TransportSpec(
        "streamable_http",
        "url",
        "a remote server over Streamable HTTP (url, headers)",
        connect=open_streamable_http,
    ),
    TransportSpec(
        "sse",
        "url",
        "a legacy remote server over HTTP+SSE (url with transport: sse)",
        connect=open_sse,
    ),
)


@hookimpl
def transport() -> Iterable[TransportSpec]:
    return BUILTIN_TRANSPORTS
