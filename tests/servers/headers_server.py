"""An MCP server (mcp SDK, Streamable HTTP) that shows the request headers it received.

Usage: ``python headers_server.py PORT``.  The ``headers_seen`` tool answers the headers
of the request it arrived with.  With ``REQUIRE_AUTHORIZATION`` set, any request whose
``Authorization`` header is not exactly that value is answered 401 before the MCP layer.

With ``MODERN_ONLY`` set, the server speaks only 2026-07-28 (``initialize`` is refused, as
``modern_server.py`` does) and has two more tools whose parameters are designated as HTTP
headers (``x-mcp-header``, SEP-2243): ``region_seen`` (valid: ``region`` → ``Mcp-Param-Region``,
answers the headers it arrived with) and ``bad_designation`` (invalid: a header name with a
space, so a client must not offer or call it).
"""

from __future__ import annotations

import gc

gc.disable()  # importing the SDK builds many objects: no collection until it is done

import os
import sys
from typing import Annotated, Any

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

gc.freeze()  # what the imports made stays: collections skip it from here on
gc.enable()

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


def add_designated_tools() -> None:
    """``region_seen`` (a valid x-mcp-header) and ``bad_designation`` (an invalid one)."""

    @server.tool()
    def region_seen(
        ctx: Context,  # type: ignore[type-arg]
        region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})],
        note: str = "",
    ) -> str:
        """The request headers this call arrived with; ``region`` travels as a header too."""
        return headers_seen(ctx)

    @server.tool()
    def bad_designation(
        value: Annotated[str, Field(json_schema_extra={"x-mcp-header": "MyRegion"})],
    ) -> str:
        """Never to be called: its header designation is not a valid header name."""
        return "called"

    # The SDK refuses to register an invalid designation; a server in the wild lists one anyway.
    listed = server._tool_manager.get_tool("bad_designation")
    assert listed is not None
    listed.parameters["properties"]["value"]["x-mcp-header"] = "My Region"


def main() -> None:
    if os.environ.get("MODERN_ONLY"):
        from modern_server import refuse_initialize  # (this folder is on sys.path)

        add_designated_tools()
        app = refuse_initialize(server.streamable_http_app())
    else:
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
