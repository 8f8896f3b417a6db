"""``hermes plugins list``: every plugin, where it comes from, what it contributes, its status.
``hermes plugins new``: scaffold a plugin package."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["EXIT_PLUGIN", "list_plugins", "new_plugin"]

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


def new_plugin(name: str, target: str | None) -> int:
    """Write the scaffold; exit 2 on a bad name or a folder that is not empty."""
    from hermes_core.scaffold import ScaffoldError, scaffold

    root = Path(target) if target is not None else Path(name)
    try:
        made = scaffold(name, root)
    except ScaffoldError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot write {root}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"Created {made.dist} in {root}:")
    for path in made.files:
        print(f"  {path.relative_to(root)}")
    print(
        "\nNext:\n"
        f"  cd {root}\n"
        "  pip install -e '.[test]'\n"
        "  pytest\n"
        "  hermes plugins list\n"
        "  hermes apps check --explain\n"
        "The Hermes plugin authors' guide (docs/plugin-authors.md) adds every other hook."
    )
    return 0
