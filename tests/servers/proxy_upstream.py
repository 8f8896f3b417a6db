"""An MCP server (``mcp`` SDK, stdio) behind ``hermes mcp proxy`` in the tests.

``hang`` reports progress once and logs "hang started", then waits until it is cancelled;
``cancelled`` waits (up to 60 s) until a ``hang`` was cancelled and says how many were;
``note`` (not read-only) writes nothing but says it ran; ``peek`` is read-only; ``ask``
(read-only) asks the user (elicitation); ``chatter`` logs one message; ``shout`` returns text
with a TAG character and an escape sequence.
"""

from __future__ import annotations

import gc

gc.disable()  # importing the SDK builds many objects: no collection until it is done

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel

gc.freeze()  # what the imports made stays: collections skip it from here on
gc.enable()

server = MCPServer("upstream")
_cancelled = anyio.Event()
_count = 0


@server.tool()
async def hang(ctx: Context) -> str:
    """Wait until cancelled."""
    global _count
    await ctx.report_progress(1, 2, "waiting")
    await ctx.info("hang started")  # seen by a client that asked for no progress
    try:
        await anyio.sleep_forever()
    except anyio.get_cancelled_exc_class():
        _count += 1
        _cancelled.set()
        raise
    return "never"


@server.tool()
async def cancelled() -> str:
    """How many hang calls were cancelled (waits for the first, up to 60 s)."""
    with anyio.move_on_after(60):
        await _cancelled.wait()
    return f"cancelled {_count}"


@server.tool()
def note(text: str) -> str:
    """Pretend to write a note."""
    return f"noted {text}"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def peek() -> str:
    """Read-only."""
    return "peeked"


class Colour(BaseModel):
    colour: str


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
async def ask(ctx: Context) -> str:
    """Ask the user for a colour (read-only: it changes nothing)."""
    answer = await ctx.elicit("Which colour?", schema=Colour)
    if answer.action != "accept":
        return f"no colour ({answer.action})"
    return f"colour {answer.data.colour}"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
async def chatter(ctx: Context) -> str:
    """Log one message, then answer."""
    await ctx.info("chatter\x1b[2J says hi")
    return "chattered"


@server.tool()
def shout() -> str:
    """Text a terminal must not see raw."""
    return "loud\U000e0041\x1b[31m red"


if __name__ == "__main__":
    server.run()
