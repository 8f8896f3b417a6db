"""Registration objects: what each hook returns.

Every hook returns an iterable of these frozen dataclasses.  They are
standard-library dataclasses so ``hermes_platform`` consumes them without new
dependencies; ``LocationKind``, ``VersionSource`` (with its
``VersionReader`` protocol and ``Observation``) and ``GpuProbe`` *are* the
platform's own types, re-exported here for plugin authors.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from hermes_platform.host.gpu import GpuProbe
from hermes_platform.resolver.locating import AppLocation, LocateContext, LocationKind
from hermes_platform.resolver.observation import Observation
from hermes_platform.resolver.versions import VersionReader, VersionSource

__all__ = [
    "AppDeclaration",
    "AppLocation",
    "AuthProviderSpec",
    "CatalogManifest",
    "GpuProbe",
    "LocateContext",
    "LocationKind",
    "MessagingAdapter",
    "MessagingAdapterFactory",
    "MessagingChannel",
    "MessagingPlatform",
    "Observation",
    "SendReceipt",
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


@dataclass(frozen=True)
class MessagingChannel:
    """A place a messaging adapter can send to: ``<platform>:<chat_id>`` is its target."""

    chat_id: str
    name: str = ""
    description: str = ""


@dataclass(frozen=True)
class SendReceipt:
    """What a platform said about a delivered message (``message_id`` when it gives one)."""

    message_id: str | None = None
    detail: str = ""


@runtime_checkable
class MessagingAdapter(Protocol):
    """One configured messaging platform (an entry of ``messaging:`` in ``config.yaml``).

    Both methods are called from a worker thread, so blocking I/O is fine.  ``send`` raises
    :class:`ValueError` for a chat id it does not know (the message is shown to the caller)
    and :class:`OSError` (or a subclass) when delivery fails; the message must not contain
    secrets such as webhook URLs or tokens.
    """

    def channels(self) -> Sequence[MessagingChannel]:
        """The chats this adapter can reach (cheap: no network)."""
        ...

    def send(self, chat_id: str, text: str) -> SendReceipt:
        """Deliver *text* (plain text) to *chat_id*; return once the platform accepted it."""
        ...


class MessagingAdapterFactory(Protocol):
    """Builds an adapter from its ``messaging.<name>`` settings (``${VAR}`` already expanded).

    *name* is the key the user chose (the ``platform`` of ``platform:chat_id`` targets);
    *settings* holds every key of the entry except ``adapter``.  Bad settings raise
    ``pydantic.ValidationError`` (each error's ``loc`` is placed on its line of
    ``config.yaml``) or :class:`ValueError`.
    """

    def __call__(self, name: str, settings: Mapping[str, Any]) -> MessagingAdapter: ...


@dataclass(frozen=True)
class MessagingPlatform:
    """A kind of messaging adapter, selected by ``adapter: <name>`` under ``messaging:``."""

    name: str
    create: MessagingAdapterFactory
    description: str = ""
    provider: str = "hermes_core"


@dataclass(frozen=True)
class CatalogManifest:
    """A catalog entry: the text of one manifest (``docs/catalog.md``) and where it came from.

    ``name`` is the entry's name (the ``name:`` in the manifest, the ``mcp_servers``
    key it installs as); ``text`` is the manifest's YAML, kept as text so every
    error can name ``where`` and the line.  Hermes parses it when the catalog is
    read (``hermes mcp catalog/install/configure``).
    """

    name: str
    text: str = field(repr=False)
    where: str = ""
