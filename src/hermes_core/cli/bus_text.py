"""The ``bus:`` line of ``hermes mcp status``: the fleet's Redis (the URL with its credentials
and query hidden) and whether it answers now."""

from __future__ import annotations

from hermes_core.cli.loading import factory_for
from hermes_core.config.errors import ConfigError
from hermes_core.host.fleet.settings import load_bus_settings
from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["bus_line"]

#: The longest the status waits for the bus to answer.
PING_SECONDS = 1.0


def bus_line(manager: HermesPluginManager | None) -> str | None:
    """``bus: redis://***@cache:6379/0 (reachable)`` — ``None`` without ``bus:``."""
    try:
        factory = factory_for(manager)
        loaded = factory.loaded if factory.loaded is not None else factory.load_config(strict=False)
        bus = load_bus_settings(loaded)
    except ConfigError as exc:
        return f"bus: {exc}"
    if bus is None:
        return None
    return f"bus: {bus.shown} ({'reachable' if _answers(bus.url) else 'UNREACHABLE'})"


def _answers(url: str) -> bool:
    try:
        import redis

        client = redis.Redis.from_url(
            url, socket_timeout=PING_SECONDS, socket_connect_timeout=PING_SECONDS
        )
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:  # noqa: BLE001 - any failure is "not reachable now"
        return False
