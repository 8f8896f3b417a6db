"""Registration objects: what each hook returns.

Every hook returns an iterable of these frozen dataclasses.  They are
standard-library dataclasses so ``hermes_platform`` consumes them without new
dependencies; ``LocationKind``, ``VersionSource`` (with its
``VersionReader`` protocol and ``Observation``) and ``GpuProbe`` *are* the
platform's own types, re-exported here for plugin authors.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hermes_platform.host.gpu import GpuProbe
from hermes_platform.resolver.locating import AppLocation, LocateContext, LocationKind
from hermes_platform.resolver.observation import Observation
from hermes_platform.resolver.versions import VersionReader, VersionSource

__all__ = [
    "AppDeclaration",
    "AppLocation",
    "AuthProviderSpec",
    "GpuProbe",
    "LocateContext",
    "LocationKind",
    "Observation",
    "TransportSpec",
    "VersionReader",
    "VersionSource",
]


@dataclass(frozen=True)
class AppDeclaration:
    """An app declaration for one MCP server, as a vendor wrote it.

    ``app`` and ``requires`` are the raw ``app:`` / ``requires:`` mappings of
    the declaration contract; Hermes parses them with
    ``hermes_platform.declaration.parse_declaration`` and registers the
    result under ``server`` (the server name as configured under
    ``mcp_servers``).  ``where`` labels errors (e.g. the ``plugin.yaml`` path).
    """

    server: str
    app: Mapping[str, Any] | None = field(default=None, hash=False)
    requires: Mapping[str, Any] | None = field(default=None, hash=False)
    where: str = ""
    display_name: str | None = None
    key_line: Callable[[str], int | None] | None = field(default=None, compare=False, repr=False)
    """Maps a key path (``app.linux.location[0]``) to its line in ``where``, for errors."""


@dataclass(frozen=True)
class TransportSpec:
    """A way to reach an MCP server, chosen by the shape of its config entry.

    ``config_key`` is the ``mcp_servers.<name>`` key that selects it
    (``command`` → stdio, ``url`` → HTTP).  ``connect`` is filled in by the
    MCP host; built-ins register their names now so plugins cannot take them.
    """

    name: str
    config_key: str
    description: str = ""
    connect: Callable[..., Any] | None = field(default=None, compare=False)
    provider: str = "hermes_core"


@dataclass(frozen=True)
class AuthProviderSpec:
    """An auth scheme for HTTP servers, selected by ``auth: <name>`` in config."""

    name: str
    description: str = ""
    create: Callable[..., Any] | None = field(default=None, compare=False)
    provider: str = "hermes_core"
