"""The one way to build an MCP host: config, plugins' transports, auth providers and sampling
backends together.

Every ``hermes mcp`` command builds its host here, and so should an embedder, so that
what a plugin contributes (a transport, an auth provider, an app declaration's display
name) is seen everywhere::

    from hermes_core.host.setup.factory import HostFactory

    factory = HostFactory.from_plugins()       # built-ins + installed plugins (entry points)
    async with factory.host() as host:         # $HERMES_HOME/config.yaml, ${VAR} resolved
        print([tool.name for tool in host.tools()])

``HostFactory()`` (no plugins) knows the built-in transports and auth providers only: an
entry naming a plugin's is then a config error, never a server connected without it.
"""

from __future__ import annotations

import logging
from typing import Any

from hermes_core.config.errors import ConfigError
from hermes_core.config.loader import hermes_home
from hermes_core.host.fleet.bus import NoticeKind
from hermes_core.host.fleet.follow import FOLLOWER
from hermes_core.host.fleet.publish import notice_sender
from hermes_core.host.fleet.settings import load_bus_settings
from hermes_core.host.host import MCPHost
from hermes_core.host.server_spec import HostServer
from hermes_core.host.setup.builtin_plugins import builtin_auth_providers, builtin_transports
from hermes_core.host.setup.config_source import ConfigSource
from hermes_core.host.sync import SyncMCPHost
from hermes_core.host.trust.pg_store import PgTrustStore
from hermes_core.host.trust.state import TrustState
from hermes_core.host.trust.store import TrustStore
from hermes_core.offers.elicitation import Elicitor
from hermes_core.sampling.route import SamplingRouter

__all__ = ["HostFactory", "builtin_auth_providers", "builtin_transports"]

log = logging.getLogger(__name__)


class HostFactory(ConfigSource):
    """Loads ``config.yaml`` against the registered transports and auth providers and
    builds :class:`~hermes_core.host.host.MCPHost` (or its blocking twin) from it."""

    def host(
        self,
        servers: list[HostServer] | None = None,
        *,
        elicitor: Elicitor | None = None,
        sampling_router: SamplingRouter | None = None,
    ) -> MCPHost:
        """An :class:`MCPHost` for *servers* (default: :meth:`servers`) that opens every
        connection through the registered transports; its ``watch_config`` reloads
        through this factory.  *elicitor* and *sampling_router*: see :class:`MCPHost`."""
        return MCPHost(**self._host_parts(servers, elicitor), sampling_router=sampling_router)

    def _host_parts(
        self, servers: list[HostServer] | None, elicitor: Elicitor | None
    ) -> dict[str, Any]:
        """What :meth:`host` and :meth:`sync_host` build a host from."""
        return {
            "servers": self.servers() if servers is None else servers,
            "transports": self.openers,
            "elicitor": elicitor,
            "factory": self,
            "sampling_providers": self.sampling_providers,
            "trust": self.trust_store(),
            "interceptors": self.interceptor_table(),
        }

    def trust_store(self) -> TrustState:
        """The pins and remembered decisions every host applies: ``$HERMES_HOME/trust.db``,
        or the state database with ``state:`` in ``config.yaml``."""
        db = self.state_database()
        if db is not None:
            store = PgTrustStore(db)
            self._announce_writes(store)
            return store
        return TrustStore.at_home(hermes_home())

    def _announce_writes(self, store: PgTrustStore) -> None:
        """With ``bus:`` too, each write is announced to every replica (docs/scaling.md)."""
        loaded = self.loaded if self.loaded is not None else self.load_config(strict=False)
        try:
            bus = load_bus_settings(loaded)
        except ConfigError as exc:
            log.warning("changes are not announced to other replicas: %s", exc)
            return
        if bus is not None:
            store.on_write.append(notice_sender(bus, NoticeKind.TRUST))
            store.follower = FOLLOWER

    def sync_host(
        self, servers: list[HostServer] | None = None, *, elicitor: Elicitor | None = None
    ) -> SyncMCPHost:
        """The blocking :class:`SyncMCPHost` twin of :meth:`host`."""
        return SyncMCPHost(**self._host_parts(servers, elicitor))
