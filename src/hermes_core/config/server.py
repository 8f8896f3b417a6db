"""One entry of ``mcp_servers``: :class:`ServerConfig`, its fields checked one by one, then
the transport it selects and the keys that belong to a plugin.

No message ever quotes a configured value (header values, ``env`` values and key
passphrases are secrets), and the ``repr`` hides them as well.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field, PrivateAttr, ValidationInfo, field_validator, model_validator

from hermes_core.config.breaker import BreakerConfig
from hermes_core.config.checks import fail, fail_plugin, kind_of, warn
from hermes_core.config.defaults import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_KEEPALIVE_INTERVAL,
    DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_TOOL_TIMEOUT,
    MAX_MESSAGE_BYTES,
    MIN_KEEPALIVE_INTERVAL,
    MIN_MESSAGE_BYTES,
)
from hermes_core.config.elicitation import ElicitationConfig
from hermes_core.config.identity import IdentityHeader, parse_identity_header
from hermes_core.config.kinds import ServerKinds
from hermes_core.config.model_base import ConfigModel
from hermes_core.config.oauth import OAuthConfig
from hermes_core.config.redact import shown_args
from hermes_core.config.roots import RootConfig, parse_roots
from hermes_core.config.sampling import SamplingConfig
from hermes_core.config.tools import ToolsConfig
from hermes_core.config.values import (
    REDACTED,
    boolish,
    parse_seconds,
    redact_url,
    string_list,
    string_map,
    unknown_key,
    url_problem,
)
from hermes_core.yaml_lines import _line_of

__all__ = ["ServerConfig"]

_HTTP_ONLY = ("headers", "client_cert", "client_key", "oauth")


class _Origin:
    """Where a server entry came from, for error lines at connect time.

    Location is not part of a configuration's value: two entries that differ
    only in where they were read compare equal.
    """

    __slots__ = ("node", "path")

    def __init__(self, path: str, node: Any) -> None:
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

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    """The working folder of a stdio server's process (absolute, ``~`` and ``${…}`` allowed)."""
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    client_cert: str | list[str] | None = None
    client_key: str | None = None
    identity_header: IdentityHeader | None = None
    timeout: float = DEFAULT_TOOL_TIMEOUT
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    idle_timeout_seconds: float = 0.0
    max_lifetime_seconds: float = 0.0
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    """The largest message accepted from the server (stdio line, SSE event, HTTP body)."""
    enabled: bool = True
    supports_parallel_tool_calls: bool = False
    keepalive_interval: float = DEFAULT_KEEPALIVE_INTERVAL
    """Probe a connected server after this many quiet seconds (0 turns probing off)."""
    circuit_breaker: BreakerConfig = Field(default_factory=BreakerConfig)
    trust: Literal["full", "untrusted"] = "full"
    """``untrusted``: a tool not marked read-only runs only after the user approves the call."""
    lazy: bool = False
    """Register the tools from the schema cache at start; connect on the first call."""
    tools: ToolsConfig = Field(default_factory=ToolsConfig)
    auth: str | None = None
    oauth: OAuthConfig | None = None
    """The ``oauth:`` block (settings of ``auth: oauth``); unknown keys and bad values are
    errors."""
    sampling: SamplingConfig | None = None
    """The ``sampling:`` block; unknown keys and bad values are errors."""
    elicitation: ElicitationConfig | None = None
    """The ``elicitation:`` block; unknown keys and bad values are errors."""
    roots: list[RootConfig] | None = None
    """The ``roots:`` list: folders offered to the server as MCP roots (``None``: none, and
    the ``roots`` capability is not advertised)."""
    requested_transport: str | None = Field(default=None, alias="transport")
    """The ``transport:`` key: a registered transport's name (``sse``, a plugin's)."""

    _origin: _Origin | None = PrivateAttr(default=None)
    _selected: tuple[str, str] | None = PrivateAttr(default=None)
    _plugin_keys: tuple[str, ...] = PrivateAttr(default=())

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
    def options(self) -> dict[str, Any]:
        """The entry's keys that belong to its transport or auth provider (plugin keys)."""
        extra = self.model_extra or {}
        return {key: extra[key] for key in self._plugin_keys if key in extra}

    @property
    def auth_settings(self) -> dict[str, Any]:
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
        return _line_of(self._origin.node, key_path) if key_path else None

    def with_origin(self, path: str, node: Any) -> ServerConfig:
        """Record where this entry was read (used by the loader)."""
        self._origin = _Origin(path, node)
        return self

    def __repr_args__(self) -> Any:
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
                yield name, REDACTED
            else:
                yield name, value

    # ----------------------------------------------------------------- fields

    @field_validator("command", "client_key", "cwd", mode="before")
    @classmethod
    def _path_text(cls, value: Any) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str):
            raise fail(f"must be text (got {kind_of(value)})")
        if not value.strip():
            raise fail("must not be empty")
        if "\0" in value:
            raise fail("contains a NUL character")
        return value

    @field_validator("roots", mode="before")
    @classmethod
    def _roots(cls, value: Any) -> list[RootConfig] | None:
        return parse_roots(value)

    @field_validator("args", mode="before")
    @classmethod
    def _args(cls, value: Any) -> list[str]:
        if value is None:
            return []
        if isinstance(value, str):
            raise fail('must be a list, e.g. args: ["-y", "package-name"] (got text)')
        items = string_list(value, "arguments")
        for index, item in enumerate(items):
            if "\0" in item:
                raise fail("contains a NUL character", index)
        return items

    @field_validator("env", mode="before")
    @classmethod
    def _env(cls, value: Any) -> dict[str, str]:
        return string_map(value, headers=False)

    @field_validator("headers", mode="before")
    @classmethod
    def _headers(cls, value: Any) -> dict[str, str]:
        return string_map(value, headers=True)

    @field_validator("url", mode="before")
    @classmethod
    def _url(cls, value: Any) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str):
            raise fail(f"must be an http:// or https:// URL (got {kind_of(value)})")
        if "${" not in value:  # checked again after ${…} expansion
            problem = url_problem(value)
            if problem:
                raise fail(problem)
        return value

    @field_validator("client_cert", mode="before")
    @classmethod
    def _client_cert(cls, value: Any) -> str | list[str] | None:
        if value is None:
            return None
        if isinstance(value, str):
            if not value.strip():
                raise fail("must be a non-empty path")
            return value
        if not isinstance(value, list | tuple):
            raise fail(f"must be a path or a list [cert, key(, passphrase)] (got {kind_of(value)})")
        if len(value) not in (2, 3):
            raise fail(f"the list form must have 2 or 3 elements (got {len(value)})")
        items: list[str] = []
        for index, item in enumerate(value):
            if not isinstance(item, str) or (index < 2 and not item.strip()):
                what = "the key passphrase" if index == 2 else "a non-empty path"
                raise fail(f"must be {what} as text (got {kind_of(item)})", index)
            items.append(item)
        return items

    @field_validator("identity_header", mode="before")
    @classmethod
    def _identity(cls, value: Any, info: ValidationInfo) -> IdentityHeader | None:
        header, problem = parse_identity_header(value)
        if problem:
            warn(info, f"identity_header {problem} — ignoring", "identity_header")
        return header

    @field_validator("timeout", "connect_timeout", mode="before")
    @classmethod
    def _positive_seconds(cls, value: Any, info: ValidationInfo) -> float:
        default = DEFAULT_TOOL_TIMEOUT if info.field_name == "timeout" else DEFAULT_CONNECT_TIMEOUT
        return parse_seconds(value, default, zero_ok=False)

    @field_validator("idle_timeout_seconds", "max_lifetime_seconds", mode="before")
    @classmethod
    def _lifecycle_seconds(cls, value: Any) -> float:
        return parse_seconds(value, 0.0, zero_ok=True)

    @field_validator("max_message_bytes", mode="before")
    @classmethod
    def _message_bytes(cls, value: Any) -> int:
        if value is None:
            return DEFAULT_MAX_MESSAGE_BYTES
        if isinstance(value, bool) or not isinstance(value, int):
            raise fail(f"must be a whole number of bytes (got {kind_of(value)})")
        if not MIN_MESSAGE_BYTES <= value <= MAX_MESSAGE_BYTES:
            raise fail(f"must be between {MIN_MESSAGE_BYTES} and {MAX_MESSAGE_BYTES} bytes")
        return value

    @field_validator("enabled", mode="before")
    @classmethod
    def _enabled(cls, value: Any) -> bool:
        return boolish(value, True)

    @field_validator("lazy", mode="before")
    @classmethod
    def _lazy(cls, value: Any) -> bool:
        return boolish(value, False)

    @field_validator("keepalive_interval", mode="before")
    @classmethod
    def _keepalive(cls, value: Any, info: ValidationInfo) -> float:
        seconds = parse_seconds(value, DEFAULT_KEEPALIVE_INTERVAL, zero_ok=True)
        if 0 < seconds < MIN_KEEPALIVE_INTERVAL:
            floor = f"{MIN_KEEPALIVE_INTERVAL:g}"
            warn(info, f"is below the {floor} s floor; using {floor}", "keepalive_interval")
            return MIN_KEEPALIVE_INTERVAL
        return seconds

    @field_validator("trust", mode="before")
    @classmethod
    def _trust(cls, value: Any) -> str:
        # Never a silent widening: anything but the two words is an error, not "full".
        if value is None:
            return "full"
        text = value.strip().lower() if isinstance(value, str) else None
        if text not in ("full", "untrusted"):
            got = repr(value[:40]) if isinstance(value, str) else kind_of(value)
            raise fail(f"must be full or untrusted (got {got})")
        return text

    @field_validator("circuit_breaker", mode="before")
    @classmethod
    def _breaker(cls, value: Any) -> Any:
        return BreakerConfig() if value is None else value

    @field_validator("supports_parallel_tool_calls", mode="before")
    @classmethod
    def _parallel(cls, value: Any) -> bool:
        return boolish(value, False)

    @field_validator("tools", mode="before")
    @classmethod
    def _tools(cls, value: Any) -> Any:
        if value is None:
            return ToolsConfig()
        if not isinstance(value, Mapping | ToolsConfig):
            raise fail(
                f"must be a mapping with include/exclude/resources/prompts (got {kind_of(value)})"
            )
        return value

    @field_validator("auth", mode="before")
    @classmethod
    def _auth(cls, value: Any, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str):
            raise fail(f"must be the name of an auth scheme such as oauth (got {kind_of(value)})")
        if not value.strip():
            return None
        kinds = _kinds(info)
        name = kinds.auth_name(value)
        if name is None:
            raise fail_plugin(kinds.unknown_auth(value))
        return name

    @field_validator("requested_transport", mode="before")
    @classmethod
    def _transport(cls, value: Any, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        kinds = _kinds(info)
        if not isinstance(value, str):
            names = ", ".join(kinds.transport_names)
            raise fail(f"must be the name of a transport: {names} (got {kind_of(value)})")
        name = kinds.transport_name(value)
        if name is None:
            raise fail_plugin(kinds.unknown_transport(value))
        return name

    # ----------------------------------------------------------------- whole entry

    @model_validator(mode="after")
    def _whole(self, info: ValidationInfo) -> ServerConfig:
        if self._selected is not None:
            return self  # an entry validated before (placed into a HermesConfig): keep it
        kinds = _kinds(info)
        self._select(kinds)
        if self.auth is not None and not self.uses_url and self.auth not in kinds.auth_stdio:
            # Never a silent "connected without the auth you named": there is no HTTP request
            # to authorise, so the entry says something Hermes cannot do.
            able = ", ".join(kinds.auth_stdio) or "none is registered"
            raise fail(
                f"auth: {self.auth} authorises HTTP requests, and this is a {self.transport} "
                f"server (no url); remove it, or use a provider that serves local servers "
                f"({able})",
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

    def _select(self, kinds: ServerKinds) -> None:
        """Choose the transport (by name, else by the config key present) and note which
        of the entry's other keys belong to it or to the auth provider."""
        extra = self.model_extra or {}
        present = [k for k in ("command", "url") if getattr(self, k) is not None]
        selectors = kinds.selectors()
        plugin_keys = [k for k in extra if k in selectors]
        requested = self.requested_transport
        if requested is not None:
            key = kinds.config_key(requested) or ""
            if key not in present and key not in extra:
                raise fail(f"transport: {requested} needs a '{key}'", "transport")
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

    def _warnings(self, info: ValidationInfo) -> None:
        if not isinstance(info.context, dict):
            return
        kinds = _kinds(info)
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
                raise fail_plugin(unknown_key(key, known, list(belongs)), key)
        for key in self.tools.model_extra or {}:
            raise fail(unknown_key(key, list(ToolsConfig.model_fields)), "tools", key)
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


def _kinds(info: ValidationInfo) -> ServerKinds:
    """The registered transports and auth providers this entry is validated against."""
    context = info.context
    kinds = context.get("kinds") if isinstance(context, dict) else None
    return kinds if isinstance(kinds, ServerKinds) else ServerKinds.builtin()
