"""Registration objects: what each hook returns.

Every hook returns an iterable of these frozen dataclasses.  They are
standard-library dataclasses so ``hermes_platform`` consumes them without new
dependencies; ``LocationKind``, ``VersionSource`` (with its
``VersionReader`` protocol and ``Observation``) and ``GpuProbe`` *are* the
platform's own types, re-exported here for plugin authors.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Protocol, TypeAlias, runtime_checkable

from hermes_core.plugins.interceptors import (
    AfterCall,
    BeforeCall,
    CallInterceptor,
    CreateInterceptor,
    Decision,
    InterceptedCall,
    Interceptor,
    InterceptorRecord,
    InterceptorSetup,
    Verdict,
)
from hermes_core.plugins.sampling_backend import Completer, ModelLister
from hermes_core.plugins.settings_model import SettingsModel

if TYPE_CHECKING:
    import httpx2
    from mcp.client._transport import ReadStream, WriteStream
    from mcp.shared.message import SessionMessage

    from hermes_core.config.client_cert import ClientCertificate
    from hermes_platform.host.gpu import GpuProbe
    from hermes_platform.resolver.locating import AppLocation, LocateContext, LocationKind
    from hermes_platform.resolver.observation import Observation
    from hermes_platform.resolver.versions import VersionReader, VersionSource

# The platform's types are imported on first use (PEP 562): the host (``MCPHost``) needs this
# module's transport and auth types, not the app readers behind these (plistlib, xml, PE).
_PLATFORM = {
    "GpuProbe": "hermes_platform.host.gpu",
    "AppLocation": "hermes_platform.resolver.locating",
    "LocateContext": "hermes_platform.resolver.locating",
    "LocationKind": "hermes_platform.resolver.locating",
    "Observation": "hermes_platform.resolver.observation",
    "VersionReader": "hermes_platform.resolver.versions",
    "VersionSource": "hermes_platform.resolver.versions",
}


def __getattr__(name: str) -> object:
    module = _PLATFORM.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PLATFORM))


__all__ = [
    "AfterCall",
    "AppDeclaration",
    "AppLocation",
    "AuthContext",
    "AuthProviderSpec",
    "BeforeCall",
    "CallInterceptor",
    "CatalogManifest",
    "Connect",
    "CreateAuth",
    "CreateInterceptor",
    "Decision",
    "GpuProbe",
    "InterceptedCall",
    "Interceptor",
    "InterceptorRecord",
    "InterceptorSetup",
    "LocateContext",
    "LocationKind",
    "MessagingAdapter",
    "MessagingAdapterFactory",
    "MessagingChannel",
    "MessagingPlatform",
    "Observation",
    "SamplingProvider",
    "SendReceipt",
    "ServerSpec",
    "SettingsModel",
    "TransportSpec",
    "TransportStreams",
    "Verdict",
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
    app: object = field(default=None, hash=False)
    """The ``app:`` mapping (or ``None``), as written: the parser checks its shape."""
    requires: object = field(default=None, hash=False)
    """The ``requires:`` mapping (or ``None``), as written."""
    where: str = ""
    display_name: str | None = None
    key_line: Callable[[str], int | None] | None = field(default=None, compare=False, repr=False)
    """Maps a key path (``app.linux.location[0]``) to its line in ``where``, for errors."""


# --------------------------------------------------------------------------- settings


# SettingsModel: hermes_core.plugins.settings_model (re-exported here).


# --------------------------------------------------------------------------- transports

TransportStreams: TypeAlias = (
    "tuple[ReadStream[SessionMessage | Exception], WriteStream[SessionMessage]]"
)
"""``(read, write)``: the two streams an ``mcp`` SDK transport yields (a stream of
``SessionMessage | Exception`` and one accepting ``SessionMessage``), exactly what
``mcp.client.stdio.stdio_client`` or ``streamable_http_client`` yield (the SDK's
``mcp.client.Transport`` is a context manager yielding them).  A name for type checkers:
the SDK is not imported with this module."""


class ServerSpec(Protocol):
    """One configured server as a transport's ``connect`` sees it (every ``${VAR}`` resolved).

    The host passes a :class:`hermes_core.host.host.HostServer`; a transport reads only what
    its shape needs.  ``options`` holds the entry's keys that belong to plugins: the value
    under the selected transport's ``config_key`` (``options["socket"]`` for
    ``socket: /run/x.sock``) and the selected auth provider's settings.
    """

    @property
    def name(self) -> str: ...
    @property
    def transport(self) -> str: ...
    @property
    def command(self) -> str | None: ...
    @property
    def args(self) -> list[str]: ...
    @property
    def env(self) -> dict[str, str]: ...
    @property
    def cwd(self) -> str | None: ...
    @property
    def url(self) -> str | None: ...
    @property
    def headers(self) -> dict[str, str]: ...
    @property
    def connect_timeout(self) -> float:
        """Seconds the transport may take to open the connection (bound your connect by it:
        ``anyio.fail_after(spec.connect_timeout)``)."""
        ...

    @property
    def timeout(self) -> float:
        """Seconds one tool call to the server may take (the host bounds each call by it)."""
        ...

    @property
    def auth(self) -> httpx2.Auth | None:
        """An ``httpx2.Auth`` for an HTTP server (``auth: oauth``, an auth provider's), or None."""
        ...

    @property
    def max_message_bytes(self) -> int:
        """The largest message to accept from the server (a stdio line, an SSE event, an
        HTTP body), in bytes; a transport fails the connection past it."""
        ...

    @property
    def client_certificate(self) -> ClientCertificate | None:
        """The client certificate (mTLS) to present to an HTTPS server, if configured."""
        ...

    @property
    def options(self) -> Mapping[str, object]: ...


class Connect(Protocol):
    """A transport's ``connect``: open the connection to one server.

    Called with the server's :class:`ServerSpec` and *errlog*, a text stream for what the
    server or the transport says on the side (a child's stderr; the host shows its tail
    when the connection fails).  Returns an async context manager that yields the SDK's
    :data:`TransportStreams` while the connection is open and closes everything it opened
    (child processes included) on exit.  Raise ``ValueError`` for an entry it cannot use
    and ``OSError`` when the peer cannot be reached: the server is reported as failed
    with that message and the other servers are not affected.  Import heavy libraries
    inside it, not at module level.
    """

    def __call__(
        self, spec: ServerSpec, errlog: IO[str], /
    ) -> AbstractAsyncContextManager[TransportStreams]: ...


@dataclass(frozen=True)
class TransportSpec:
    """A way to reach an MCP server: ``transport: <name>`` in a server entry selects it.

    ``config_key`` is the ``mcp_servers.<server>`` key that selects it without a
    ``transport:`` line (``command`` → ``stdio``, ``url`` → ``streamable_http``); when
    several transports share a key, the first registered is the one the key selects and
    the others are chosen by name (``transport: sse``).  The key's value reaches
    ``connect`` as ``spec.options[config_key]`` (``${VAR}`` resolved).  ``connect``
    (a :class:`Connect`) opens the connection; a transport without one is not registered.
    """

    name: str
    config_key: str
    description: str = ""
    connect: Connect | None = field(default=None, compare=False)
    provider: str = "hermes_core"
    settings: type[SettingsModel] | None = field(default=None, compare=False)
    """A pydantic model of the value under ``config_key``, checked when ``config.yaml`` is
    read (file:line, did-you-mean): a mapping is validated as the model's fields, a single
    value (``socket: /run/x.sock``) as its first field.  Fields typed ``SecretStr`` (or with
    ``json_schema_extra={"secret": True}``) are masked in ``hermes mcp list``; the others are
    shown.  ``None``: the value is not checked and always masked."""


# --------------------------------------------------------------------------- auth


@dataclass(frozen=True)
class AuthContext:
    """What an auth provider's ``create`` is given for one server entry."""

    server: str
    """The server's name under ``mcp_servers``."""
    url: str
    """The server's URL (``${VAR}`` resolved); empty for a server without one (a provider
    declaring ``stdio``)."""
    settings: Mapping[str, object] = field(default_factory=dict, repr=False)
    """The entry's mapping under the provider's name (``vault_token: {...}`` for
    ``auth: vault_token``; ``oauth: {...}`` for ``auth: oauth``), every string in it
    ``${VAR}``-resolved; empty when the entry has none.  May hold secrets: never log it."""
    home: Path = field(default_factory=Path)
    """``$HERMES_HOME``: where a provider may keep state (tokens), mode 0600 files."""
    interactive: bool = False
    """Whether a person at a terminal can take part (a browser login)."""
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    """The environment the server entry was resolved with."""


class CreateAuth(Protocol):
    """An auth provider's ``create``: the ``httpx2.Auth`` that authorises one server's requests.

    Called once per connection attempt of a server whose entry says ``auth: <name>``, with
    its :class:`AuthContext`.  Returns an ``httpx2.Auth`` (its ``auth_flow`` adds headers,
    answers challenges, refreshes tokens), or ``None`` when the entry's own ``headers`` are
    all it needs.  For a server without a URL (only with ``AuthProviderSpec.stdio``;
    ``context.url`` is empty), it returns a ``Mapping[str, str]`` of environment variables
    the server's process gets on top of its ``env:`` (or ``None``).  Raise ``ValueError``
    for bad settings: the message (name the key, never the value) is shown as the server's
    error and the server does not connect.
    """

    def __call__(self, context: AuthContext, /) -> httpx2.Auth | Mapping[str, str] | None: ...


@dataclass(frozen=True)
class AuthProviderSpec:
    """An auth scheme for HTTP servers, selected by ``auth: <name>`` in a server entry.

    Its settings live under the entry's key of the same name; ``create`` (a
    :class:`CreateAuth`) turns them into the ``httpx2.Auth`` used for every request to the
    server.  A provider without ``create`` is not registered.

    ``stdio=True`` declares that it also serves servers not reached by URL (``command:``
    servers, and plugin transports keyed on another key): for those, ``create`` is called
    with ``context.url == ""`` and returns a mapping of environment variables for the
    server's process (or ``None``).  ``auth:`` naming a provider without it on such a server
    is a config error (file:line): there is no HTTP request for it to authorise.
    """

    name: str
    description: str = ""
    create: CreateAuth | None = field(default=None, compare=False)
    provider: str = "hermes_core"
    stdio: bool = False
    """Also for servers without a URL: ``create`` returns the process's extra environment."""
    settings: type[SettingsModel] | None = field(default=None, compare=False)
    """A pydantic model of the mapping under the provider's name, checked when
    ``config.yaml`` is read: an unknown key is an error with a did-you-mean, a missing
    required field (or a missing block, when a field is required) an error at its line.
    ``SecretStr`` fields (or ``json_schema_extra={"secret": True}``) are masked in ``hermes
    mcp list``, the others shown.  ``create`` still gets the mapping in
    ``context.settings`` (``${VAR}`` resolved): ``Model.model_validate(context.settings)``.
    ``None``: the settings are not checked and always masked."""


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

    def __call__(self, name: str, settings: Mapping[str, object]) -> MessagingAdapter: ...


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


@dataclass(frozen=True)
class SamplingProvider:
    """A named LLM backend that answers MCP servers' sampling requests.

    ``models`` lists what it can run (:class:`~hermes_core.sampling.backend.ModelLister`);
    ``complete`` runs one completion (:class:`~hermes_core.sampling.backend.Completer`).
    Config selects a backend with ``sampling.backend: <name>`` (default: every backend, in
    load order) and a model by one of the names ``models`` lists.
    """

    name: str
    models: ModelLister = field(repr=False)
    complete: Completer = field(repr=False)
    description: str = ""
    provider: str = "hermes_core"
    settings: type[SettingsModel] | None = field(default=None, compare=False)
    """A pydantic model of the backend's settings: the mapping under
    ``sampling_backends.<name>`` at the top of ``config.yaml`` (``${VAR}`` expanded), checked
    when the file is read (file:line, did-you-mean).  ``complete`` finds the validated model in
    ``request.settings`` (``None`` when the file has no block for it)."""
