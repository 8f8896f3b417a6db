"""``hermes mcp install`` and ``hermes mcp configure``: install a catalog entry through the
install service (:mod:`hermes_core.catalog.install_service`, answered on the terminal by
:mod:`.install_door`), and choose the tools of a configured server (a checklist; the server is
asked for its tools).

Reference: ``docs/catalog.md``.
"""

from __future__ import annotations

import argparse
import sys

from hermes_core.catalog.catalog_source import catalog_plan
from hermes_core.catalog.install_plan import InstallPlan
from hermes_core.catalog.install_service import InstallService
from hermes_core.catalog.tool_choice import apply_choice, describe_offer, probe_checklist
from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, PluginLoader
from hermes_core.cli.install_door import checklist_rows, install_with
from hermes_core.cli.mcp_catalog import catalog_guard, configured_servers, found_catalog
from hermes_core.cli.progress import Activity
from hermes_core.cli.prompts import checklist, interactive, shown
from hermes_core.cli.stop import Stop
from hermes_core.config.kinds import ServerKinds
from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["configure", "install", "run_configure", "run_install"]


def run_install(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp install NAME [--yes]``."""
    return install(plugins(), args.name, assume_yes=args.yes)


def run_configure(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp configure NAME``."""
    return configure(plugins(), args.name)


def install(manager: HermesPluginManager, name: str, *, assume_yes: bool = False) -> int:
    """Show what will run, ask, fetch and bootstrap, ask keys, write config, choose tools."""

    def resolve(service: InstallService) -> InstallPlan:
        found = found_catalog(manager)
        return catalog_plan(found, name, service.configured(), manager.display_names)

    return install_with(manager, resolve, assume_yes=assume_yes)


def configure(manager: HermesPluginManager, name: str) -> int:
    """The tool checklist again for a configured server, pre-checked with the current choice."""

    def run() -> int:
        _servers, raw = configured_servers(manager)
        entry = raw.get(name)
        if not isinstance(entry, dict):  # said before asking for a terminal
            known = ", ".join(raw) or "none"
            raise Stop(EXIT_USAGE, f"no server named {name!r} in config.yaml (configured: {known})")
        if not interactive():
            raise Stop(EXIT_USAGE, "'hermes mcp configure' needs an interactive terminal")
        listed = found_catalog(manager, quiet=True).entries.get(name)
        manifest = listed.manifest if listed is not None else None
        default = manifest.tools.default_enabled if manifest is not None else None
        print(f"asking '{name}' for its tools…", flush=True)
        with Activity(f"starting '{name}' to list its tools…", announce=False):
            found = probe_checklist(manager, name, entry, default)
        if found.problem is not None:  # nothing to choose from, nothing changed
            why = shown(found.problem, 300)
            print(f"warning: could not list the tools of '{name}': {why}", file=sys.stderr)
            return EXIT_FAILED
        count = f"{len(found.own)} tool{'s' if len(found.own) != 1 else ''}"
        picked = set(
            checklist(f"Select tools for '{name}' ({count})", checklist_rows(found), found.checked)
        )
        kinds = ServerKinds.of(manager.transports(), manager.auth_providers())
        own = [t.name for t in found.own]
        _entry, chosen, switches = apply_choice(name, entry, own, found.families, picked, kinds)
        utilities = [t for fam, members in found.families.items() if switches[fam] for t in members]
        print(describe_offer(chosen, [n for n in own if n in picked], utilities))
        off = [fam for fam, on in switches.items() if not on]
        if off:
            print(f"utility tools off: {', '.join(off)}")
        return EXIT_OK

    return catalog_guard(run)
