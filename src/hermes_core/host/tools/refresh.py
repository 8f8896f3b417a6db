"""Keeping the registry in step with each server's tools: list, prepare, name, apply.

A server's listing is re-read when it connects, reconnects or says its tools changed
(``notifications/tools/list_changed``); bursts are serialised per server, and a listing that
prepares to the very same tools changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

from hermes_core.config.policy_match import tool_denial, tool_refusal
from hermes_core.host.connection import ServerConnection, ServerError
from hermes_core.host.server_spec import HostServer
from hermes_core.host.tools.discovery import ToolDiscovery
from hermes_core.host.tools.gc_pause import paused_gc
from hermes_core.host.tools.lazy_servers import write_listing_cache
from hermes_core.host.tools.listing import tool_name
from hermes_core.host.tools.offer_gates import ServerGate
from hermes_core.host.tools.preparation import Listed, ToolPreparation, same_listing
from hermes_core.host.tools.registration import ToolNaming
from hermes_core.host.tools.registry import ToolRegistry
from hermes_core.json_types import JsonObject

if TYPE_CHECKING:
    from mcp.types import ServerCapabilities

    from hermes_core.host.trust.screen import TrustScreen

__all__ = ["RELIST_DELAY_SECONDS", "ToolRefresh"]

log = logging.getLogger(__name__)

RELIST_DELAY_SECONDS = 0.5


class ToolRefresh:
    """Discovery, preparation and naming of every server's tools, applied to *registry*."""

    def __init__(
        self,
        servers: Mapping[str, HostServer],
        connections: Mapping[str, ServerConnection],
        registry: ToolRegistry,
        gate: ServerGate,
        screen: TrustScreen | None = None,
    ) -> None:
        self._servers = servers
        self.screen = screen
        """The trust state's screening of each listing (pins, decisions); None: none."""
        # Server -> its last listing (tools, capabilities, whether live): screened again
        # when the trust state changes.
        self._listings: dict[str, tuple[list[JsonObject], ServerCapabilities | None, bool]] = {}
        self.policy_refusals: dict[str, dict[str, str]] = {}
        """Server -> tool -> why the administrator's policy refuses it."""
        self._connections = connections
        self._gate = gate
        self.discovery = ToolDiscovery()
        self.preparation = ToolPreparation()
        self.naming = ToolNaming(registry, servers)
        self._locks: dict[str, asyncio.Lock] = {}

    def usable_tools(
        self,
        config: HostServer,
        tools: list[JsonObject],
        caps: ServerCapabilities | None,
        *,
        live: bool = True,
    ) -> Listed:
        """*config*'s offered and utility tools of a listing (with what its listing skipped);
        *live*: read from the server now (only such a listing pins tools)."""
        invalid = self.discovery.take_invalid(config.name)
        held: dict[str, str] = {}
        if config.policy is not None:
            for tool in tools:
                name = tool_name(tool)
                refused_by = tool_refusal(config.policy, config.name, name)
                override = config.overrides.get(name)
                if refused_by is None and override is not None and override.name is not None:
                    refused_by = tool_denial(config.policy, config.name, override.name)
                if refused_by is not None:
                    held[name] = f"refused by the administrator's policy: {refused_by}"
        self.policy_refusals[config.name] = dict(held)
        # Kept to be screened again when the trust state or the policy changes.
        self._listings[config.name] = (tools, caps, live)
        if self.screen is not None:
            allowed = [tool for tool in tools if tool_name(tool) not in held]
            refused = self.screen.screen(config, allowed, live=live)
            held.update((name, refusal.reason) for name, refusal in refused.items())
        return self.preparation.usable_tools(config, tools, caps, invalid, held)

    def register(
        self, config: HostServer, tools: list[JsonObject], caps: ServerCapabilities | None
    ) -> None:
        """Register *config*'s tools from a listing read elsewhere (a lazy server's cache)."""
        with paused_gc():
            self.naming.apply(config.name, self.usable_tools(config, tools, caps, live=False))

    def rescreen(self) -> None:
        """Screen every server's last listing again (the trust state or the policy changed):
        accepted or allowed tools come back, blocked or refused ones go.  Never as a live
        listing: what this host listed a while ago is not what the server says now, so it is
        neither pinned nor recorded as a change (over a newer one another process recorded)."""
        for server, (tools, caps, _live) in list(self._listings.items()):
            config = self._servers.get(server)
            if config is None or server not in self.naming.listed:
                self._listings.pop(server, None)
                continue
            with paused_gc():
                self.naming.apply(server, self.usable_tools(config, tools, caps, live=False))
        self._gate.invalidate()

    async def refresh(self, server: str) -> tuple[list[str], list[str]]:
        """Re-list one server's tools and apply the difference (bursts are serialised)."""
        lock = self._locks.setdefault(server, asyncio.Lock())
        async with lock:
            connection = self._connections.get(server)
            config = self._servers.get(server)
            if connection is None or config is None or connection.closed:
                return [], []  # closed or removed meanwhile (e.g. a late list_changed)
            caps = connection.capabilities
            tools: list[JsonObject] = []
            if caps is None or caps.tools is not None:
                tools = await self.discovery.list_all_tools(connection, config)
            if config.lazy:
                write_listing_cache(config, tools, caps, self.discovery.ttl)
            with paused_gc():  # plain JSON trees: no cycles to collect (see gc_pause)
                listed = self.usable_tools(config, tools, caps)
                if same_listing(self.naming.listed.get(server), listed):
                    changes = {}  # the same tools, prepared before: no names can change
                else:
                    changes = self.naming.apply(server, listed)
            self._gate.invalidate()
            return changes.get(server, ([], []))

    def forget(self, server: str) -> None:
        """Take *server*'s tools out of the registry (names of the others may change back)."""
        self.preparation.forget(server)
        self.naming.forget(server)
        self._listings.pop(server, None)
        self.policy_refusals.pop(server, None)
        if self.screen is not None:
            self.screen.forget(server)

    # -- what makes a server's tools be listed again ----------------------------------------
    async def tools_changed(self, connection: ServerConnection) -> None:
        """The server said its tools changed: re-list them (and log the difference)."""
        if self._connections.get(connection.name) is not connection:
            return  # a notification of a connection already closed (or replaced): nothing to list
        try:
            added, removed = await self.refresh(connection.name)
        except KeyError:
            if self._connections.get(connection.name) is connection:
                raise
            return  # the host closed (or dropped the server) while the listing waited its turn
        except ServerError as exc:
            if self._connections.get(connection.name) is connection and not connection.closed:
                log.warning("%s", exc)  # (nobody needs to hear about a closing connection)
            return
        if added or removed:
            log.warning(
                "MCP server '%s': tools changed — added: %s; removed: %s",
                connection.name,
                ", ".join(added) or "none",
                ", ".join(removed) or "none",
            )

    async def relist_later(self, name: str, connection: ServerConnection) -> None:
        """List once more a moment after the start (see ``lifecycle.may_miss_changes``)."""
        await asyncio.sleep(RELIST_DELAY_SECONDS)
        if self._connections.get(name) is connection and connection.connected:
            try:
                await self.tools_changed(connection)
            except Exception as exc:  # noqa: BLE001 - a late re-list must never break the host
                log.warning("MCP server '%s': re-listing tools failed: %s", name, exc)

    async def reconnected(self, connection: ServerConnection) -> None:
        try:
            await self.refresh(connection.name)
        except ServerError as exc:
            log.warning("%s", exc)
        self._gate.invalidate()
