"""``bus:``: the Redis that coordinates a fleet of ``hermes mcp proxy --http`` replicas.

```yaml
bus:
  url: redis://:${HERMES_REDIS_PASSWORD}@cache.internal:6379/0   # rediss:// for TLS
```

Without the key a proxy is one process and nothing changes.  With it, the replicas find each
other's sessions and held calls, hear each other's changes and share rate limits
(docs/scaling.md; :mod:`hermes_core.host.fleet`).  Only ``url`` is known.  A password in the
URL must be exactly one ``${VAR}`` reference (its value in the environment or
``$HERMES_HOME/.env``), never written here; ``repr`` and :meth:`BusConfig.shown` hide the
credentials.  Redis holds nothing durable: losing it loses routing, never state.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from pydantic import field_validator, model_validator

from hermes_core.config.checks import fail, kind_of
from hermes_core.config.model_base import ConfigModel
from hermes_core.config.values import unknown_key
from hermes_core.sanitize.urls import redact_url

__all__ = ["BUS_SCHEMES", "BusConfig", "bus_url_problem"]

BUS_SCHEMES = ("redis", "rediss")
_REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
_MAX_URL = 2048


def bus_url_problem(url: str) -> str | None:
    """Why *url* cannot be ``bus.url`` (a sentence that never quotes it), or ``None``."""
    text = url.strip()
    if not text:
        return "must not be empty"
    if len(text) > _MAX_URL:
        return f"is longer than {_MAX_URL} characters"
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        return "holds control characters"
    try:
        parts = urlsplit(text)
        password = parts.password
    except ValueError:
        return "is not a valid URL"
    if parts.scheme.lower() not in BUS_SCHEMES:
        return "must be a redis:// URL (rediss:// for TLS): redis://HOST:6379/0"
    if not parts.hostname:
        return "names no host (redis://HOST:6379/0)"
    if password and not _REFERENCE.fullmatch(password):
        return (
            "the password must be a ${VAR} reference, never written here: put it in "
            "$HERMES_HOME/.env (HERMES_REDIS_PASSWORD=...) and write "
            "redis://:${HERMES_REDIS_PASSWORD}@HOST:6379/0"
        )
    if "password=" in parts.query.lower():
        return "the password goes in the URL's user part as a ${VAR}, not in its query"
    return None


class BusConfig(ConfigModel):
    """The ``bus:`` block (only ``url``)."""

    url: str

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, value: Any) -> Any:
        if not isinstance(value, Mapping):
            raise fail(f"must be a mapping with url: (got {kind_of(value)})")
        for key in value:
            if key != "url":
                raise fail(unknown_key(str(key), ["url"]), str(key))
        if "url" not in value:
            raise fail("needs url: redis://HOST:6379/0 (rediss:// for TLS)")
        return value

    @field_validator("url", mode="before")
    @classmethod
    def _url(cls, value: Any) -> str:
        if not isinstance(value, str):
            raise fail(f"must be a redis:// URL (got {kind_of(value)})")
        problem = bus_url_problem(value)
        if problem is not None:
            raise fail(problem)
        return value.strip()

    def shown(self) -> str:
        """The URL as it may be shown: credentials and query hidden."""
        return redact_url(self.url)

    def __repr__(self) -> str:
        return f"BusConfig(url={self.shown()!r})"

    __str__ = __repr__
