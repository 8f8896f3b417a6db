"""``hermes mcp remove/enable/disable NAME``: edit ``config.yaml`` atomically, keeping comments."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from hermes_core.catalog.registry.records import forget_record
from hermes_core.cli.common import EXIT_OK, EXIT_USAGE, PluginLoader
from hermes_core.cli.loading import factory_for
from hermes_core.config import store
from hermes_core.config.models import ConfigError

if TYPE_CHECKING:
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["remove", "run_remove", "run_set_enabled", "set_enabled"]


def run_remove(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp remove NAME``."""
    return remove(args.name, plugins())


def run_set_enabled(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp enable NAME`` and ``hermes mcp disable NAME``."""
    return set_enabled(args.name, args.mcp_command == "enable", plugins())


def remove(name: str, manager: HermesPluginManager | None = None) -> int:
    try:
        if name not in factory_for(manager).load_config(strict=False).config.mcp_servers:
            print(f"error: no server named {name!r}", file=sys.stderr)
            return EXIT_USAGE
        store.remove_server(name)
        forget_record(name)  # its install record, and the app declaration that came with it
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"removed '{name}'")
    return EXIT_OK


def set_enabled(name: str, enabled: bool, manager: HermesPluginManager | None = None) -> int:
    try:
        if name not in factory_for(manager).load_config(strict=False).config.mcp_servers:
            print(f"error: no server named {name!r}", file=sys.stderr)
            return EXIT_USAGE
        changed = store.set_enabled(name, enabled)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    word = "enabled" if enabled else "disabled"
    print(f"'{name}' {word}" if changed else f"'{name}' was already {word}")
    return EXIT_OK
