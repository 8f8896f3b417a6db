"""An MCP server (low-level ``mcp`` SDK, stdio) answering results of a chosen size (benchmarks).

``python benchmarks/results_server.py``.  Tools:

* ``text(size)``: one text content item of *size* characters of ASCII prose (lines of 64
  characters, so the text has newlines like real output).  The text is built once per size and
  kept, so repeated calls cost the server only serialisation.
* ``echo(message)``: the message back (a small result, for concurrent calls).
"""

from __future__ import annotations

import functools

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

LINE = "The quick brown fox jumps over the lazy dog; 0123456789 ABCDEFG.\n"

TOOLS = [
    types.Tool(
        name="text",
        description="A text result of `size` characters.",
        input_schema={
            "type": "object",
            "properties": {"size": {"type": "integer", "minimum": 0}},
            "required": ["size"],
        },
    ),
    types.Tool(
        name="echo",
        description="Echo the message.",
        input_schema={
            "type": "object",
            "properties": {"message": {"type": "string"}},
            "required": ["message"],
        },
    ),
]


@functools.cache
def text_of(size: int) -> str:
    return (LINE * (size // len(LINE) + 1))[:size]


async def list_tools(ctx: object, params: object) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
    args = params.arguments or {}
    body = text_of(int(args["size"])) if params.name == "text" else str(args.get("message", ""))
    return types.CallToolResult(content=[types.TextContent(type="text", text=body)])


server = Server("results", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
