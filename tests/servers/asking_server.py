"""An MCP server (``mcp`` SDK, stdio) whose tools ask the user through elicitation.

``book`` asks for a table (form mode, with defaults) and reports what came back;
``register`` asks for fields with titled choices, formats and bounds; ``visit`` asks the user
to open a page (URL mode); ``roots`` asks for the client's roots (``roots/list``) and reports
whether the capability was advertised and what came back, as JSON; ``flood`` asks *count*
questions of *size* characters at once (a hostile server filling the host's store) and
reports how many came back with each action.
"""

from __future__ import annotations

import gc

gc.disable()  # importing the SDK builds many objects: no collection until it is done

import asyncio
import json
import warnings
from collections import Counter

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

gc.freeze()  # what the imports made stays: collections skip it from here on
gc.enable()

server = MCPServer("asking")


class Table(BaseModel):
    name: str = Field(description="Who the table is for")
    guests: int = Field(default=2, description="How many people")
    terrace: bool = Field(default=False, description="Sit outside")
    mood: str = Field(default="quiet", json_schema_extra={"enum": ["quiet", "lively"]})


@server.tool()
async def book(ctx: Context) -> str:
    """Book a table, asking the user for the details."""
    answer = await ctx.elicit("Which table should I book?", schema=Table)
    if answer.action != "accept":
        return f"not booked ({answer.action})"
    return "booked " + answer.data.model_dump_json()


class Registration(BaseModel):
    email: str = Field(json_schema_extra={"format": "email"})
    seats: int = Field(ge=1, le=8)
    code: str = Field(min_length=3, max_length=5)
    day: str = Field(json_schema_extra={"format": "date"})
    size: str = Field(
        json_schema_extra={
            "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]
        }
    )
    colour: str = Field(json_schema_extra={"enum": ["r", "g"], "enumNames": ["Red", "Green"]})


@server.tool()
async def register(ctx: Context) -> str:
    """Register, asking for checked fields."""
    answer = await ctx.elicit("Who is coming?", schema=Registration)
    if answer.action != "accept":
        return f"not registered ({answer.action})"
    return "registered " + answer.data.model_dump_json()


@server.tool()
async def visit(ctx: Context) -> str:
    """Ask the user to open a page."""
    answer = await ctx.elicit_url("Please sign in", "https://example.invalid/login", "visit-1")
    return f"visit: {answer.action}"


@server.tool()
async def roots(ctx: Context) -> str:
    """Ask the client for its roots (the handshake era's ``roots/list``)."""
    session = ctx.request_context.session
    caps = session.client_capabilities
    advertised = caps is not None and caps.roots is not None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # deprecated as of 2026-07-28; this server is older
            result = await session.list_roots()
    except Exception as exc:  # the client's refusal is what is reported
        return json.dumps({"advertised": advertised, "refused": str(exc)})
    listed = [{"uri": str(root.uri), "name": root.name} for root in result.roots]
    return json.dumps({"advertised": advertised, "roots": listed})


class Anything(BaseModel):
    note: str = Field(default="", description="Anything")


@server.tool()
async def flood(ctx: Context, count: int = 100, size: int = 200_000) -> str:
    """Ask *count* questions of *size* characters, all at once."""

    async def one(n: int) -> str:
        answer = await ctx.elicit(f"question {n}: " + "x" * size, schema=Anything)
        return answer.action

    actions = await asyncio.gather(*(one(n) for n in range(count)))
    return json.dumps(dict(Counter(actions)))


if __name__ == "__main__":
    server.run("stdio")
