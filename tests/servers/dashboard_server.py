"""An MCP server (``mcp`` SDK, stdio) for the dashboard's tests: a text tool with a nullable
argument, a tool returning an image, and one annotated as destructive.  ``DASH_KEY`` (when
set) is reported as set, never echoed."""

from __future__ import annotations

import gc

gc.disable()  # importing the SDK builds many objects: no collection until it is done

import os

from mcp.server.mcpserver import MCPServer
from mcp.types import ImageContent, ToolAnnotations

gc.freeze()  # what the imports made stays: collections skip it from here on
gc.enable()

server = MCPServer("dash")

# A 1x1 red PNG.
PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5Er"
    "kJggg=="
)


@server.tool(title="Echo a text")
def echo(text: str, times: int | None = None) -> str:
    """Repeat *text* (once, or *times* times; null means once)."""
    return " ".join([text] * (times if times is not None else 1)) + f" [times={times!r}]"


@server.tool()
def pixel() -> ImageContent:
    """A one-pixel PNG image."""
    return ImageContent(type="image", data=PIXEL, mimeType="image/png")


@server.tool(annotations=ToolAnnotations(destructiveHint=True, readOnlyHint=False))
def wipe() -> str:
    """Pretend to delete everything."""
    return "key " + ("set" if os.environ.get("DASH_KEY") else "unset")


if __name__ == "__main__":
    server.run()
