"""The shape of ``config.yaml``'s ``mcp_servers``: pydantic models, errors and warnings.

Every value a user can get wrong is checked by a validator of ours, so each
problem carries a plain sentence ("must be a number of seconds (got a list)")
and the key path it belongs to; the loader adds the file and the line.  No
message ever quotes a configured value: header values, ``env`` values and key
passphrases are secrets, and the ``repr`` of a model hides them as well.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from datetime import date
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from hermes_core.config.elicitation import ElicitationConfig
from hermes_core.config.kinds import ServerKinds
from hermes_core.config.oauth import OAuthConfig
from hermes_core.config.redact import shown_args
from hermes_core.config.roots import RootConfig, parse_roots
from hermes_core.config.sampling import SamplingConfig
from hermes_core.yaml_lines import _line_of

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_KEEPALIVE_INTERVAL",
    "DEFAULT_TOOL_TIMEOUT",
    "SERVER_NAME",
    "BreakerConfig",
    "ConfigConflict",
    "ConfigError",
    "ConfigWarning",
    "HermesConfig",
    "IdentityHeader",
    "ServerConfig",
    "ToolsConfig",
    "Transport",
]

#: Per tool-call timeout when neither the server nor ``timeouts.mcp.tool_call`` sets one.
DEFAULT_TOOL_TIMEOUT = 300.0
#: Bound on connecting, the ``initialize`` handshake and discovery of one server.
DEFAULT_CONNECT_TIMEOUT = 60.0

#: Seconds of silence after which a connected server is probed (``keepalive_interval``).
DEFAULT_KEEPALIVE_INTERVAL = 180.0
#: The shortest keepalive interval; shorter values are raised to it (with a warning).
MIN_KEEPALIVE_INTERVAL = 5.0

#: A server name: it becomes part of tool names and of ``mcp-tokens/<server>.json``.
SERVER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")

Transport = Literal["stdio", "streamable_http", "sse"]
"""The built-in transports' names (a plugin's transport may be selected as well)."""

_REDACTED = "***"
DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024
MIN_MESSAGE_BYTES = 4096
MAX_MESSAGE_BYTES = 1024 * 1024 * 1024
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})
_HTTP_ONLY = ("headers", "client_cert", "client_key", "oauth")


# --------------------------------------------------------------------------- errors


class ConfigError(ValueError):
    """A configuration that cannot be used: ``<file>:<line>: <key>: <what is wrong>``.

    ``path``/``line`` are absent when the problem has no place in a file (a
    value resolved at connect time, an entry passed to ``add_server``).  When
    several problems were found, this one is the first and ``more`` holds the
    rest.
    """

    def __init__(
        self,
        reason: str,
        *,
        path: str | None = None,
        line: int | None = None,
        key: str = "",
        more: tuple[ConfigError, ...] = (),
        plugin: bool = False,
    ) -> None:
        location = f"{path}:{line}" if path and line else path
        super().__init__(": ".join(part for part in (location, key, reason) if part))
        self.reason = reason
        self.path = path
        self.line = line
        self.key = key
        self.more = more
        self.plugin = plugin
        """A problem a plugin that is not loaded could explain (an unknown name or key)."""

    @property
    def all(self) -> tuple[ConfigError, ...]:
        """This problem followed by every other one found in the same pass."""
        return (self, *self.more)


class ConfigConflict(ConfigError):
    """Another program changed the same part of the file while an edit was being made."""


class ConfigWarning:
    """Something in the configuration that is ignored or suspicious, but not fatal."""

    __slots__ = ("key", "line", "message", "path")

    def __init__(
        self, message: str, *, path: str | None = None, line: int | None = None, key: str = ""
    ) -> None:
        self.message = message
        self.path = path
        self.line = line
        self.key = key

    def __str__(self) -> str:
        location = f"{self.path}:{self.line}" if self.path and self.line else self.path
        return ": ".join(part for part in (location, self.key, self.message) if part)

    def __repr__(self) -> str:
        return f"ConfigWarning({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConfigWarning) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


# --------------------------------------------------------------------------- helpers


def _fail(reason: str, *sub: str | int) -> PydanticCustomError:
    """A validation error with our own sentence; ``sub`` extends the key path."""
    return PydanticCustomError("hermes_config", "{reason}", {"reason": reason, "sub": sub})


def _fail_plugin(reason: str, *sub: str | int) -> PydanticCustomError:
    """An error a plugin that is not loaded could explain (an unknown transport, auth
    provider or key): with plugins off, only that server is left out."""
    return PydanticCustomError(
        "hermes_config", "{reason}", {"reason": reason, "sub": sub, "plugin": True}
    )


def kind_of(value: Any) -> str:
    """What a YAML value is, in words, without showing it."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple | set):
        return "a list"
    if isinstance(value, date):
        return "a date"
    return type(value).__name__


def scalar_text(value: Any) -> str | None:
    """A scalar as the text a user meant (``8080`` → ``"8080"``); ``None`` for non-scalars."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return None


def url_problem(url: str) -> str | None:
    """Why *url* cannot be an MCP endpoint, or ``None``.  Never quotes the URL."""
    if not url.strip():
        return "must not be empty"
    try:
        parts = urlsplit(url.strip())
        hostname = parts.hostname
    except ValueError:
        return "is not a valid URL"
    if parts.scheme.lower() not in ("http", "https"):
        shown = f" (got {parts.scheme!r})" if parts.scheme.isalnum() else ""
        return f"must start with http:// or https://{shown}"
    if not hostname:
        return "has no host name"
    return None


def _boolish(value: Any, default: bool) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise _fail(f"must be true or false (got {kind_of(value)})")


def _seconds(value: Any, default: float, *, zero_ok: bool) -> float:
    if value is None:
        return default
    number: float
    if isinstance(value, bool):
        raise _fail("must be a number of seconds (got true/false)")
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise _fail("must be a number of seconds (got text)") from None
    else:
        raise _fail(f"must be a number of seconds (got {kind_of(value)})")
    if not math.isfinite(number):
        raise _fail("must be a finite number of seconds")
    if zero_ok and number < 0:
        raise _fail("must be 0 (off) or a positive number of seconds")
    if not zero_ok and number <= 0:
        raise _fail("must be a positive number of seconds")
    return number


def _string_list(value: Any, what: str) -> list[str]:
    if not isinstance(value, list | tuple):
        raise _fail(f"must be a list of {what} (got {kind_of(value)})")
    items: list[str] = []
    for index, item in enumerate(value):
        text = scalar_text(item)
        if text is None:
            raise _fail(f"must be text (got {kind_of(item)})", index)
        items.append(text)
    return items


def _string_map(value: Any, *, headers: bool) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _fail(f"must be a mapping of NAME: value (got {kind_of(value)})")
    result: dict[str, str] = {}
    for key, item in value.items():
        if not isinstance(key, str) or not key:
            raise _fail(f"names must be non-empty text (got {kind_of(key)})")
        if headers and not _HEADER_NAME.fullmatch(key):
            raise _fail(f"{key!r} is not a valid HTTP header name", key)
        if not headers and ("=" in key or "\0" in key):
            raise _fail(f"{key!r} is not a valid environment variable name", key)
        text = scalar_text(item)
        if text is None:
            raise _fail(f"must be text (got {kind_of(item)})", key)
        if "${" not in text:
            problem = value_problem(text, header=headers)
            if problem:
                raise _fail(problem, key)
        result[key] = text
    return result


def value_problem(text: str, *, header: bool) -> str | None:
    """Why *text* cannot be sent as a header value / passed to a process, or ``None``."""
    if "\0" in text:
        return "contains a NUL character"
    if header and ("\r" in text or "\n" in text):
        return "contains a line break"
    if header and text != text.strip():
        # HTTP libraries refuse such a value with an error that quotes it (a secret).
        return "has leading or trailing whitespace (remove it; the value is not shown)"
    return None


def display_url(url: str) -> str:
    """A URL for display: credentials and the query (often an API key) hidden."""
    return _redact_url(url)


def _redact_url(url: str) -> str:
    """A URL for display: credentials and the query (often an API key) hidden."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return _REDACTED
    authority, slash, path = rest.partition("/")
    if "@" in authority:
        authority = _REDACTED + "@" + authority.rsplit("@", 1)[1]
    shown = f"{scheme}://{authority}{slash}{path}"
    for mark in ("?", "#"):
        if mark in shown:
            shown = shown.split(mark, 1)[0] + mark + _REDACTED
    return shown


def _warn(info: ValidationInfo, message: str, *sub: str | int) -> None:
    context = info.context
    if isinstance(context, dict):
        sink = context.get("warnings")
        if isinstance(sink, list):
            sink.append((sub, message))


def _unknown_key(key: str, known: list[str], also: Sequence[str] = ()) -> str:
    """The error for a key that no entry has: a did-you-mean (over *known* and the plugins'
    keys in *also*), else the keys there are."""
    close = difflib.get_close_matches(key, [*known, *also], n=1, cutoff=0.75)
    if close:
        return f"unknown key (did you mean {close[0]!r}?)"
    return "unknown key; the keys here are: " + ", ".join(sorted(known))


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


# --------------------------------------------------------------------------- models


class _Model(BaseModel):
    model_config = ConfigDict(
        extra="allow", frozen=True, hide_input_in_errors=True, populate_by_name=True
    )


class ToolsConfig(_Model):
    """``tools:``: which server tools register, and whether the utility tools may."""

    include: list[str] | None = None
    """Allow-list (names or case-sensitive globs). Present, even empty, wins over ``exclude``."""
    exclude: list[str] | None = None
    resources: bool = True
    """``list_resources``/``read_resource`` may register (when the server has the capability)."""
    prompts: bool = True
    """``list_prompts``/``get_prompt`` may register (when the server has the capability)."""

    @field_validator("include", "exclude", mode="before")
    @classmethod
    def _names(cls, value: Any) -> list[str] | None:
        if value is None:
            return None
        text = scalar_text(value)
        if text is not None and not isinstance(value, bool):
            return [text]
        return _string_list(value, "tool names or globs")

    @field_validator("resources", "prompts", mode="before")
    @classmethod
    def _switch(cls, value: Any) -> bool:
        return _boolish(value, True)


class BreakerConfig(_Model):
    """``circuit_breaker:``: consecutive failures that pause a server's calls, and for how long."""

    threshold: int = 3
    """Consecutive failed calls (transport errors, timeouts, error results) that open it."""
    cooldown: float = 60.0
    """Seconds the breaker stays open before one call goes through as a probe."""

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, value: Any) -> Any:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise _fail(f"must be a mapping with threshold and cooldown (got {kind_of(value)})")
        known = list(cls.model_fields)
        for key in value:
            if key not in known:
                raise _fail(_unknown_key(str(key), known), str(key))
        return value

    @field_validator("threshold", mode="before")
    @classmethod
    def _threshold(cls, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise _fail(f"must be a whole number of failures, 1 or more (got {kind_of(value)})")
        return value

    @field_validator("cooldown", mode="before")
    @classmethod
    def _cooldown(cls, value: Any) -> float:
        return _seconds(value, 60.0, zero_ok=False)


class IdentityHeader(_Model):
    """``identity_header:``: a per-user header for HTTP/SSE servers."""

    name: str
    value_from: Literal["static", "profile"] = "static"
    value: str | None = None


def parse_identity_header(raw: Any) -> tuple[IdentityHeader | None, str | None]:
    """``(header, None)`` or ``(None, why it is ignored)``; ``(None, None)`` when absent."""
    if raw is None:
        return None, None
    if isinstance(raw, IdentityHeader):
        return raw, None
    if not isinstance(raw, Mapping):
        return None, "is not a mapping"
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        return None, "is missing 'name'"
    if not _HEADER_NAME.fullmatch(name.strip()):
        return None, "has an invalid header name"
    source = raw.get("value_from")
    source = "static" if source is None else source
    if not isinstance(source, str) or source.strip().lower() not in ("static", "profile"):
        return None, "has an unknown value_from (use static or profile)"
    source = source.strip().lower()
    value = raw.get("value")
    if source == "static" and (not isinstance(value, str) or not value.strip()):
        return None, "uses value_from: static without a value"
    extra = {str(k): v for k, v in raw.items() if k not in ("name", "value_from", "value")}
    return (
        IdentityHeader(
            name=name.strip(),
            value_from="profile" if source == "profile" else "static",
            value=value if isinstance(value, str) else None,
            **extra,
        ),
        None,
    )


class ServerConfig(_Model):
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
                yield name, dict.fromkeys(value, _REDACTED)
            elif name == "client_cert" and isinstance(value, list) and len(value) == 3:
                yield name, [value[0], value[1], _REDACTED]
            elif name == "identity_header" and isinstance(value, IdentityHeader):
                yield name, {"name": value.name, "value_from": value.value_from}
            elif name == "url" and isinstance(value, str):
                yield name, _redact_url(value)
            elif name == "args" and isinstance(value, list):
                yield name, shown_args(value)
            elif name in extra:
                yield name, _REDACTED
            else:
                yield name, value

    # ----------------------------------------------------------------- fields

    @field_validator("command", "client_key", "cwd", mode="before")
    @classmethod
    def _path_text(cls, value: Any) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str):
            raise _fail(f"must be text (got {kind_of(value)})")
        if not value.strip():
            raise _fail("must not be empty")
        if "\0" in value:
            raise _fail("contains a NUL character")
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
            raise _fail('must be a list, e.g. args: ["-y", "package-name"] (got text)')
        items = _string_list(value, "arguments")
        for index, item in enumerate(items):
            if "\0" in item:
                raise _fail("contains a NUL character", index)
        return items

    @field_validator("env", mode="before")
    @classmethod
    def _env(cls, value: Any) -> dict[str, str]:
        return _string_map(value, headers=False)

    @field_validator("headers", mode="before")
    @classmethod
    def _headers(cls, value: Any) -> dict[str, str]:
        return _string_map(value, headers=True)

    @field_validator("url", mode="before")
    @classmethod
    def _url(cls, value: Any) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str):
            raise _fail(f"must be an http:// or https:// URL (got {kind_of(value)})")
        if "${" not in value:  # checked again after ${…} expansion
            problem = url_problem(value)
            if problem:
                raise _fail(problem)
        return value

    @field_validator("client_cert", mode="before")
    @classmethod
    def _client_cert(cls, value: Any) -> str | list[str] | None:
        if value is None:
            return None
        if isinstance(value, str):
            if not value.strip():
                raise _fail("must be a non-empty path")
            return value
        if not isinstance(value, list | tuple):
            raise _fail(
                f"must be a path or a list [cert, key(, passphrase)] (got {kind_of(value)})"
            )
        if len(value) not in (2, 3):
            raise _fail(f"the list form must have 2 or 3 elements (got {len(value)})")
        items: list[str] = []
        for index, item in enumerate(value):
            if not isinstance(item, str) or (index < 2 and not item.strip()):
                what = "the key passphrase" if index == 2 else "a non-empty path"
                raise _fail(f"must be {what} as text (got {kind_of(item)})", index)
            items.append(item)
        return items

    @field_validator("identity_header", mode="before")
    @classmethod
    def _identity(cls, value: Any, info: ValidationInfo) -> IdentityHeader | None:
        header, problem = parse_identity_header(value)
        if problem:
            _warn(info, f"identity_header {problem} — ignoring", "identity_header")
        return header

    @field_validator("timeout", "connect_timeout", mode="before")
    @classmethod
    def _positive_seconds(cls, value: Any, info: ValidationInfo) -> float:
        default = DEFAULT_TOOL_TIMEOUT if info.field_name == "timeout" else DEFAULT_CONNECT_TIMEOUT
        return _seconds(value, default, zero_ok=False)

    @field_validator("idle_timeout_seconds", "max_lifetime_seconds", mode="before")
    @classmethod
    def _lifecycle_seconds(cls, value: Any) -> float:
        return _seconds(value, 0.0, zero_ok=True)

    @field_validator("max_message_bytes", mode="before")
    @classmethod
    def _message_bytes(cls, value: Any) -> int:
        if value is None:
            return DEFAULT_MAX_MESSAGE_BYTES
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail(f"must be a whole number of bytes (got {kind_of(value)})")
        if not MIN_MESSAGE_BYTES <= value <= MAX_MESSAGE_BYTES:
            raise _fail(f"must be between {MIN_MESSAGE_BYTES} and {MAX_MESSAGE_BYTES} bytes")
        return value

    @field_validator("enabled", mode="before")
    @classmethod
    def _enabled(cls, value: Any) -> bool:
        return _boolish(value, True)

    @field_validator("lazy", mode="before")
    @classmethod
    def _lazy(cls, value: Any) -> bool:
        return _boolish(value, False)

    @field_validator("keepalive_interval", mode="before")
    @classmethod
    def _keepalive(cls, value: Any, info: ValidationInfo) -> float:
        seconds = _seconds(value, DEFAULT_KEEPALIVE_INTERVAL, zero_ok=True)
        if 0 < seconds < MIN_KEEPALIVE_INTERVAL:
            floor = f"{MIN_KEEPALIVE_INTERVAL:g}"
            _warn(info, f"is below the {floor} s floor; using {floor}", "keepalive_interval")
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
            raise _fail(f"must be full or untrusted (got {got})")
        return text

    @field_validator("circuit_breaker", mode="before")
    @classmethod
    def _breaker(cls, value: Any) -> Any:
        return BreakerConfig() if value is None else value

    @field_validator("supports_parallel_tool_calls", mode="before")
    @classmethod
    def _parallel(cls, value: Any) -> bool:
        return _boolish(value, False)

    @field_validator("tools", mode="before")
    @classmethod
    def _tools(cls, value: Any) -> Any:
        if value is None:
            return ToolsConfig()
        if not isinstance(value, Mapping | ToolsConfig):
            raise _fail(
                f"must be a mapping with include/exclude/resources/prompts (got {kind_of(value)})"
            )
        return value

    @field_validator("auth", mode="before")
    @classmethod
    def _auth(cls, value: Any, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str):
            raise _fail(f"must be the name of an auth scheme such as oauth (got {kind_of(value)})")
        if not value.strip():
            return None
        kinds = _kinds(info)
        name = kinds.auth_name(value)
        if name is None:
            raise _fail_plugin(kinds.unknown_auth(value))
        return name

    @field_validator("requested_transport", mode="before")
    @classmethod
    def _transport(cls, value: Any, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        kinds = _kinds(info)
        if not isinstance(value, str):
            names = ", ".join(kinds.transport_names)
            raise _fail(f"must be the name of a transport: {names} (got {kind_of(value)})")
        name = kinds.transport_name(value)
        if name is None:
            raise _fail_plugin(kinds.unknown_transport(value))
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
            raise _fail(
                f"auth: {self.auth} authorises HTTP requests, and this is a {self.transport} "
                f"server (no url); remove it, or use a provider that serves local servers "
                f"({able})",
                "auth",
            )
        if isinstance(self.client_cert, list) and self.client_key is not None:
            raise _fail(
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
                raise _fail(f"transport: {requested} needs a '{key}'", "transport")
            name = requested
        elif plugin_keys:
            chosen = [*present, *plugin_keys]
            if len(chosen) > 1:
                listed = ", ".join(f"'{k}' ({selectors[k]})" for k in chosen)
                raise _fail(
                    f"{listed} select different transports; choose one with transport: <name>",
                    plugin_keys[0],
                )
            key = plugin_keys[0]
            name = selectors[key]
        elif present:
            key = "url" if self.url is not None else "command"
            name = selectors.get(key, "")
            if not name:
                raise _fail(kinds.unknown_transport(key))
        else:
            others = [k for k in selectors if k not in ("command", "url")]
            extra_keys = "".join(f", or '{k}' ({selectors[k]})" for k in others)
            raise _fail_plugin(
                f"needs either 'command' (a stdio server) or 'url' (an HTTP server){extra_keys}"
            )
        self._selected = (name, key)
        owned = [key] if key in extra else []
        if self.auth is not None:
            settings = extra.get(self.auth)
            if self.auth in extra:
                if not isinstance(settings, Mapping):
                    raise _fail(
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
                _warn(info, reason, key)
            else:
                # Fail closed: a misspelt key (trsut:, heders:) must never leave a server
                # running without what the user asked for.
                raise _fail_plugin(_unknown_key(key, known, list(belongs)), key)
        for key in self.tools.model_extra or {}:
            raise _fail(_unknown_key(key, list(ToolsConfig.model_fields)), "tools", key)
        if self.identity_header is not None:
            for key in self.identity_header.model_extra or {}:
                _warn(info, "unknown key; ignored", "identity_header", key)
        stdio = not self.uses_url
        if self.url is not None and self.command is not None:
            if stdio:
                _warn(info, f"ignored because transport: {self.transport} uses 'command'", "url")
            else:
                _warn(
                    info,
                    "both 'url' and 'command' are set; using the HTTP transport ('url'). "
                    "Remove 'command' to silence this warning.",
                    "command",
                )
        if stdio:
            for key in _HTTP_ONLY:
                if getattr(self, key):
                    _warn(
                        info,
                        f"only applies to HTTP servers; ignored for this {self.transport} server",
                        key,
                    )
            if self.identity_header is not None:
                _warn(
                    info,
                    "identity_header is only supported on HTTP/SSE transports — ignored for "
                    "stdio servers",
                    "identity_header",
                )
        else:
            for key in ("args", "env", "cwd", "idle_timeout_seconds", "max_lifetime_seconds"):
                if getattr(self, key) and not (key in ("args", "env", "cwd") and self.command):
                    _warn(info, "only applies to stdio servers; ignored for this HTTP server", key)
        for where, text in self._strings():
            if text != text.strip():
                _warn(info, "value has hidden leading or trailing whitespace", *where)

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


class HermesConfig(_Model):
    """The whole ``config.yaml``: ``mcp_servers`` parsed, every other key kept as read."""

    mcp_servers: dict[str, ServerConfig] = Field(default_factory=dict)
    sampling: SamplingConfig | None = None
    """The host-wide ``sampling:`` defaults (a server's own ``sampling:`` keys win)."""

    def enabled_servers(self) -> dict[str, ServerConfig]:
        """The servers to connect: those without ``enabled: false``, in file order."""
        return {name: cfg for name, cfg in self.mcp_servers.items() if cfg.enabled}

    def tool_call_timeout(self, server: str) -> float:
        """Seconds for one tool call: the server's ``timeout``, else ``timeouts.mcp.tool_call``,
        else 300."""
        cfg = self.mcp_servers.get(server)
        if cfg is not None and "timeout" in cfg.model_fields_set:
            return cfg.timeout
        timeouts = (self.model_extra or {}).get("timeouts")
        mcp = timeouts.get("mcp") if isinstance(timeouts, dict) else None
        value = mcp.get("tool_call") if isinstance(mcp, dict) else None
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
        if number is not None and math.isfinite(number) and number > 0:
            return float(number)
        return cfg.timeout if cfg is not None else DEFAULT_TOOL_TIMEOUT

    def __repr_args__(self) -> Any:
        extra = self.model_extra or {}
        for name, value in super().__repr_args__():
            yield name, (_REDACTED if name in extra else value)
