"""An MCP server (``mcp`` SDK, stdio) whose ``meet`` tool shows whether calls overlap.

``meet(who, expect=2, wait=30)`` waits until *expect* calls of ``meet`` are in progress at
once, then answers ``WHO met N`` (N: the most calls seen in progress together); when *wait*
seconds pass first, it answers ``WHO alone``.  Two calls sent side by side meet at once (no
timing involved); two sent one after the other never can.  It also offers a resource and a
prompt, for the host's utility tools.
"""

from __future__ import annotations

import gc

gc.disable()  # importing the SDK builds many objects: no collection until it is done

import asyncio

from mcp.server.mcpserver import MCPServer

gc.freeze()  # what the imports made stays: collections skip it from here on
gc.enable()

server = MCPServer("meeting")

_state = {"now": 0, "most": 0}
_changed: asyncio.Condition | None = None


def _condition() -> asyncio.Condition:
    global _changed  # made on the server's loop, on the first call
    if _changed is None:
        _changed = asyncio.Condition()
    return _changed


@server.tool()
async def meet(who: str, expect: int = 2, wait: float = 30.0) -> str:
    """Wait until EXPECT calls of meet are in progress together (at most WAIT seconds)."""
    changed = _condition()
    async with changed:
        _state["now"] += 1
        _state["most"] = max(_state["most"], _state["now"])
        changed.notify_all()
        try:
            await asyncio.wait_for(changed.wait_for(lambda: _state["most"] >= expect), wait)
        except TimeoutError:
            return f"{who} alone"
        finally:
            _state["now"] -= 1
    return f"{who} met {_state['most']}"


@server.resource("meeting://agenda", name="agenda", mime_type="text/plain")
def agenda() -> str:
    """Today's agenda."""
    return "1. coffee\n2. plans"


@server.prompt()
def minutes(topic: str) -> str:
    """Write the minutes of a meeting about TOPIC."""
    return f"Write the minutes of the meeting about {topic}."


if __name__ == "__main__":
    server.run()
