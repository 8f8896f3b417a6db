"""The argparse side of the catalog commands (kept light: ``hermes --help`` imports it)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

__all__ = ["add_catalog_commands", "run_catalog_command"]

COMMANDS = ("catalog", "install", "configure", "suggest")


def add_catalog_commands(commands: Any) -> None:
    """Add ``catalog``, ``install``, ``configure`` and ``suggest`` to ``hermes mcp``."""
    listing = commands.add_parser(
        "catalog", help="the catalog of vetted servers and their state here"
    )
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    install = commands.add_parser(
        "install",
        help="install a catalog entry (shows what will run and asks first)",
        description="Show what will run (source, bootstrap commands, the command or URL), ask, "
        "fetch and bootstrap it into $HERMES_HOME/mcp-installs/NAME, ask for its keys "
        "(saved to $HERMES_HOME/.env), add it to config.yaml and choose its tools.",
    )
    install.add_argument("name", help="the entry's name (see `hermes mcp catalog`)")
    install.add_argument("--yes", "-y", action="store_true", help="do not ask before installing")
    configure = commands.add_parser(
        "configure", help="choose a configured server's tools (a checklist; needs a terminal)"
    )
    configure.add_argument("name")
    suggest = commands.add_parser(
        "suggest", help="catalog entries a text calls for (keywords, links)"
    )
    suggest.add_argument("text", nargs="+")
    suggest.add_argument("--json", action="store_true")


def run_catalog_command(args: argparse.Namespace, manager: Callable[[], Any]) -> int | None:
    """Run a catalog command, or the picker/catalog for a bare ``hermes mcp``; else ``None``."""
    command = getattr(args, "mcp_command", None)
    if command is None:
        from hermes_core.cli.prompts import interactive

        if interactive():
            from hermes_core.cli.mcp_picker import picker

            return picker(manager())
        from hermes_core.cli.mcp_catalog import catalog

        return catalog(manager())
    if command not in COMMANDS:
        return None
    from hermes_core.cli import mcp_catalog

    if command == "catalog":
        return mcp_catalog.catalog(manager(), as_json=args.json)
    if command == "install":
        return mcp_catalog.install(manager(), args.name, assume_yes=args.yes)
    if command == "configure":
        return mcp_catalog.configure(manager(), args.name)
    return mcp_catalog.suggest(manager(), " ".join(args.text), as_json=args.json)
