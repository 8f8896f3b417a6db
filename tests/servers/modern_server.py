"""An MCP server (``mcp`` SDK) that speaks ONLY the 2026-07-28 revision.

Usage: ``python modern_server.py`` (stdio) or ``python modern_server.py PORT`` (Streamable HTTP).
The SDK's servers serve both eras (the client's first request decides); this one serves only
the per-request envelope, as a 2026-only server in the wild does: ``initialize`` is refused
with UNSUPPORTED_PROTOCOL_VERSION naming 2026-07-28, ``server/discover`` answers.
Tools: ``echo`` (returns its ``text``), ``grow`` (adds a tool and a prompt, so the listings
change).
"""

from __future__ import annotations

import gc

gc.disable()  # importing the SDK builds many objects: no collection until it is done

import json
import sys
from typing import Any

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.runner import _serve_modern_stream  # the SDK's modern-only stream loop
from mcp.server.stdio import stdio_server

gc.freeze()  # what the imports made stays: collections skip it from here on
gc.enable()

server = MCPServer("modern-only")


@server.tool()
def echo(text: str) -> str:
    """Say *text* back."""
    return text


@server.tool()
async def grow(ctx: Context) -> str:
    """Add a tool named ``grown`` (and a prompt), and say so on ``subscriptions/listen``."""

    def grown() -> str:
        """A tool added at run time."""
        return "grown"

    server.add_tool(grown)

    @server.prompt()
    def grown_prompt() -> str:
        """A prompt added at run time."""
        return "grown"

    await ctx.notify_tools_changed()
    await ctx.notify_prompts_changed()
    return "added"


async def main() -> None:
    lowlevel: Any = server._lowlevel_server
    async with stdio_server() as (read, write), lowlevel.lifespan(lowlevel) as state:
        await _serve_modern_stream(
            lowlevel, read, write, lifespan_state=state, raise_exceptions=False
        )


def refuse_initialize(app: Any) -> Any:
    """*app* (dual-era) behind a guard answering every ``initialize`` POST as a 2026-only
    server does."""

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await app(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        try:
            request = json.loads(body)
        except ValueError:
            request = None
        if isinstance(request, dict) and request.get("method") == "initialize":
            error = {
                "jsonrpc": "2.0",
                "id": request.get("id"),
                "error": {
                    "code": -32022,
                    "message": "this server speaks only 2026-07-28",
                    "data": {"supported": ["2026-07-28"], "requested": "2025-11-25"},
                },
            }
            payload = json.dumps(error).encode()
            headers = [(b"content-type", b"application/json")]
            await send({"type": "http.response.start", "status": 400, "headers": headers})
            await send({"type": "http.response.body", "body": payload})
            return
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await app(scope, replay, send)

    return guarded


if __name__ == "__main__":
    if len(sys.argv) > 1:
        app = refuse_initialize(server.streamable_http_app())
        uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
    else:
        anyio.run(main)
