"""``hermes plugins new NAME``: scaffold a plugin package."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hermes_core.cli.common import PluginLoader
from hermes_core.scaffold import ScaffoldError, scaffold

__all__ = ["new_plugin", "run"]


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes plugins new NAME [--dir PATH] [--dist NAME] [--display-name TEXT]`` (loads no
    plugin)."""
    return new_plugin(
        args.name,
        args.target,
        dist=args.dist,
        display_name=args.display_name,
    )


def new_plugin(
    name: str, target: str | None, *, dist: str | None = None, display_name: str | None = None
) -> int:
    """Write the scaffold; exit 2 on a bad name or a folder that is not empty."""
    root = Path(target) if target is not None else Path(name)
    try:
        made = scaffold(name, root, dist=dist, display_name=display_name)
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
        "The Hermes plugin authors' tutorial (docs/plugin-authors.md) continues from here;\n"
        "docs/plugins/ has a reference page, with a tested example, for every hook."
    )
    return 0
