"""An MCP server (low-level ``mcp`` SDK, stdio) offering thousands of tools, for the benchmarks.

``python benchmarks/many_tools_server.py [COUNT]`` (default 3300).  Tool names come in families
(``repo_*``, ``issue_*``, ``admin_*``, ``debug_*``, …) so that exclude globs have something to do,
and some carry dots and dashes so that name sanitising has something to do.  Every tool has a
description and a small but realistic input schema.  The list is built once at start-up, so
repeated ``tools/list`` requests cost the server only serialisation.
"""

from __future__ import annotations

import sys

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

FAMILIES = ("repo", "issue", "pull.request", "ci-job", "admin", "debug", "docs", "search")
VERBS = ("get", "list", "create", "update", "delete", "archive")


def build_tools(count: int) -> list[types.Tool]:
    tools = []
    for i in range(count):
        family = FAMILIES[i % len(FAMILIES)]
        verb = VERBS[(i // len(FAMILIES)) % len(VERBS)]
        name = f"{family}_{verb}_{i:04d}"
        schema = {
            "type": "object",
            "properties": {
                "id": {"type": "string", "description": f"The {family} identifier."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
                "fields": {"type": "array", "items": {"type": "string"}},
                "options": {
                    "type": "object",
                    "properties": {"dry_run": {"type": "boolean"}, "note": {"type": "string"}},
                },
            },
            "required": ["id"],
        }
        description = (
            f"{verb.capitalize()} a {family} record (#{i}). Returns JSON with the record's "
            "fields; use `fields` to choose which, and `limit` to bound list results."
        )
        tools.append(types.Tool(name=name, description=description, input_schema=schema))
    return tools


TOOLS = build_tools(int(sys.argv[1]) if len(sys.argv) > 1 else 3300)


async def list_tools(ctx: object, params: object) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=params.name)])


server = Server("many-tools", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
