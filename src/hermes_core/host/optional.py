"""The host's optional parts, loaded on their first use.

An embedding host pays in resident memory for every module it imports (docs/performance-history.md,
"Memory"; pinned by tests/hermes_core/test_embedding_host_imports.py).  A few parts serve
servers that need them only: hermes_platform's resolvers for a server whose app is declared,
the sampling machinery for a server that may sample, the schema cache (and its record
format) for a lazy server, the config watcher for a host that follows
``config.yaml``.  They are reached through the typed functions below, which load their module
the first time (an import inside the function; the only other such imports in the host are
the transports' connects, :mod:`.transports`): the dependency still points from the
host down to them, and a host that never uses them never loads them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hermes_core.host import config_watch as watch
    from hermes_core.host.liveness.endpoint import LiveEndpoint, NotRunning
    from hermes_core.host.server_spec import HostServer
    from hermes_core.host.setup.config_source import ConfigSource
    from hermes_core.host.tools.schema_cache import CachedListing
    from hermes_core.host.trust.screen import TrustScreen
    from hermes_core.host.trust.state import TrustState
    from hermes_core.sampling.catalog import ModelCatalog
    from hermes_core.sampling.handler import SamplingHandler
    from hermes_platform.declaration import Declaration
    from hermes_platform.resolver.availability import Availability
    from hermes_platform.sentences import Guidance

__all__ = [
    "app_availability",
    "app_guidance",
    "follow_config",
    "has_liveness",
    "live_endpoint",
    "live_spec",
    "model_catalog_class",
    "read_schema_cache",
    "sampling_handler_class",
    "trust_screen",
    "write_schema_cache",
]


def app_availability(decl: Declaration) -> Availability:
    """Whether the declared app of a server is offerable on this machine (and why not)."""
    from hermes_platform.resolver.availability import availability

    return availability(decl)


def app_guidance(
    decl: Declaration, result: Availability, *, display_name: str | None = None
) -> Guidance | None:
    """What the user can do about an app that is not offerable (``None``: it is)."""
    from hermes_platform.sentences import guidance

    return guidance(decl, result, display_name=display_name)


def has_liveness(decl: Declaration) -> bool:
    """Whether the declared app serves MCP itself on this OS (``liveness: server_json``)."""
    from hermes_core.host.liveness.endpoint import has_liveness as declared_liveness

    return declared_liveness(decl)


def live_endpoint(server: str) -> LiveEndpoint | NotRunning | None:
    """Where *server*'s declared app serves now (see :mod:`hermes_core.host.liveness`)."""
    from hermes_core.host.liveness.endpoint import live_endpoint as read_live

    return read_live(server)


def live_spec(base: HostServer, endpoint: LiveEndpoint) -> HostServer:
    """*base* pointed at the running app (:mod:`hermes_core.host.liveness.endpoint`)."""
    from hermes_core.host.liveness.live_spec import live_spec as pointed

    return pointed(base, endpoint)


def read_schema_cache(path: Path, expected: str) -> CachedListing | None:
    """A lazy server's cached listing (:func:`hermes_core.host.tools.schema_cache.read_cache`)."""
    from hermes_core.host.tools.schema_cache import read_cache

    return read_cache(path, expected)


def write_schema_cache(
    path: Path,
    expected: str,
    tools: Sequence[Mapping[str, object]],
    capabilities: Mapping[str, bool],
    *,
    ttl_ms: int | None,
) -> None:
    """Write a lazy server's listing (:func:`hermes_core.host.tools.schema_cache.write_cache`)."""
    from hermes_core.host.tools.schema_cache import write_cache

    write_cache(path, expected, tools, capabilities, ttl_ms=ttl_ms)


def model_catalog_class() -> type[ModelCatalog]:
    from hermes_core.sampling.catalog import ModelCatalog

    return ModelCatalog


def sampling_handler_class() -> type[SamplingHandler]:
    from hermes_core.sampling.handler import SamplingHandler

    return SamplingHandler


def follow_config(
    host: watch.Reloadable,
    path: str | os.PathLike[str] | None,
    *,
    interval: float,
    display_names: Mapping[str, str] | None,
    load: Callable[[], Iterable[HostServer]] | None,
    source: ConfigSource | None,
    on_reload: Callable[[Mapping[str, list[str]]], object] | None = None,
) -> watch.ConfigWatcher:
    """Follow ``config.yaml`` for *host* (:func:`hermes_core.host.config_watch.follow`)."""
    from hermes_core.host.config_watch import follow

    return follow(
        host,
        path,
        interval=interval,
        display_names=display_names,
        load=load,
        source=source,
        on_reload=on_reload,
    )


def trust_screen(store: TrustState) -> TrustScreen:
    """The screening of listings against *store* (pins and decisions; a host with a store)."""
    from hermes_core.host.trust.screen import TrustScreen

    return TrustScreen(store)
