"""The host's optional parts, loaded on their first use.

An embedding host pays in resident memory for every module it imports (docs/performance.md,
"Memory"; pinned by tests/hermes_core/test_embedding_host_imports.py).  A few parts serve
servers that need them only: hermes_platform's resolvers for a server whose app is declared,
the sampling machinery for a server that may sample, the schema cache (and its record
format) for a lazy server, the config watcher for a host that follows
``config.yaml``.  They are reached through the typed functions below, which load their module
the first time (by name, through :mod:`importlib`): the dependency still points from the host
down to them, and a host that never uses them never loads them.  So is
:mod:`hermes_core._sdk_compat`, the SDK shim, which imports the SDK itself: a command that
contacts no server must not.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_core.host import watch
    from hermes_core.host.config_source import ConfigSource
    from hermes_core.host.schema_cache import CachedListing
    from hermes_core.host.spec import HostServer
    from hermes_core.sampling.catalog import ModelCatalog
    from hermes_core.sampling.handler import SamplingHandler
    from hermes_platform.declaration import Declaration
    from hermes_platform.resolver.availability import Availability
    from hermes_platform.sentences import Guidance

__all__ = [
    "absorb_tool_listing",
    "app_availability",
    "app_guidance",
    "follow_config",
    "is_output_schema_violation",
    "model_catalog_class",
    "read_schema_cache",
    "sampling_handler_class",
    "send_raw_request",
    "write_schema_cache",
]


def _module(name: str) -> ModuleType:
    return importlib.import_module(name)


def app_availability(decl: Declaration) -> Availability:
    """Whether the declared app of a server is offerable on this machine (and why not)."""
    result: Availability = _module("hermes_platform.resolver.availability").availability(decl)
    return result


def app_guidance(
    decl: Declaration, result: Availability, *, display_name: str | None = None
) -> Guidance | None:
    """What the user can do about an app that is not offerable (``None``: it is)."""
    advice: Guidance | None = _module("hermes_platform.sentences").guidance(
        decl, result, display_name=display_name
    )
    return advice


def read_schema_cache(path: Path, expected: str) -> CachedListing | None:
    """A lazy server's cached listing (see :func:`hermes_core.host.schema_cache.read_cache`)."""
    listing: CachedListing | None = _module("hermes_core.host.schema_cache").read_cache(
        path, expected
    )
    return listing


def write_schema_cache(
    path: Path,
    expected: str,
    tools: Sequence[Mapping[str, Any]],
    capabilities: Mapping[str, bool],
    *,
    ttl_ms: int | None,
) -> None:
    """Write a lazy server's listing (see :func:`hermes_core.host.schema_cache.write_cache`)."""
    _module("hermes_core.host.schema_cache").write_cache(
        path, expected, tools, capabilities, ttl_ms=ttl_ms
    )


async def send_raw_request(session: Any, method: str, params: Mapping[str, Any] | None) -> Any:
    """See :func:`hermes_core._sdk_compat.send_raw_request` (the SDK shim, which imports the
    SDK: a host is importable without it, e.g. by a command that contacts no server)."""
    return await _module("hermes_core._sdk_compat").send_raw_request(session, method, params)


def absorb_tool_listing(
    session: Any, tools: Sequence[Mapping[str, Any]], next_cursor: str | None, *, complete: bool
) -> tuple[list[Mapping[str, Any]], list[str]]:
    """See :func:`hermes_core._sdk_compat.absorb_tool_listing`."""
    absorbed: tuple[list[Mapping[str, Any]], list[str]] = _module(
        "hermes_core._sdk_compat"
    ).absorb_tool_listing(session, tools, next_cursor, complete=complete)
    return absorbed


def is_output_schema_violation(exc: BaseException) -> bool:
    """See :func:`hermes_core._sdk_compat.is_output_schema_violation`."""
    violation: bool = _module("hermes_core._sdk_compat").is_output_schema_violation(exc)
    return violation


def model_catalog_class() -> type[ModelCatalog]:
    cls: type[ModelCatalog] = _module("hermes_core.sampling.catalog").ModelCatalog
    return cls


def sampling_handler_class() -> type[SamplingHandler]:
    cls: type[SamplingHandler] = _module("hermes_core.sampling.handler").SamplingHandler
    return cls


def follow_config(
    host: watch.Reloadable,
    path: str | os.PathLike[str] | None,
    *,
    interval: float,
    display_names: Mapping[str, str] | None,
    load: Callable[[], Iterable[HostServer]] | None,
    source: ConfigSource | None,
) -> watch.ConfigWatcher:
    """Start following ``config.yaml`` for *host* (see :func:`hermes_core.host.watch.follow`)."""
    watcher: watch.ConfigWatcher = _module("hermes_core.host.watch").follow(
        host, path, interval=interval, display_names=display_names, load=load, source=source
    )
    return watcher
