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

from hermes_core.config.engine_url import VARIABLE_REFERENCE, EngineUrlConfig, split_engine_url

__all__ = ["BUS_SCHEMES", "BusConfig", "bus_url_problem"]

BUS_SCHEMES = ("redis", "rediss")
_MAX_URL = 2048


def bus_url_problem(url: str) -> str | None:
    """Why *url* cannot be ``bus.url`` (a sentence that never quotes it), or ``None``."""
    parts = split_engine_url(url, _MAX_URL)
    if isinstance(parts, str):
        return parts
    password = parts.password
    if parts.scheme.lower() not in BUS_SCHEMES:
        return "must be a redis:// URL (rediss:// for TLS): redis://HOST:6379/0"
    if not parts.hostname:
        return "names no host (redis://HOST:6379/0)"
    if password and not VARIABLE_REFERENCE.fullmatch(password):
        return (
            "the password must be a ${VAR} reference, never written here: put it in "
            "$HERMES_HOME/.env (HERMES_REDIS_PASSWORD=...) and write "
            "redis://:${HERMES_REDIS_PASSWORD}@HOST:6379/0"
        )
    if "password=" in parts.query.lower():
        return "the password goes in the URL's user part as a ${VAR}, not in its query"
    return None


class BusConfig(EngineUrlConfig):
    """The ``bus:`` block (only ``url``)."""

    NEEDS = "needs url: redis://HOST:6379/0 (rediss:// for TLS)"
    KIND = "a redis:// URL"

    @staticmethod
    def url_problem(url: str) -> str | None:
        return bus_url_problem(url)
