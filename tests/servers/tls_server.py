"""An MCP server (mcp SDK, Streamable HTTP) behind TLS that requires a client certificate.

Usage: ``python tls_server.py PORT SERVER_CERT SERVER_KEY CA_CERT [sse]``; it also echoes the
request headers it saw through the ``headers_seen`` tool.  With ``sse`` it serves the legacy
HTTP+SSE transport (``/sse``) instead of Streamable HTTP (``/mcp``).
"""

from __future__ import annotations

import gc

gc.disable()  # importing the SDK builds many objects: no collection until it is done

import ssl
import sys

import uvicorn
from mcp.server.mcpserver import Context, MCPServer

gc.freeze()  # what the imports made stays: collections skip it from here on
gc.enable()

server = MCPServer("tls")


@server.tool()
def hello(name: str) -> str:
    """Say hello."""
    return f"hello {name} over mutual TLS"


@server.tool()
def headers_seen(ctx: Context) -> str:  # type: ignore[type-arg]
    """The request headers this call arrived with (lower-cased names)."""
    request = ctx.request_context.request
    headers = getattr(request, "headers", {}) or {}
    return "\n".join(f"{k.lower()}: {v}" for k, v in sorted(dict(headers).items()))


def main() -> None:
    port, cert, key, ca = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    app = server.sse_app() if sys.argv[5:] == ["sse"] else server.streamable_http_app()
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        ssl_certfile=cert,
        ssl_keyfile=key,
        ssl_ca_certs=ca,
        ssl_cert_reqs=ssl.CERT_REQUIRED,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
