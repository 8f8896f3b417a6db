"""``hermes mcp sampling models``: the models the installed sampling backends offer."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, PluginLoader
from hermes_core.plugins.manager import HermesPluginManager
from hermes_core.sampling.catalog import NO_BACKEND, ModelCatalog

__all__ = ["run", "sampling_models"]


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp sampling models [--json]``."""
    return sampling_models(plugins(), as_json=args.json)


def sampling_models(manager: HermesPluginManager, *, as_json: bool = False) -> int:
    """The models the installed sampling backends offer (``hermes mcp sampling models``)."""
    providers = manager.sampling_providers()
    catalog = ModelCatalog.load(providers)
    rows: list[dict[str, Any]] = [
        {
            "backend": offered.backend,
            "model": offered.info.id,
            "aliases": list(offered.info.aliases),
            "tools": offered.info.supports_tools,
            "images": offered.info.supports_images,
        }
        for offered in catalog.models()
    ]
    if as_json:
        print(json.dumps(rows, indent=2))
    elif not providers:
        print(NO_BACKEND, file=sys.stderr)
    else:
        for row in rows:
            aliases = f"  (aliases: {', '.join(row['aliases'])})" if row["aliases"] else ""
            extras = [k for k in ("tools", "images") if row[k]]
            accepts = f"  [{', '.join(extras)}]" if extras else ""
            print(f"{row['backend']}: {row['model']}{aliases}{accepts}")
        for name, problem in catalog.problems.items():
            print(f"# {name}: {problem}", file=sys.stderr)
    return EXIT_OK if rows else EXIT_FAILED
