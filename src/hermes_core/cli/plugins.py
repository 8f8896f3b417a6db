"""``hermes plugins list``: every plugin, where it comes from, what it contributes, its status."""

from __future__ import annotations

import argparse
import json

from hermes_core.cli.common import EXIT_PLUGIN, PluginLoader
from hermes_core.home import hermes_home
from hermes_core.plugins import config_keys
from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["list_plugins", "run_list"]


def run_list(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes plugins list [--json]``; records afresh the plugins' config names that
    ``mcp list`` validates against (an edited plugin is seen here)."""
    manager = plugins()
    config_keys.record(hermes_home(), manager, no_plugins=args.no_plugins)
    return list_plugins(manager, as_json=args.json)


def list_plugins(manager: HermesPluginManager, *, as_json: bool = False) -> int:
    """Exit 0 when every plugin loaded cleanly, 3 when one failed or is degraded."""
    manager.check_contributions()
    records = manager.plugins()
    if as_json:
        print(json.dumps([r.as_dict() for r in records], indent=2))
    else:
        for record in records:
            status = record.status if not record.reason else f"{record.status}: {record.reason}"
            if record.status == "degraded":
                count = len(record.problems)
                status = f"degraded ({count} problem{'s' if count > 1 else ''})"
            print(f"{record.name}  ({record.label})  {status}")
            hooks = ", ".join(record.hooks) if record.hooks else "-"
            print(f"    hooks: {hooks}")
            for hook, names in record.contributions.items():
                print(f"    {hook}: {', '.join(names)}")
            for problem in record.problems:
                print(f"    ! {problem}")
    failed = any(r.status == "failed" or r.problems for r in records)
    return EXIT_PLUGIN if failed else 0
