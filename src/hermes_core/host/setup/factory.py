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
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_core.config.errors import ConfigError
from hermes_core.config.kinds import ServerKinds
from hermes_core.config.loader import LoadedConfig, hermes_home
from hermes_core.config.models import ServerConfig
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

if TYPE_CHECKING:
    from hermes_core.host.calls.intercept.table import InterceptorTable
    from hermes_core.host.setup.from_config import CatalogCheck
    from hermes_core.pgstate import Database
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["HostFactory", "builtin_auth_providers", "builtin_transports"]

log = logging.getLogger(__name__)


class HostFactory:
    """Builds :class:`~hermes_core.host.host.MCPHost` (or its blocking twin) from what its
    :attr:`source` reads: ``config.yaml`` against the registered transports, auth providers,
    sampling backends and call interceptors.

    The factory *has* a :class:`~hermes_core.host.setup.config_source.ConfigSource` (reading
    the config is one job, building hosts from it another); the config methods an embedder
    calls on a factory (:meth:`load_config`, :meth:`servers`, …) are its source's."""

    def __init__(self, source: ConfigSource | None = None) -> None:
        """*source*: what the hosts are built from (default: the built-in transports and
        auth providers only, no plugins)."""
        self.source = source if source is not None else ConfigSource()

    @classmethod
    def from_manager(cls, manager: HermesPluginManager) -> HostFactory:
        """With everything *manager* collected (:meth:`ConfigSource.from_manager`)."""
        return cls(ConfigSource.from_manager(manager))

    @classmethod
    def from_plugins(cls, *, no_plugins: bool = False) -> HostFactory:
        """With the installed plugins, loaded as the ``hermes`` command loads them
        (:meth:`ConfigSource.from_plugins`; :meth:`close` undoes what they registered)."""
        return cls(ConfigSource.from_plugins(no_plugins=no_plugins))

    def close(self) -> None:
        """:meth:`ConfigSource.close`.  Idempotent."""
        self.source.close()

    def __enter__(self) -> HostFactory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the source's config, as an embedder asks the factory for it ---------------------
    def load_config(
        self, path: str | os.PathLike[str] | None = None, *, strict: bool = True
    ) -> LoadedConfig:
        """:meth:`ConfigSource.load_config`."""
        return self.source.load_config(path, strict=strict)

    @property
    def loaded(self) -> LoadedConfig | None:
        """The config :meth:`load_config` read last."""
        return self.source.loaded

    @property
    def kinds(self) -> ServerKinds:
        """What ``config.yaml`` is validated against."""
        return self.source.kinds

    @property
    def catalog_check(self) -> CatalogCheck | None:
        """:attr:`ConfigSource.catalog_check` (the policy's ``catalog_only``)."""
        return self.source.catalog_check

    @catalog_check.setter
    def catalog_check(self, check: CatalogCheck | None) -> None:
        self.source.catalog_check = check

    def servers(
        self,
        loaded: LoadedConfig | None = None,
        *,
        env: Mapping[str, str] | None = None,
        only: str | None = None,
    ) -> list[HostServer]:
        """:meth:`ConfigSource.servers`."""
        return self.source.servers(loaded, env=env, only=only)

    def server(
        self,
        name: str,
        resolved: ServerConfig,
        *,
        home: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> HostServer:
        """:meth:`ConfigSource.server`."""
        return self.source.server(name, resolved, home=home, env=env)

    def refused(
        self, name: str, cfg: ServerConfig, env: Mapping[str, str] | None = None
    ) -> str | None:
        """:meth:`ConfigSource.refused`."""
        return self.source.refused(name, cfg, env)

    def state_database(self, loaded: LoadedConfig | None = None) -> Database | None:
        """:meth:`ConfigSource.state_database`."""
        return self.source.state_database(loaded)

    def interceptor_table(
        self, loaded: LoadedConfig | None = None, *, env: Mapping[str, str] | None = None
    ) -> InterceptorTable:
        """:meth:`ConfigSource.interceptor_table`."""
        return self.source.interceptor_table(loaded, env=env)

    # -- hosts -----------------------------------------------------------------------------
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
            "transports": self.source.openers,
            "elicitor": elicitor,
            "factory": self.source,
            "sampling_providers": self.source.sampling_providers,
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
