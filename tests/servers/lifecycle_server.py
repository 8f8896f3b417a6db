"""An MCP server (low-level ``mcp`` SDK, stdio) for keepalive, breaker, trust and lazy tests.

Environment:
    PING_MODE   ``ok`` (default), ``unsupported`` (ping answers -32601 "method not found"),
                ``silent`` (ping is never answered).
    EVENT_LOG   a file; the server appends one line per event: ``start``, ``ping``, ``list``,
                ``call <tool>`` (so a test sees what reached the server, and when).
    FAIL_TIMES  how many calls of ``flaky`` answer with an error result before it recovers.
    TOOL_NAMES  comma-separated extra plain tools to offer (``peek`` …).

Tools: ``look`` (``readOnlyHint: true``), ``write`` (no annotations: write-capable),
``flaky`` (an error result FAIL_TIMES times, then ``ok``), ``stall`` (never answers).
"""

from __future__ import annotations

import gc

gc.disable()  # importing the SDK builds many objects: no collection until it is done

import os
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

gc.freeze()  # what the imports made stays: collections skip it from here on
gc.enable()

OBJECT: dict[str, Any] = {"type": "object", "properties": {}}
MODE = os.environ.get("PING_MODE", "ok")
LOG = os.environ.get("EVENT_LOG")
state = {"flaky": 0}


def log(event: str) -> None:
    if LOG:
        with open(LOG, "a", encoding="utf-8") as out:
            out.write(event + "\n")


def tool_list() -> list[types.Tool]:
    tools = [
        types.Tool(
            name="look",
            description="Read something.",
            input_schema=OBJECT,
            annotations=types.ToolAnnotations(read_only_hint=True),
        ),
        types.Tool(name="write", description="Change something.", input_schema=OBJECT),
        types.Tool(name="flaky", description="Fails, then works.", input_schema=OBJECT),
        types.Tool(name="stall", description="Never answers.", input_schema=OBJECT),
    ]
    extra = [n for n in os.environ.get("TOOL_NAMES", "").split(",") if n]
    tools += [types.Tool(name=n, description=f"Extra {n}.", input_schema=OBJECT) for n in extra]
    return tools


async def on_ping(ctx: Any, params: types.RequestParams | None) -> types.EmptyResult:
    log("ping")
    if MODE == "unsupported":
        raise MCPError(-32601, "Method not found: ping")
    if MODE == "silent":
        await anyio.sleep_forever()
    return types.EmptyResult()


async def on_list_tools(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    log("list")
    return types.ListToolsResult(tools=tool_list())


async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    log(f"call {params.name}")
    if params.name == "stall":
        await anyio.sleep_forever()
    if params.name == "flaky":
        state["flaky"] += 1
        if state["flaky"] <= int(os.environ.get("FAIL_TIMES", "0")):
            text = f"failure {state['flaky']}"
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=text)], is_error=True
            )
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"{params.name}: ok")])


server = Server(
    "lifecycle",
    on_ping=on_ping,
    on_list_tools=on_list_tools,
    on_call_tool=on_call_tool,
)


async def main() -> None:
    log(f"start {os.getpid()}")
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
