"""``hermes skills list``: every skill found, where it comes from, and whether it is offered."""

from __future__ import annotations

import argparse
import json

from hermes_core.cli.common import PluginLoader
from hermes_core.home import hermes_home
from hermes_core.plugins.manager import HermesPluginManager
from hermes_core.skills import discover_skills, skill_visible

__all__ = ["list_skills", "run_list"]


def run_list(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes skills list [--json]``."""
    return list_skills(plugins(), as_json=args.json)


def list_skills(manager: HermesPluginManager, *, as_json: bool = False) -> int:
    home = hermes_home()
    skills, problems = discover_skills(home, manager)
    rows: list[dict[str, object]] = []
    for skill in skills:
        gate = skill_visible(skill, manager)
        rows.append(
            {
                "name": skill.name,
                "description": skill.description,
                "source": skill.source,
                "path": str(skill.path),
                "requires_apps": list(skill.requires_apps),
                "visible": gate.visible,
                "reason": gate.reason,
            }
        )
    if as_json:
        print(json.dumps({"skills": rows, "problems": problems}, indent=2))
        return 0
    if not rows:
        print(f"no skills found (looked in {home / 'skills'} and in plugins)")
    for row in rows:
        state = "visible" if row["visible"] else f"hidden: {row['reason']}"
        print(f"{row['name']}  ({row['source']})  {state}")
        print(f"    {row['path']}")
    for problem in problems:
        print(f"! {problem}")
    return 0
