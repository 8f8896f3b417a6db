"""An MCP server (mcp SDK, Streamable HTTP) that shows the request headers it received.

Usage: ``python headers_server.py PORT``.  The ``headers_seen`` tool answers the headers
of the request it arrived with.  With ``REQUIRE_AUTHORIZATION`` set, any request whose
``Authorization`` header is not exactly that value is answered 401 before the MCP layer.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import uvicorn
from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("headers")


@server.tool()
def headers_seen(ctx: Context) -> str:  # type: ignore[type-arg]
    """The request headers this call arrived with (lower-cased names)."""
    request = ctx.request_context.request
    headers = getattr(request, "headers", {}) or {}
    return "\n".join(f"{k.lower()}: {v}" for k, v in sorted(dict(headers).items()))


def require(app: Any, expected: str) -> Any:
    """*app* behind a check of the Authorization header (401 when it is not *expected*)."""

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            got = dict(scope.get("headers") or []).get(b"authorization", b"").decode("latin-1")
            if got != expected:
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"www-authenticate", b'Bearer realm="hermes-test"')],
                    }
                )
                await send({"type": "http.response.body", "body": b""})
                return
        await app(scope, receive, send)

    return guarded


def main() -> None:
    app = server.streamable_http_app()
    expected = os.environ.get("REQUIRE_AUTHORIZATION")
    uvicorn.run(
        require(app, expected) if expected else app,
        host="127.0.0.1",
        port=int(sys.argv[1]),
        log_level="warning",
    )


if __name__ == "__main__":
    main()
