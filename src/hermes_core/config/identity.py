"""``identity_header:`` of an HTTP server entry: a per-user header (a problem is a warning,
and the header is then left out)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from hermes_core.config.model_base import ConfigModel
from hermes_core.config.values import HEADER_NAME

__all__ = ["IdentityHeader", "parse_identity_header"]


class IdentityHeader(ConfigModel):
    """``identity_header:``: a per-user header for HTTP/SSE servers."""

    name: str
    value_from: Literal["static", "profile"] = "static"
    value: str | None = None


def parse_identity_header(raw: object) -> tuple[IdentityHeader | None, str | None]:
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
    if not HEADER_NAME.fullmatch(name.strip()):
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
