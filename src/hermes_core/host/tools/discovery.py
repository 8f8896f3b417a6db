"""Tool discovery: every tool a server lists, following ``nextCursor``, as checked wire dicts.

The answer is read as raw JSON and each tool checked once (:mod:`.listing`): one malformed tool
is skipped with its reason instead of failing the whole listing, and no SDK models are built for
tools the host keeps as JSON anyway.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from hermes_core._sdk_compat import absorb_tool_listing, send_raw_request
from hermes_core.host.connection import ServerConnection
from hermes_core.host.connection.session_requests import SessionWork
from hermes_core.host.server_spec import HostServer
from hermes_core.host.tools.listing import checked_tool
from hermes_core.json_types import JsonObject

if TYPE_CHECKING:
    from mcp import ClientSession

__all__ = ["MAX_TOOL_PAGES", "ToolDiscovery"]

log = logging.getLogger(__name__)

#: A server paging forever must not hang us.
MAX_TOOL_PAGES = 1000


class ToolDiscovery:
    """Lists servers' tools; keeps the tools each listing skipped and the ``ttlMs`` it sent."""

    def __init__(self) -> None:
        self.invalid: dict[str, list[str]] = {}
        """Server -> the tools its last listing skipped (taken by the preparation)."""
        self.ttl: dict[str, int] = {}
        """Server -> the ``ttlMs`` of its last listing (2026-07-28; taken by the cache)."""

    def take_invalid(self, server: str) -> list[str]:
        return self.invalid.pop(server, [])

    async def list_all_tools(
        self, connection: ServerConnection, config: HostServer
    ) -> list[JsonObject]:
        """Every tool the server lists, as checked wire dicts."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        invalid: list[str] = []
        modern = connection.protocol in MODERN_PROTOCOL_VERSIONS

        async def page(
            session: ClientSession, cursor: str | None
        ) -> tuple[list[JsonObject], str | None]:
            raw = await send_raw_request(
                session, "tools/list", {"cursor": cursor} if cursor else None
            )
            if not isinstance(raw, dict):
                raw = {}
            items = raw.get("tools")
            tools: list[JsonObject] = []
            for item in items if type(items) is list else ():
                tool, problem = checked_tool(item)
                if tool is None:
                    name = item.get("name") if isinstance(item, dict) else None
                    invalid.append(f"{name!r}: {problem}")
                else:
                    tools.append(tool)
            next_cursor = raw.get("nextCursor")
            next_cursor = next_cursor if isinstance(next_cursor, str) else None
            # Let the session know the tools' output schemas (it checks results against them);
            # on 2026-07-28 it drops tools with an invalid x-mcp-header, and so do we.
            kept, dropped = absorb_tool_listing(
                session, tools, next_cursor, complete=cursor is None and next_cursor is None
            )
            invalid.extend(dropped)
            if len(kept) != len(tools):
                still = {id(t) for t in kept}
                tools = [t for t in tools if id(t) in still]
            if cursor is None and modern:
                # ttlMs (2026-07-28 only: the SDK drops it from older revisions' answers).
                ttl = raw.get("ttlMs")
                if isinstance(ttl, int | float) and not isinstance(ttl, bool):
                    self.ttl[config.name] = max(0, int(ttl))
            return tools, next_cursor

        async def pages(session: ClientSession) -> list[JsonObject]:
            collected: list[JsonObject] = []
            cursor: str | None = None
            for _ in range(MAX_TOOL_PAGES):
                tools, cursor = await page(session, cursor)
                collected.extend(tools)
                if not cursor:
                    break
            return collected

        result: list[JsonObject] = await connection.request(
            "tools/list", SessionWork(pages), config.connect_timeout
        )
        for problem in invalid:
            log.warning("MCP server '%s': skipping tool %s", config.name, problem)
        self.invalid[config.name] = invalid
        return result
