"""The built-in transports to an MCP server on the official ``mcp`` SDK, and their openers.

Each opener takes a server's resolved config and yields the SDK's
``(read, write)`` streams: stdio for ``command``, Streamable HTTP for ``url``
(SSE when ``transport: sse``).  They are the ``connect`` of the built-in
``transport`` registrations (:data:`BUILTIN_TRANSPORTS`), so a plugin's transport plugs in the
same way.  This module is light (the CLI reads the registrations at start-up); each opener
imports its module (:mod:`~hermes_core.host.transports.stdio_connect`,
:mod:`~hermes_core.host.transports.http_connect`) and the SDK only when a server is contacted.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import IO, TYPE_CHECKING

from hermes_core.host.transports.child_env import SAFE_ENV_NAMES, child_environment
from hermes_core.host.transports.spawned import capture_spawned
from hermes_core.plugins.types import Connect, ServerSpec, TransportSpec, TransportStreams

if TYPE_CHECKING:
    from anyio.abc import ByteStream

__all__ = [
    "BUILTIN_TRANSPORTS",
    "SAFE_ENV_NAMES",
    "Opener",
    "ServerSpec",
    "capture_spawned",
    "child_environment",
    "open_byte_stream",
    "open_sse",
    "open_stdio",
    "open_streamable_http",
]

Opener = Connect
"""A transport's ``connect`` (see :class:`hermes_core.plugins.types.Connect`)."""

# The registrations are read at the CLI's start-up (the built-in plugin), the connects only
# when a server is contacted: each one imports its module then (``http_connect`` brings in
# httpx2 and the body filters, ``stdio_connect`` the stdio reader).


def open_stdio(spec: ServerSpec, errlog: IO[str]) -> AbstractAsyncContextManager[TransportStreams]:
    """A subprocess speaking MCP on stdin/stdout (the ``stdio`` transport's ``connect``).

    Our own reader (:mod:`hermes_core.host.transports.stdio`): linear, bounded by the server's
    ``max_message_bytes``, and the server's whole process group ends with the connection.
    """
    from hermes_core.host.transports.stdio_connect import open_stdio as connect

    return connect(spec, errlog)


def open_streamable_http(
    spec: ServerSpec, errlog: IO[str]
) -> AbstractAsyncContextManager[TransportStreams]:
    """Streamable HTTP (the ``streamable_http`` transport's ``connect``)."""
    from hermes_core.host.transports.http_connect import open_streamable_http as connect

    return connect(spec, errlog)


def open_sse(spec: ServerSpec, errlog: IO[str]) -> AbstractAsyncContextManager[TransportStreams]:
    """Legacy HTTP+SSE (the ``sse`` transport's ``connect``), on the same HTTP client as
    Streamable HTTP: headers, auth, ``client_cert`` (mTLS), ``connect_timeout``/``timeout``,
    no cross-origin redirects, and HTTP errors noted in *errlog*."""
    from hermes_core.host.transports.http_connect import open_sse as connect

    return connect(spec, errlog)


def open_byte_stream(
    stream: ByteStream,
    spec: ServerSpec,
    errlog: IO[str],
    *,
    max_message_bytes: int | None = None,
) -> AbstractAsyncContextManager[TransportStreams]:
    """MCP over any connected anyio byte stream (a Unix or TCP socket, a pipe): the toolkit of
    a plugin's transport (:func:`hermes_core.host.transports.byte_streams.open_byte_stream`).

    Newline-delimited JSON-RPC, each line bounded by the server's ``max_message_bytes``; yields
    the SDK's ``(read, write)`` streams and closes *stream* on exit.
    """
    from hermes_core.host.transports.byte_streams import open_byte_stream as connect

    return connect(stream, spec, errlog, max_message_bytes=max_message_bytes)


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
"""The built-in transports: what the built-in plugin's ``transport`` hook registers, and what
an :class:`~hermes_core.host.host.MCPHost` built without ``transports=`` connects with (taken
from here, so an embedding host builds no plugin manager just to find them)."""
