"""The settings of a webhook platform (a ``messaging.<name>`` entry, ``adapter`` removed).

A channel is the name used in targets (``slack:general``) mapped to its webhook URL, or to a
mapping with ``url`` and optionally ``description`` and ``headers``.  URLs and header values
are secrets (a webhook URL is its own credential): they are kept as ``SecretStr`` and never
appear in errors or ``repr``.  ``https`` is required, except for loopback addresses.
"""

from __future__ import annotations

import ipaddress
import math
import re
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

__all__ = ["ChannelSettings", "WebhookSettings", "is_loopback_url"]

_CHANNEL = re.compile(r"[A-Za-z0-9#@._-][A-Za-z0-9#@._/-]{0,99}")
_HEADER = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def is_loopback_url(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class ChannelSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    url: SecretStr
    description: str = ""
    headers: dict[str, SecretStr] = Field(default_factory=dict)

    @field_validator("url", mode="before")
    @classmethod
    def _url(cls, value: Any) -> Any:
        if not isinstance(value, str):
            raise ValueError("must be the webhook URL (text)")
        parts = urlsplit(value.strip())
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise ValueError("must be an http(s) URL with a host")
        if parts.scheme == "http" and not is_loopback_url(value):
            raise ValueError("must use https (plain http is allowed only for loopback addresses)")
        return value.strip()

    @field_validator("headers", mode="before")
    @classmethod
    def _headers(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            raise ValueError("must be a mapping of header names to values")
        for name, text in value.items():
            if not isinstance(name, str) or not _HEADER.fullmatch(name):
                raise ValueError(f"{name!r} is not a valid header name")
            if not isinstance(text, str) or any(c in text for c in "\r\n\0"):
                raise ValueError(f"the value of {name} must be one line of text")
        return value


class WebhookSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    channels: dict[str, ChannelSettings] = Field(
        description="channel name -> webhook URL, or {url, description, headers}"
    )
    timeout: float = Field(default=10.0, description="seconds per delivery (0-120)")
    username: str | None = Field(default=None, description="display name (Slack, Discord)")

    @field_validator("channels", mode="before")
    @classmethod
    def _channels(cls, value: Any) -> Any:
        if not isinstance(value, dict) or not value:
            raise ValueError("must map at least one channel name to its webhook URL")
        channels: dict[str, Any] = {}
        for name, entry in value.items():
            if not isinstance(name, str) or not _CHANNEL.fullmatch(name):
                raise ValueError(
                    f"{name!r}: channel names use letters, digits and # @ . _ - / "
                    "(at most 100 characters)"
                )
            channels[name] = {"url": entry} if isinstance(entry, str) else entry
        return channels

    @field_validator("timeout", mode="before")
    @classmethod
    def _timeout(cls, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("must be a number of seconds")
        if not math.isfinite(value) or not 0 < value <= 120:
            raise ValueError("must be more than 0 and at most 120 seconds")
        return value
