"""``hermes plugins list``: every plugin, where it comes from, what it contributes, its status."""

from __future__ import annotations

import json

from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["EXIT_PLUGIN", "list_plugins"]

EXIT_PLUGIN = 3


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
