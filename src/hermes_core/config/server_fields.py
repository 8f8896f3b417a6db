"""The fields of a ``mcp_servers`` entry, each checked by a validator of ours: the plain
sentence of every problem names no value (header values, ``env`` values and key passphrases
are secrets).  ``transport:`` and ``auth:`` are checked against the kinds in the validation
context (default: :data:`~hermes_core.config.kinds.BUILTIN_KINDS`).

:class:`~hermes_core.config.server.ServerConfig` adds what is derived from them and the
checks of the whole entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator

from hermes_core.config.breaker import BreakerConfig
from hermes_core.config.call_settings import interceptor_names, result_tokens
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
from hermes_core.config.roots import RootConfig, parse_roots
from hermes_core.config.sampling import SamplingConfig
from hermes_core.config.tools import ToolsConfig
from hermes_core.config.values import (
    boolish,
    parse_seconds,
    string_list,
    string_map,
    url_problem,
)

__all__ = ["ServerFields", "kinds_of"]


class ServerFields(ConfigModel):
    """The keys of a server entry, with their defaults and checks."""

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
    always_load: bool = False
    """``hermes chat``: offer this server's tools in full even when tool search is on."""
    pin: bool = True
    """Pin each tool's definition when first seen and hold back a changed one until the user
    accepts it (``hermes mcp trust``); ``false`` for servers that change by design."""
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
    interceptors: list[str] = Field(default_factory=list)
    """Call interceptors of this server's calls, after the host-wide ones."""
    max_result_tokens: int | None = None
    """This server's result budget (``None``: the host-wide ``max_result_tokens``)."""

    @field_validator("interceptors", mode="before")
    @classmethod
    def _interceptors(cls, value: object) -> list[str]:
        return interceptor_names(value)

    @field_validator("max_result_tokens", mode="before")
    @classmethod
    def _result_tokens(cls, value: object) -> int | None:
        return result_tokens(value)

    @field_validator("command", "client_key", "cwd", mode="before")
    @classmethod
    def _path_text(cls, value: object) -> str | None:
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
    def _roots(cls, value: object) -> list[RootConfig] | None:
        return parse_roots(value)

    @field_validator("args", mode="before")
    @classmethod
    def _args(cls, value: object) -> list[str]:
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
    def _env(cls, value: object) -> dict[str, str]:
        return string_map(value, headers=False)

    @field_validator("headers", mode="before")
    @classmethod
    def _headers(cls, value: object) -> dict[str, str]:
        return string_map(value, headers=True)

    @field_validator("url", mode="before")
    @classmethod
    def _url(cls, value: object) -> str | None:
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
    def _client_cert(cls, value: object) -> str | list[str] | None:
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
    def _identity(cls, value: object, info: ValidationInfo) -> IdentityHeader | None:
        header, problem = parse_identity_header(value)
        if problem:
            warn(info, f"identity_header {problem} — ignoring", "identity_header")
        return header

    @field_validator("timeout", "connect_timeout", mode="before")
    @classmethod
    def _positive_seconds(cls, value: object, info: ValidationInfo) -> float:
        default = DEFAULT_TOOL_TIMEOUT if info.field_name == "timeout" else DEFAULT_CONNECT_TIMEOUT
        return parse_seconds(value, default, zero_ok=False)

    @field_validator("idle_timeout_seconds", "max_lifetime_seconds", mode="before")
    @classmethod
    def _lifecycle_seconds(cls, value: object) -> float:
        return parse_seconds(value, 0.0, zero_ok=True)

    @field_validator("max_message_bytes", mode="before")
    @classmethod
    def _message_bytes(cls, value: object) -> int:
        if value is None:
            return DEFAULT_MAX_MESSAGE_BYTES
        if isinstance(value, bool) or not isinstance(value, int):
            raise fail(f"must be a whole number of bytes (got {kind_of(value)})")
        if not MIN_MESSAGE_BYTES <= value <= MAX_MESSAGE_BYTES:
            raise fail(f"must be between {MIN_MESSAGE_BYTES} and {MAX_MESSAGE_BYTES} bytes")
        return value

    @field_validator("enabled", mode="before")
    @classmethod
    def _enabled(cls, value: object) -> bool:
        return boolish(value, True)

    @field_validator("lazy", mode="before")
    @classmethod
    def _lazy(cls, value: object) -> bool:
        return boolish(value, False)

    @field_validator("always_load", mode="before")
    @classmethod
    def _always_load(cls, value: object) -> bool:
        return boolish(value, False)

    @field_validator("pin", mode="before")
    @classmethod
    def _pin(cls, value: object) -> bool:
        return boolish(value, True)

    @field_validator("keepalive_interval", mode="before")
    @classmethod
    def _keepalive(cls, value: object, info: ValidationInfo) -> float:
        seconds = parse_seconds(value, DEFAULT_KEEPALIVE_INTERVAL, zero_ok=True)
        if 0 < seconds < MIN_KEEPALIVE_INTERVAL:
            floor = f"{MIN_KEEPALIVE_INTERVAL:g}"
            warn(info, f"is below the {floor} s floor; using {floor}", "keepalive_interval")
            return MIN_KEEPALIVE_INTERVAL
        return seconds

    @field_validator("trust", mode="before")
    @classmethod
    def _trust(cls, value: object) -> str:
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
    def _breaker(cls, value: object) -> object:
        return BreakerConfig() if value is None else value

    @field_validator("supports_parallel_tool_calls", mode="before")
    @classmethod
    def _parallel(cls, value: object) -> bool:
        return boolish(value, False)

    @field_validator("tools", mode="before")
    @classmethod
    def _tools(cls, value: object) -> object:
        if value is None:
            return ToolsConfig()
        if not isinstance(value, Mapping | ToolsConfig):
            raise fail(
                f"must be a mapping with include/exclude/resources/prompts (got {kind_of(value)})"
            )
        return value

    @field_validator("auth", mode="before")
    @classmethod
    def _auth(cls, value: object, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str):
            raise fail(f"must be the name of an auth scheme such as oauth (got {kind_of(value)})")
        if not value.strip():
            return None
        kinds = kinds_of(info)
        name = kinds.auth_name(value)
        if name is None:
            raise fail_plugin(kinds.unknown_auth(value))
        return name

    @field_validator("requested_transport", mode="before")
    @classmethod
    def _transport(cls, value: object, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        kinds = kinds_of(info)
        if not isinstance(value, str):
            names = ", ".join(kinds.transport_names)
            raise fail(f"must be the name of a transport: {names} (got {kind_of(value)})")
        name = kinds.transport_name(value)
        if name is None:
            raise fail_plugin(kinds.unknown_transport(value))
        return name


def kinds_of(info: ValidationInfo) -> ServerKinds:
    """The registered transports and auth providers this entry is validated against."""
    context = info.context
    kinds = context.get("kinds") if isinstance(context, dict) else None
    return kinds if isinstance(kinds, ServerKinds) else ServerKinds.builtin()
