"""``hermes plugins list``: every plugin, where it comes from, what it contributes, its status."""

from __future__ import annotations

import json

from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["list_plugins"]


def list_plugins(manager: HermesPluginManager, *, as_json: bool = False) -> int:
    records = manager.plugins()
    if as_json:
        print(json.dumps([r.as_dict() for r in records], indent=2))
    else:
        for record in records:
            status = record.status if not record.reason else f"{record.status}: {record.reason}"
            if record.problems and record.status == "loaded":
                status = f"loaded with {len(record.problems)} problem(s)"
            print(f"{record.name}  ({record.label})  {status}")
            hooks = ", ".join(record.hooks) if record.hooks else "-"
            print(f"    hooks: {hooks}")
            for hook, names in record.contributions.items():
                print(f"    {hook}: {', '.join(names)}")
            for problem in record.problems:
                print(f"    ! {problem}")
    failed = any(r.status == "failed" or r.problems for r in records)
    return 1 if failed else 0
