"""What every ``hermes`` subcommand shares: exit codes, the terminal test, the plugin loader type.

Kept free of project imports so that building the parser (``hermes --help``) stays light.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = [
    "EXIT_BROKEN_PIPE",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_PLUGIN",
    "EXIT_USAGE",
    "PluginLoader",
    "interactive",
    "print_config_error",
]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_PLUGIN = 0, 1, 2, 3
EXIT_BROKEN_PIPE = 141
EXIT_INTERRUPTED = 130

#: Loads the plugin manager when a subcommand first needs it (exit 3 on a broken plugin
#: under ``HERMES_STRICT_PLUGINS=1``).
PluginLoader: TypeAlias = Callable[[], "HermesPluginManager"]


def interactive() -> bool:
    """Both ends are a terminal (a person can answer)."""
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def print_config_error(exc: Exception) -> None:
    """A bad ``config.yaml``: every problem found in the file, one ``error:`` line each (a
    :class:`~hermes_core.config.errors.ConfigError` carries the others in ``more``)."""
    for problem in getattr(exc, "all", (exc,)):
        print(f"error: {problem}", file=sys.stderr)
