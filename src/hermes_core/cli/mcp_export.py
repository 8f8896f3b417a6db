"""``hermes mcp export --format FORMAT``: the configured servers in another client's format."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from hermes_core.cli.common import EXIT_OK, EXIT_USAGE, PluginLoader, print_config_error
from hermes_core.cli.foreign_text import say
from hermes_core.cli.loading import factory_for
from hermes_core.config.models import ConfigError
from hermes_core.importing.export import export_servers

if TYPE_CHECKING:
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["export", "run"]


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp export --format FORMAT``."""
    return export(args.format, plugins())


def export(fmt: str, manager: HermesPluginManager | None = None) -> int:
    """Print the servers of ``config.yaml`` for another client (*manager*'s transports and
    auth providers are the ones ``config.yaml`` may name)."""
    try:
        loaded = factory_for(manager).load_config()
    except ConfigError as exc:
        print_config_error(exc)
        return EXIT_USAGE
    result = export_servers(loaded.config.mcp_servers, fmt)
    sys.stdout.write(result.text if result.text.endswith("\n") else result.text + "\n")
    sys.stdout.flush()  # before the notes on stderr, so a terminal shows them in order
    for warning in result.warnings:
        say(f"left out: {warning}", err=True)
    if result.variables:
        say(
            "secrets are written as variables; set them where the client runs: "
            + ", ".join(result.variables),
            err=True,
        )
    return EXIT_OK
