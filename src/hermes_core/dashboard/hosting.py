"""The dashboard's host: built like every ``hermes mcp`` command builds one
(:class:`~hermes_core.host.setup.factory.HostFactory` with the plugins), started with the page and
reloaded after each edit of ``config.yaml`` (its own at once, others' before the next call).
Servers' questions go to ``state.db`` (the Pending page answers them, as a
``hermes mcp serve`` client would)."""

from __future__ import annotations

import asyncio

from hermes_core.config import store
from hermes_core.config.models import ConfigError
from hermes_core.config.server import ServerConfig
from hermes_core.host.host import MCPHost
from hermes_core.host.server_spec import HostServer
from hermes_core.host.server_status import ServerStatus
from hermes_core.host.setup.factory import HostFactory
from hermes_core.plugins.manager import HermesPluginManager
from hermes_core.sessions import SessionStore, StoreElicitor

__all__ = ["EditError", "Hosting"]


class EditError(ValueError):
    """An edit the page asked for that cannot be done (unknown server, bad config)."""


class Hosting:
    """One running :class:`MCPHost` for the dashboard, and the config edits it follows."""

    def __init__(self, manager: HermesPluginManager, sessions: SessionStore) -> None:
        self.manager = manager
        self.factory = HostFactory.from_manager(manager)
        self.sessions = sessions
        self.host: MCPHost | None = None
        self.problem: str | None = None
        """Why config.yaml could not be loaded (shown on every page), or ``None``."""
        self.warnings: list[str] = []
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"Hosting({len(self.host.status()) if self.host else 0} servers)"

    def _servers(self) -> list[HostServer]:
        try:
            loaded = self.factory.load_config(strict=False)
            servers = self.factory.servers(loaded)
        except ConfigError as exc:
            self.problem = str(exc)
            return []
        self.problem = None
        self.warnings = [
            *map(str, loaded.warnings),
            *map(str, loaded.errors),
            *(str(problem) for _name, problem in loaded.unavailable),
        ]
        return servers

    async def start(self) -> None:
        async with self._lock:
            servers = self._servers()
            self.host = self.factory.host(servers, elicitor=StoreElicitor(self.sessions))
            await self.host.start()
            # Edits made elsewhere (`hermes mcp add`, an editor) are followed too.
            self.host.watch_config(load=self._servers, display_names=self.manager.display_names)

    async def reload(self) -> None:
        """Apply config.yaml as it is now (after an edit here or elsewhere)."""
        async with self._lock:
            if self.host is not None:
                await self.host.reload(self._servers())

    async def close(self) -> None:
        if self.host is not None:
            await self.host.close()

    def rows(self) -> list[ServerStatus]:
        """``hermes mcp status``'s rows."""
        return self.host.status() if self.host else []

    def configured(self) -> dict[str, ServerConfig]:
        try:
            return dict(self.factory.load_config(strict=False).config.mcp_servers)
        except ConfigError as exc:
            raise EditError(str(exc)) from None

    async def edit(self, name: str, action: str) -> str:
        """``enable`` / ``disable`` / ``remove`` server *name* as ``hermes mcp`` does
        (:mod:`hermes_core.config.store`: atomic, comments kept), then reload; the sentence."""
        if name not in self.configured():
            raise EditError(f"no server named {name!r} in config.yaml")
        try:
            if action == "remove":
                await asyncio.to_thread(store.remove_server, name)
                said = f"removed '{name}'"
            elif action in ("enable", "disable"):
                changed = await asyncio.to_thread(store.set_enabled, name, action == "enable")
                word = f"{action}d"
                said = f"'{name}' {word}" if changed else f"'{name}' was already {word}"
            else:
                raise EditError(f"unknown action {action!r} (enable, disable or remove)")
        except ConfigError as exc:
            raise EditError(str(exc)) from None
        await self.reload()
        return said
