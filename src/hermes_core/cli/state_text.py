"""The ``state:`` line of ``hermes mcp status``: where the durable state lives (the URL with
its credentials and query hidden) and whether it answers now."""

from __future__ import annotations

from hermes_core.cli.loading import factory_for
from hermes_core.config.errors import ConfigError
from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["state_line"]


def state_line(manager: HermesPluginManager | None) -> str | None:
    """``state: postgresql://***@db:5432/hermes (reachable)`` — ``None`` without ``state:``
    (the files under ``$HERMES_HOME``)."""
    try:
        db = factory_for(manager).state_database()
    except ConfigError:
        return None  # the config's own error was shown already
    if db is None:
        return None
    return f"state: {db.shown} ({'reachable' if db.reachable() else 'UNREACHABLE'})"
