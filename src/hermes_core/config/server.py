"""One entry of ``mcp_servers``: :class:`ServerConfig`, its keys (each declared with the
annotated type of :mod:`~hermes_core.config.server_fields` that checks it), then the transport
it selects, the keys that belong to a plugin and the checks of the whole entry.

No message ever quotes a configured value (header values, ``env`` values and key
passphrases are secrets), and the ``repr`` hides them as well.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from pydantic import BaseModel, Field, PrivateAttr, ValidationInfo, model_validator

from hermes_core.config.breaker import BreakerConfig
from hermes_core.config.checks import fail, fail_plugin, kind_of, warn
from hermes_core.config.defaults import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_KEEPALIVE_INTERVAL,
    DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_TOOL_TIMEOUT,
)
from hermes_core.config.elicitation import ElicitationConfig
from hermes_core.config.identity import IdentityHeader
from hermes_core.config.kinds import ServerKinds
from hermes_core.config.model_base import ConfigModel
from hermes_core.config.oauth import OAuthConfig
from hermes_core.config.redact import shown_args
from hermes_core.config.sampling import SamplingConfig
from hermes_core.config.server_fields import (
    Args,
    AuthName,
    Breaker,
    ClientCert,
    ConnectTimeout,
    EnvMap,
    FlagOff,
    FlagOn,
    HeaderMap,
    Identity,
    Interceptors,
    Keepalive,
    LifecycleSeconds,
    MessageBytes,
    PathText,
    ResultTokens,
    Roots,
    Tools,
    ToolTimeout,
    TransportName,
    Trust,
    Url,
    kinds_of,
)
from hermes_core.config.tools import ToolsConfig
from hermes_core.config.values import REDACTED, redact_url
from hermes_core.spelling import unknown_name
from hermes_core.yaml_lines import line_of
from hermes_platform import declared

__all__ = ["ServerConfig"]

_HTTP_ONLY = ("headers", "client_cert", "client_key", "oauth")


class _Origin:
    """Where a server entry came from, for error lines at connect time.

    Location is not part of a configuration's value: two entries that differ
    only in where they were read compare equal.
    """

    __slots__ = ("node", "path")

    def __init__(self, path: str, node: object) -> None:
        self.path = path
        self.node = node

    def __eq__(self, other: object) -> bool:
        return other is None or isinstance(other, _Origin)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"_Origin({self.path!r})"


class ServerConfig(ConfigModel):
    """One entry of ``mcp_servers``.

    Keys that no entry has are errors (with a did-you-mean): a misspelt key must never
    leave a server running without what the user asked for.  The settings of a plugin's
    transport or auth provider live in ``model_extra``; a key that belongs to a registered
    transport this entry does not use is a warning.  ``transport`` is derived: see
    :attr:`transport`.
    """

    command: PathText = None
    args: Args = Field(default_factory=list)
    env: EnvMap = Field(default_factory=dict)
    cwd: PathText = None
    """The working folder of a stdio server's process (absolute, ``~`` and ``${…}`` allowed)."""
    url: Url = None
    headers: HeaderMap = Field(default_factory=dict)
    client_cert: ClientCert = None
    client_key: PathText = None
    identity_header: Identity = None
    timeout: ToolTimeout = DEFAULT_TOOL_TIMEOUT
    connect_timeout: ConnectTimeout = DEFAULT_CONNECT_TIMEOUT
    idle_timeout_seconds: LifecycleSeconds = 0.0
    max_lifetime_seconds: LifecycleSeconds = 0.0
    max_message_bytes: MessageBytes = DEFAULT_MAX_MESSAGE_BYTES
    """The largest message accepted from the server (stdio line, SSE event, HTTP body)."""
    enabled: FlagOn = True
    supports_parallel_tool_calls: FlagOff = False
    keepalive_interval: Keepalive = DEFAULT_KEEPALIVE_INTERVAL
    """Probe a connected server after this many quiet seconds (0 turns probing off)."""
    circuit_breaker: Breaker = Field(default_factory=BreakerConfig)
    trust: Trust = "full"
    """``untrusted``: a tool not marked read-only runs only after the user approves the call."""
    lazy: FlagOff = False
    """Register the tools from the schema cache at start; connect on the first call."""
    always_load: FlagOff = False
    """``hermes chat``: offer this server's tools in full even when tool search is on."""
    pin: FlagOn = True
    """Pin each tool's definition when first seen and hold back a changed one until the user
    accepts it (``hermes mcp trust``); ``false`` for servers that change by design."""
    tools: Tools = Field(default_factory=ToolsConfig)
    auth: AuthName = None
    oauth: OAuthConfig | None = None
    """The ``oauth:`` block (settings of ``auth: oauth``); unknown keys and bad values are
    errors."""
    sampling: SamplingConfig | None = None
    """The ``sampling:`` block; unknown keys and bad values are errors."""
    elicitation: ElicitationConfig | None = None
    """The ``elicitation:`` block; unknown keys and bad values are errors."""
    roots: Roots = None
    """The ``roots:`` list: folders offered to the server as MCP roots (``None``: none, and
    the ``roots`` capability is not advertised)."""
    requested_transport: TransportName = Field(default=None, alias="transport")
    """The ``transport:`` key: a registered transport's name (``sse``, a plugin's)."""
    interceptors: Interceptors = Field(default_factory=list)
    """Call interceptors of this server's calls, after the host-wide ones."""
    max_result_tokens: ResultTokens = None
    """This server's result budget (``None``: the host-wide ``max_result_tokens``)."""

    _origin: _Origin | None = PrivateAttr(default=None)
    _selected: tuple[str, str] | None = PrivateAttr(default=None)
    _plugin_keys: tuple[str, ...] = PrivateAttr(default=())
    _shown: dict[str, frozenset[str] | bool] = PrivateAttr(default_factory=dict)
    """Plugin keys whose settings model says what may be shown: the fields not marked secret
    (``True``: the key's single value)."""

    # ----------------------------------------------------------------- derived

    @property
    def transport(self) -> str:
        """The selected transport: ``transport:`` if given, else the one whose config key
        the entry holds (``url`` → ``streamable_http``, ``command`` → ``stdio``, a plugin
        transport's key → that transport).

        With both ``url`` and ``command`` the server is HTTP (a warning says
        ``command`` is ignored), unless ``transport: stdio`` asks otherwise.
        """
        if self._selected is not None:
            return self._selected[0]
        if self.requested_transport == "stdio" or self.url is None:
            return "stdio"
        return "sse" if self.requested_transport == "sse" else "streamable_http"

    @property
    def uses_url(self) -> bool:
        """Whether the selected transport reaches the server by its ``url`` (HTTP, SSE, or
        a plugin transport keyed on ``url``): only then do headers, TLS and auth apply."""
        key = self._selected[1] if self._selected is not None else None
        if key is None:
            return self.transport != "stdio"
        return key == "url" and self.url is not None

    @property
    def options(self) -> dict[str, object]:
        """The entry's keys that belong to its transport or auth provider (plugin keys)."""
        extra = self.model_extra or {}
        return {key: extra[key] for key in self._plugin_keys if key in extra}

    def shown_options(self) -> dict[str, object]:
        """:attr:`options` as ``hermes mcp list`` shows them: what a settings model marks
        secret (or, for a plugin without a model, every value) replaced by ``***``."""
        return {key: self._masked(key, value) for key, value in self.options.items()}

    @property
    def auth_settings(self) -> dict[str, object]:
        """The settings of the selected auth provider: the mapping under its name."""
        if self.auth is None:
            return {}
        if self.auth in type(self).model_fields:
            value = getattr(self, self.auth)
        else:
            value = (self.model_extra or {}).get(self.auth)
        if isinstance(value, BaseModel):  # oauth: the keys as written, every ${VAR} resolved
            return value.model_dump(exclude_unset=True)
        return dict(value) if isinstance(value, Mapping) else {}

    @property
    def source(self) -> str | None:
        """The file this entry was read from, if it was read from one."""
        return self._origin.path if self._origin is not None else None

    def line_of(self, key_path: str) -> int | None:
        """The 1-based line of *key_path* (``env.TOKEN``, ``args[1]``) in its file."""
        if self._origin is None or self._origin.node is None:
            return None
        return line_of(self._origin.node, key_path) if key_path else None

    def with_origin(self, path: str, node: object) -> ServerConfig:
        """Record where this entry was read (used by the loader)."""
        self._origin = _Origin(path, node)
        return self

    def __repr_args__(self) -> Iterator[tuple[str | None, object]]:
        extra = self.model_extra or {}
        for name, value in super().__repr_args__():
            if name in ("env", "headers") and isinstance(value, dict):
                yield name, dict.fromkeys(value, REDACTED)
            elif name == "client_cert" and isinstance(value, list) and len(value) == 3:
                yield name, [value[0], value[1], REDACTED]
            elif name == "identity_header" and isinstance(value, IdentityHeader):
                yield name, {"name": value.name, "value_from": value.value_from}
            elif name == "url" and isinstance(value, str):
                yield name, redact_url(value)
            elif name == "args" and isinstance(value, list):
                yield name, shown_args(value)
            elif name in extra:
                yield name, self._masked(name, value)
            else:
                yield name, value

    def _masked(self, key: str, value: object) -> object:
        """A plugin key's value with what its settings model marks secret (or, without a
        model, everything) replaced."""
        shown = self._shown.get(key)
        if shown is True:
            return value
        if isinstance(shown, frozenset) and isinstance(value, Mapping):
            return {k: (v if k in shown else REDACTED) for k, v in value.items()}
        return REDACTED

    # ----------------------------------------------------------------- whole entry

    @model_validator(mode="after")
    def _whole(self, info: ValidationInfo) -> ServerConfig:
        if self._selected is not None:
            return self  # an entry validated before (placed into a HermesConfig): keep it
        kinds = kinds_of(info)
        context = info.context if isinstance(info.context, dict) else {}
        self._select(kinds, str(context.get("name", "")))
        if self.auth is not None and not self.uses_url and self.auth not in kinds.auth_stdio:
            # Never a silent "connected without the auth you named": there is no HTTP request
            # to authorise, so the entry says something Hermes cannot do.
            able = ", ".join(kinds.auth_stdio) or "none is registered"
            raise fail(
                f"auth: {self.auth} authorises HTTP requests, and this server has no url "
                f"(transport {self.transport}); remove it, or use a provider that serves local "
                f"servers ({able})",
                "auth",
            )
        if isinstance(self.client_cert, list) and self.client_key is not None:
            raise fail(
                "specify either client_cert as a list [cert, key] or client_cert + client_key, "
                "not both",
                "client_key",
            )
        self._warnings(info)
        return self

    def _select(self, kinds: ServerKinds, server: str = "") -> None:
        """Choose the transport (by name, else by the config key present) and note which
        of the entry's other keys belong to it or to the auth provider."""
        extra = self.model_extra or {}
        present = [k for k in ("command", "url") if getattr(self, k) is not None]
        selectors = kinds.selectors()
        plugin_keys = [k for k in extra if k in selectors]
        requested = self.requested_transport
        if requested is not None:
            key = kinds.config_key(requested) or ""
            if key not in present and key not in extra and requested in extra:
                # Its settings under the transport's own name (as an auth provider's are):
                # they belong under its config key, where its connect reads them.
                extra[key] = extra.pop(requested)
            if key not in present and key not in extra:
                shape = kinds.settings_of("transport", requested)
                if shape is None or shape.required:
                    needs = f" (required: {', '.join(shape.required)})" if shape else ""
                    raise fail(f"transport: {requested} needs a '{key}'{needs}", "transport")
                # Every setting has a default: the name alone selects it, with no settings.
                extra[key] = {}
            name = requested
        elif plugin_keys:
            chosen = [*present, *plugin_keys]
            if len(chosen) > 1:
                listed = ", ".join(f"'{k}' ({selectors[k]})" for k in chosen)
                raise fail(
                    f"{listed} select different transports; choose one with transport: <name>",
                    plugin_keys[0],
                )
            key = plugin_keys[0]
            name = selectors[key]
        elif present:
            key = "url" if self.url is not None else "command"
            name = selectors.get(key, "")
            if not name:
                raise fail(kinds.unknown_transport(key))
        elif _served_by_app(server):
            # A desktop app's server: the host connects where the running app serves (its
            # runtime file), over Streamable HTTP; nothing to connect to while it is not running.
            key, name = "url", "streamable_http"
        else:
            others = [k for k in selectors if k not in ("command", "url")]
            extra_keys = "".join(f", or '{k}' ({selectors[k]})" for k in others)
            raise fail_plugin(
                f"needs either 'command' (a stdio server) or 'url' (an HTTP server){extra_keys}"
            )
        self._selected = (name, key)
        owned = [key] if key in extra else []
        if self.auth is not None:
            settings = extra.get(self.auth)
            if self.auth in extra:
                if not isinstance(settings, Mapping):
                    raise fail(
                        f"must be a mapping of settings for auth: {self.auth} "
                        f"(got {kind_of(settings)})",
                        self.auth,
                    )
                owned.append(self.auth)
        self._plugin_keys = tuple(owned)
        self._check_settings(kinds, name, key)

    def _check_settings(self, kinds: ServerKinds, transport: str, key: str) -> None:
        """The plugin settings against their models (``TransportSpec.settings``,
        ``AuthProviderSpec.settings``): errors at their keys, as for the built-in keys."""
        extra = self.model_extra or {}
        shape = kinds.settings_of("transport", transport)
        if shape is not None and key in extra:
            value = extra[key]
            scalar = not isinstance(value, Mapping)
            settings = shape.as_mapping(value)
            if not isinstance(settings, Mapping):
                raise fail(f"must be a mapping of settings (got {kind_of(value)})", key)
            problem = shape.problem(settings)
            if problem is not None:
                where, reason = problem
                raise fail(f"{reason} (settings of transport {transport})", key, *where[scalar:])
            first = shape.fields[0] if shape.fields else None
            self._shown[key] = (first is not None and not first.secret) if scalar else shape.shown()
        if self.auth is None or self.auth in type(self).model_fields:
            return
        shape = kinds.settings_of("auth", self.auth)
        if shape is None:
            return
        settings = extra.get(self.auth)
        if settings is None:
            if shape.required:
                raise fail(
                    f"auth: {self.auth} needs its settings under '{self.auth}:' "
                    f"(required: {', '.join(shape.required)})",
                    "auth",
                )
            return
        problem = shape.problem(settings)
        if problem is not None:
            where, reason = problem
            raise fail(f"{reason} (settings of auth: {self.auth})", self.auth, *where)
        self._shown[self.auth] = shape.shown()

    def _warnings(self, info: ValidationInfo) -> None:
        if not isinstance(info.context, dict):
            return
        kinds = kinds_of(info)
        known = [f.alias or name for name, f in type(self).model_fields.items()]
        belongs = {key: f"transport {name}" for key, name in reversed(kinds.transports)}
        belongs.update((name, f"auth: {name}") for name in kinds.auth if name not in known)
        for key in self.model_extra or {}:
            if key in self._plugin_keys:
                continue
            if key in belongs:
                reason = f"belongs to {belongs[key]}, which this entry does not use; ignored"
                warn(info, reason, key)
            else:
                # Fail closed: a misspelt key (trsut:, heders:) must never leave a server
                # running without what the user asked for.
                raise fail_plugin(unknown_name(key, known, also=belongs), key)
        for key in self.tools.model_extra or {}:
            raise fail(unknown_name(key, ToolsConfig.model_fields), "tools", key)
        if self.identity_header is not None:
            for key in self.identity_header.model_extra or {}:
                warn(info, "unknown key; ignored", "identity_header", key)
        stdio = not self.uses_url
        if self.url is not None and self.command is not None:
            if stdio:
                warn(info, f"ignored because transport: {self.transport} uses 'command'", "url")
            else:
                warn(
                    info,
                    "both 'url' and 'command' are set; using the HTTP transport ('url'). "
                    "Remove 'command' to silence this warning.",
                    "command",
                )
        if stdio:
            for key in _HTTP_ONLY:
                if getattr(self, key):
                    warn(
                        info,
                        f"only applies to HTTP servers; ignored for this {self.transport} server",
                        key,
                    )
            if self.identity_header is not None:
                warn(
                    info,
                    "identity_header is only supported on HTTP/SSE transports — ignored for "
                    "stdio servers",
                    "identity_header",
                )
        else:
            for key in ("args", "env", "cwd", "idle_timeout_seconds", "max_lifetime_seconds"):
                if getattr(self, key) and not (key in ("args", "env", "cwd") and self.command):
                    warn(info, "only applies to stdio servers; ignored for this HTTP server", key)
        for where, text in self._strings():
            if text != text.strip():
                warn(info, "value has hidden leading or trailing whitespace", *where)

    def _strings(self) -> Iterator[tuple[tuple[str | int, ...], str]]:
        if self.command is not None:
            yield ("command",), self.command
        if self.url is not None:
            yield ("url",), self.url
        for index, arg in enumerate(self.args):
            yield ("args", index), arg
        if self.cwd is not None:
            yield ("cwd",), self.cwd
        for name, value in self.env.items():
            yield ("env", name), value
        for name, value in self.headers.items():
            yield ("headers", name), value


def _served_by_app(server: str) -> bool:
    """Whether *server*'s registered app declaration says where the running app serves MCP
    (``liveness`` for some OS): its entry then needs neither ``command`` nor ``url``."""
    decl = declared.lookup(server) if server else None
    if decl is None or decl.app is None:
        return False
    return any(app.liveness_kind == "server_json" for _os, app in decl.app.blocks)
