"""Lazy servers (``lazy: true``): their tools registered from the schema cache without starting
them, the start on their first call, their status, and the writing of their cache."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

from hermes_core._sdk_compat import TASKS_EXTENSION
from hermes_core.host.connection import ServerConnection, ServerError
from hermes_core.host.connection.state_checks import is_lazy, mark_lazy
from hermes_core.host.optional import read_schema_cache, write_schema_cache
from hermes_core.host.server_spec import HostServer
from hermes_core.host.tasks.support import runs_tool_tasks
from hermes_core.host.tools.listing import checked_tool
from hermes_core.host.tools.offer_gates import ServerGate
from hermes_core.json_types import JsonObject, JsonValue

if TYPE_CHECKING:
    from mcp.types import ServerCapabilities

__all__ = ["LazyServers", "write_listing_cache"]

log = logging.getLogger(__name__)

#: Registers a server's tools from a listing: (its config, its tools, its capabilities).
Register = Callable[[HostServer, list[JsonObject], "ServerCapabilities | None"], None]
#: Re-lists a server's tools: its (added, removed) tool names.
Refresh = Callable[[str], Awaitable[tuple[list[str], list[str]]]]


class LazyServers:
    """What the host knows of its lazy servers: the cache hit, the tools it held, the phantoms
    (cached tools the live server no longer has) dropped at the first start."""

    def __init__(
        self,
        connections: Mapping[str, ServerConnection],
        gate: ServerGate,
        *,
        register: Register,
        refresh: Refresh,
    ) -> None:
        self._connections = connections
        self._gate = gate
        self._register = register
        self._refresh = refresh
        self._info: dict[str, JsonObject] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def register_from_cache(self, server: HostServer, connection: ServerConnection) -> bool:
        """Register a lazy server's tools from its cache entry, without starting it."""
        from mcp import types

        info = self._info.setdefault(server.name, {"cache": "miss", "started": False})
        if server.schema_cache is None or server.fingerprint is None:
            return False
        listing = read_schema_cache(server.schema_cache, server.fingerprint)
        if listing is None:
            return False
        tools = [tool for tool, _ in map(checked_tool, listing.tools) if tool is not None]
        flags = listing.capabilities
        caps = types.ServerCapabilities(
            tools=types.ToolsCapability() if flags.get("tools") else None,
            resources=types.ResourcesCapability() if flags.get("resources") else None,
            prompts=types.PromptsCapability() if flags.get("prompts") else None,
            # Task-only tools are listed as the server offered them; a call wakes the server
            # and is decided on its live listing (never on this record).
            extensions={TASKS_EXTENSION: {}} if flags.get("tool_tasks") else None,
        )
        self._register(server, tools, caps)
        mark_lazy(connection)
        info.update(cache="hit", cached_tools=len(tools), phantoms=[])
        self._gate.invalidate()
        return True

    async def wake(self, name: str) -> str | None:
        """The first call to a lazy server: connect it and re-list; ``None`` on success, else
        the error.  Tools the live server no longer has ("phantoms") are dropped and reported."""
        connection = self._connections.get(name)
        if connection is None or not is_lazy(connection):
            return None
        async with self._locks.setdefault(name, asyncio.Lock()):
            if not is_lazy(connection):
                return None  # another call woke it meanwhile
            log.info("MCP server '%s': lazy start on first use", name)
            try:
                await connection.connect()
                _added, removed = await self._refresh(name)
            except ServerError as exc:
                self._gate.invalidate()
                return exc.detail
            info = self._info.setdefault(name, {})
            phantoms: list[JsonValue] = [*removed]
            info.update(started=True, phantoms=phantoms)
            if removed:
                log.warning(
                    "MCP server '%s': cached tools the server no longer offers were dropped: %s",
                    name,
                    ", ".join(removed),
                )
            self._gate.invalidate()
            return None

    def status(self, name: str) -> JsonObject:
        info = dict(self._info.get(name, {}))
        connection = self._connections.get(name)
        info["started"] = bool(connection is not None and not is_lazy(connection))
        return info


def write_listing_cache(
    config: HostServer,
    tools: list[JsonObject],
    caps: ServerCapabilities | None,
    ttls: dict[str, int],
) -> None:
    """Write a lazy server's listing to its cache; *ttls* holds the ``ttlMs`` each server's
    last listing sent (taken here; 0: the server asked not to be cached)."""
    if config.schema_cache is None or config.fingerprint is None:
        return
    ttl = ttls.pop(config.name, None)
    if ttl == 0:
        with contextlib.suppress(OSError):
            config.schema_cache.unlink()  # the server asked not to be cached
        return
    flags = {
        "tools": caps is None or caps.tools is not None,
        "resources": caps is not None and caps.resources is not None,
        "prompts": caps is not None and caps.prompts is not None,
        "tool_tasks": runs_tool_tasks(caps),
    }
    try:
        write_schema_cache(config.schema_cache, config.fingerprint, tools, flags, ttl_ms=ttl)
    except OSError as exc:
        log.warning("MCP server '%s': could not write its tool cache: %s", config.name, exc)
