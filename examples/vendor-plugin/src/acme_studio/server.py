"""Acme Studio's MCP server, written with the official ``mcp`` SDK (stdio)."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from acme_studio import __version__

server = MCPServer("acme-studio")


@server.tool()
def render(scene: str, width: int = 1920, height: int = 1080) -> str:
    """Render a scene in Acme Studio and return where the image was written."""
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in scene) or "scene"
    return f"rendered {scene!r} at {width}x{height} to ~/Pictures/acme/{safe}.png"


@server.tool()
def studio_version() -> str:
    """The version of Acme Studio this server talks to."""
    return __version__


def main() -> None:
    server.run("stdio")


if __name__ == "__main__":
    main()
