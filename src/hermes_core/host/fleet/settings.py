"""The ``bus:`` block of ``config.yaml``: the Redis that coordinates a fleet of proxies.

```yaml
bus:
  url: redis://:${HERMES_REDIS_PASSWORD}@cache.internal:6379/0   # rediss:// for TLS
```

Only ``url`` is known (any other key is an error).  A password in the URL must be a ``${VAR}``
placeholder (read from the environment, then ``$HERMES_HOME/.env``): a literal one is refused,
so the secret never sits in ``config.yaml``.  The expanded URL is held by
:class:`BusSettings`, whose ``repr`` and :attr:`~BusSettings.shown` never carry the password.
"""

from __future__ import annotations

import os
import urllib.parse
from dataclasses import dataclass, field

from hermes_core.config.errors import ConfigError
from hermes_core.config.interpolate import expand, load_dotenv
from hermes_core.config.loader import LoadedConfig
from hermes_core.sanitize.urls import redact_url
from hermes_core.spelling import close_matches
from hermes_core.yaml_lines import plain

__all__ = ["BUS_KEYS", "SCHEMES", "BusSettings", "load_bus_settings"]

BUS_KEYS = ("url",)
SCHEMES = ("redis", "rediss")
_MAX_URL = 2048


@dataclass(frozen=True)
class BusSettings:
    """The bus's expanded URL (secret: never printed) and what may be shown of it."""

    url: str = field(repr=False)
    shown: str

    def __repr__(self) -> str:
        return f"BusSettings({self.shown})"

    @property
    def tls(self) -> bool:
        return self.url.startswith("rediss://")


def _error(loaded: LoadedConfig, key: str, reason: str) -> ConfigError:
    return ConfigError(reason, path=str(loaded.path), line=loaded.line_of(key), key=key)


def load_bus_settings(loaded: LoadedConfig) -> BusSettings | None:
    """``bus:`` of *loaded* (``None``: absent), checked; a :class:`ConfigError` names the file,
    the key and what is wrong, and never quotes a password."""
    tree = loaded.tree
    if tree is None or "bus" not in tree:
        return None
    block = plain(tree["bus"])
    if not isinstance(block, dict):
        raise _error(loaded, "bus", "must be a mapping with the key url (redis://…)")
    for name in block:
        if str(name) not in BUS_KEYS:
            close = close_matches(str(name), list(BUS_KEYS), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise _error(loaded, f"bus.{name}", f"unknown key {str(name)!r} (known: url){hint}")
    raw = block.get("url")
    if not isinstance(raw, str) or not raw.strip():
        raise _error(loaded, "bus.url", "is required: redis://HOST:PORT/DB (rediss:// for TLS)")
    if len(raw) > _MAX_URL:
        raise _error(loaded, "bus.url", f"is longer than {_MAX_URL} characters")
    parts = urllib.parse.urlsplit(raw)
    if parts.scheme not in SCHEMES:
        raise _error(
            loaded,
            "bus.url",
            f"must start with redis:// or rediss:// (TLS) (got {parts.scheme or 'no'} scheme)",
        )
    secret = parts.password if parts.password is not None else None
    if secret and "${" not in secret:
        raise _error(
            loaded,
            "bus.url",
            "holds a literal password: write it as ${VAR} (set in the environment or "
            "$HERMES_HOME/.env) so the secret stays out of config.yaml",
        )
    try:
        url = expand(raw, env=os.environ, dotenv=load_dotenv())
    except ValueError as exc:
        raise _error(loaded, "bus.url", str(exc)) from None
    try:
        expanded = urllib.parse.urlsplit(url)
        expanded.port  # noqa: B018 - a bad port raises here
    except ValueError:
        raise _error(loaded, "bus.url", "is not a valid URL once ${VAR} is expanded") from None
    if not expanded.hostname and not expanded.path.startswith("/"):
        raise _error(loaded, "bus.url", "names no host")
    return BusSettings(url, redact_url(url))
