"""The checks of each key of a ``mcp_servers`` entry, one function per kind of value, and the
annotated types :class:`~hermes_core.config.server.ServerConfig` declares its fields with
(``command: PathText = None``): a field's type says what is written and how it is checked.

The plain sentence of every problem names no value (header values, ``env`` values and key
passphrases are secrets).  ``transport:`` and ``auth:`` are checked against the kinds in the
validation context (default: :data:`~hermes_core.config.kinds.BUILTIN_KINDS`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

from pydantic import BeforeValidator, ValidationInfo

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
from hermes_core.config.identity import IdentityHeader, parse_identity_header
from hermes_core.config.kinds import ServerKinds
from hermes_core.config.roots import RootConfig, parse_roots
from hermes_core.config.tools import ToolsConfig
from hermes_core.config.values import (
    boolish,
    parse_seconds,
    string_list,
    string_map,
    url_problem,
)

__all__ = [
    "Args",
    "AuthName",
    "Breaker",
    "ClientCert",
    "ConnectTimeout",
    "EnvMap",
    "FlagOff",
    "FlagOn",
    "HeaderMap",
    "Identity",
    "Interceptors",
    "Keepalive",
    "LifecycleSeconds",
    "MessageBytes",
    "PathText",
    "ResultTokens",
    "Roots",
    "ToolTimeout",
    "Tools",
    "TransportName",
    "Trust",
    "Url",
    "kinds_of",
]


def _interceptors(value: object) -> list[str]:
    return interceptor_names(value)


def _result_tokens(value: object) -> int | None:
    return result_tokens(value)


def _path_text(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise fail(f"must be text (got {kind_of(value)})")
    if not value.strip():
        raise fail("must not be empty")
    if "\0" in value:
        raise fail("contains a NUL character")
    return value


def _roots(value: object) -> list[RootConfig] | None:
    return parse_roots(value)


def _args(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        raise fail('must be a list, e.g. args: ["-y", "package-name"] (got text)')
    items = string_list(value, "arguments")
    for index, item in enumerate(items):
        if "\0" in item:
            raise fail("contains a NUL character", index)
    return items


def _env(value: object) -> dict[str, str]:
    return string_map(value, headers=False)


def _headers(value: object) -> dict[str, str]:
    return string_map(value, headers=True)


def _url(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise fail(f"must be an http:// or https:// URL (got {kind_of(value)})")
    if "${" not in value:  # checked again after ${…} expansion
        problem = url_problem(value)
        if problem:
            raise fail(problem)
    return value


def _client_cert(value: object) -> str | list[str] | None:
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


def _identity(value: object, info: ValidationInfo) -> IdentityHeader | None:
    header, problem = parse_identity_header(value)
    if problem:
        warn(info, f"identity_header {problem} — ignoring", "identity_header")
    return header


def _lifecycle_seconds(value: object) -> float:
    return parse_seconds(value, 0.0, zero_ok=True)


def _message_bytes(value: object) -> int:
    if value is None:
        return DEFAULT_MAX_MESSAGE_BYTES
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(f"must be a whole number of bytes (got {kind_of(value)})")
    if not MIN_MESSAGE_BYTES <= value <= MAX_MESSAGE_BYTES:
        raise fail(f"must be between {MIN_MESSAGE_BYTES} and {MAX_MESSAGE_BYTES} bytes")
    return value


def _flag_on(value: object) -> bool:
    return boolish(value, True)


def _flag_off(value: object) -> bool:
    return boolish(value, False)


def _tool_timeout(value: object) -> float:
    return parse_seconds(value, DEFAULT_TOOL_TIMEOUT, zero_ok=False)


def _connect_timeout(value: object) -> float:
    return parse_seconds(value, DEFAULT_CONNECT_TIMEOUT, zero_ok=False)


def _keepalive(value: object, info: ValidationInfo) -> float:
    seconds = parse_seconds(value, DEFAULT_KEEPALIVE_INTERVAL, zero_ok=True)
    if 0 < seconds < MIN_KEEPALIVE_INTERVAL:
        floor = f"{MIN_KEEPALIVE_INTERVAL:g}"
        warn(info, f"is below the {floor} s floor; using {floor}", "keepalive_interval")
        return MIN_KEEPALIVE_INTERVAL
    return seconds


def _trust(value: object) -> str:
    # Never a silent widening: anything but the two words is an error, not "full".
    if value is None:
        return "full"
    text = value.strip().lower() if isinstance(value, str) else None
    if text not in ("full", "untrusted"):
        got = repr(value[:40]) if isinstance(value, str) else kind_of(value)
        raise fail(f"must be full or untrusted (got {got})")
    return text


def _breaker(value: object) -> object:
    return BreakerConfig() if value is None else value


def _tools(value: object) -> object:
    if value is None:
        return ToolsConfig()
    if not isinstance(value, Mapping | ToolsConfig):
        raise fail(
            f"must be a mapping with include/exclude/resources/prompts (got {kind_of(value)})"
        )
    return value


def _auth(value: object, info: ValidationInfo) -> str | None:
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


def _transport(value: object, info: ValidationInfo) -> str | None:
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


# -- the annotated types of the fields ---------------------------------------------------------

PathText = Annotated[str | None, BeforeValidator(_path_text)]
"""A path as text (``command``, ``cwd``, ``client_key``): not empty, no NUL."""
Args = Annotated[list[str], BeforeValidator(_args)]
EnvMap = Annotated[dict[str, str], BeforeValidator(_env)]
HeaderMap = Annotated[dict[str, str], BeforeValidator(_headers)]
Url = Annotated[str | None, BeforeValidator(_url)]
ClientCert = Annotated[str | list[str] | None, BeforeValidator(_client_cert)]
Identity = Annotated[IdentityHeader | None, BeforeValidator(_identity)]
ToolTimeout = Annotated[float, BeforeValidator(_tool_timeout)]
ConnectTimeout = Annotated[float, BeforeValidator(_connect_timeout)]
LifecycleSeconds = Annotated[float, BeforeValidator(_lifecycle_seconds)]
"""Seconds, 0 meaning never (``idle_timeout_seconds``, ``max_lifetime_seconds``)."""
MessageBytes = Annotated[int, BeforeValidator(_message_bytes)]
FlagOn = Annotated[bool, BeforeValidator(_flag_on)]
"""A yes/no key whose default is yes."""
FlagOff = Annotated[bool, BeforeValidator(_flag_off)]
"""A yes/no key whose default is no."""
Keepalive = Annotated[float, BeforeValidator(_keepalive)]
Trust = Annotated[Literal["full", "untrusted"], BeforeValidator(_trust)]
Breaker = Annotated[BreakerConfig, BeforeValidator(_breaker)]
Tools = Annotated[ToolsConfig, BeforeValidator(_tools)]
AuthName = Annotated[str | None, BeforeValidator(_auth)]
TransportName = Annotated[str | None, BeforeValidator(_transport)]
Roots = Annotated[list[RootConfig] | None, BeforeValidator(_roots)]
Interceptors = Annotated[list[str], BeforeValidator(_interceptors)]
ResultTokens = Annotated[int | None, BeforeValidator(_result_tokens)]


def kinds_of(info: ValidationInfo) -> ServerKinds:
    """The registered transports and auth providers this entry is validated against."""
    context = info.context
    kinds = context.get("kinds") if isinstance(context, dict) else None
    return kinds if isinstance(kinds, ServerKinds) else ServerKinds.builtin()
