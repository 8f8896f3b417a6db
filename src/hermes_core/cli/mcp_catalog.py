"""``hermes mcp catalog`` and ``hermes mcp suggest``: the catalog of vetted servers and their
state here; what both share with ``install`` and ``configure`` (:mod:`.mcp_install`).

Reference: ``docs/catalog.md``.  Exit codes as everywhere: 0 ok, 1 refused or
failed, 2 bad usage (unknown name, broken manifest, no terminal to ask on).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from hermes_core.catalog.catalog import NEEDS_RUNNER, Catalog, Entry, load_catalog, state_of
from hermes_core.catalog.suggest import suggestions
from hermes_core.cli.common import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, PluginLoader
from hermes_core.cli.loading import factory_for
from hermes_core.cli.prompts import Cancelled, shown
from hermes_core.cli.stop import Stop, guard
from hermes_core.config.models import ConfigError, ServerConfig
from hermes_core.plugins.errors import PluginError
from hermes_core.plugins.manager import HermesPluginManager
from hermes_core.yaml_lines import plain

__all__ = [
    "catalog",
    "catalog_guard",
    "catalog_rows",
    "configured_servers",
    "entry_named",
    "found_catalog",
    "print_error",
    "run_catalog",
    "run_suggest",
    "suggest",
]


def run_catalog(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp catalog [--json]``, and a bare ``hermes mcp`` without a terminal."""
    return catalog(plugins(), as_json=getattr(args, "json", False))


def run_suggest(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp suggest TEXT… [--json]``."""
    return suggest(plugins(), " ".join(args.text), as_json=args.json)


def print_error(message: str) -> None:
    """*message* as an ``error:`` line on stderr."""
    print(f"error: {message}", file=sys.stderr)


def catalog_guard(action: Callable[[], int]) -> int:
    """:func:`hermes_core.cli.stop.guard`, and the catalog's own failures: a broken manifest
    (strict mode), a bad config file, a question cancelled."""
    try:
        return guard(action)
    except PluginError as exc:  # strict mode: a broken manifest in a plugin
        print_error(str(exc))
        return EXIT_USAGE
    except ConfigError as exc:
        print_error(str(exc))
        return EXIT_USAGE
    except Cancelled:
        print("cancelled; nothing was changed", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:  # Ctrl-C: 130, as everywhere
        print("cancelled; nothing was changed", file=sys.stderr)
        return EXIT_INTERRUPTED


def found_catalog(manager: HermesPluginManager, *, quiet: bool = False) -> Catalog:
    """The catalog the plugins offer; each manifest left out is warned about unless *quiet*."""
    found = load_catalog(manager)
    if not quiet:
        for problem in found.problems:
            print(f"warning: {problem}; the entry is left out", file=sys.stderr)
    return found


def configured_servers(
    manager: HermesPluginManager,
) -> tuple[dict[str, ServerConfig], dict[str, object]]:
    """The configured servers (validated against *manager*'s transports and auth providers)
    and the raw ``mcp_servers`` mapping."""
    loaded = factory_for(manager).load_config(strict=False)
    raw: dict[str, object] = {}
    if loaded.tree is not None and isinstance(loaded.tree.get("mcp_servers"), dict):
        raw = plain(loaded.tree["mcp_servers"])
    return dict(loaded.config.mcp_servers), raw


def entry_named(found: Catalog, name: str) -> Entry:
    """The entry *name* (``official/`` prefix allowed); exit 2 when there is none."""
    entry = found.entries.get(name.removeprefix("official/"))
    if entry is not None:
        return entry
    if name in found.broken:
        raise Stop(EXIT_USAGE, found.broken[name])
    known = ", ".join(found.entries) or "none"
    raise Stop(EXIT_USAGE, f"no catalog entry named {name!r} (the catalog has: {known})")


# --------------------------------------------------------------------------- catalog


def catalog_rows(manager: HermesPluginManager, found: Catalog) -> list[dict[str, Any]]:
    servers, _raw = configured_servers(manager)
    rows = []
    for entry in found.entries.values():
        state = state_of(entry, servers, manager.display_names)
        manifest = entry.manifest
        rows.append(
            {
                "name": entry.name,
                "state": state.state,
                "needs": state.needs or None,
                "detail": state.detail,
                "description": shown(entry.description),
                "from": entry.origin,
                "manifest": entry.where,
                "transport": manifest.transport.kind if manifest is not None else None,
                "manifest_version": (
                    manifest.manifest_version
                    if manifest is not None
                    else entry.future.manifest_version
                    if entry.future is not None
                    else None
                ),
            }
        )
    return rows


def catalog(manager: HermesPluginManager, *, as_json: bool = False) -> int:
    """Every entry with its state; a newer manifest is listed with a warning, never hidden."""

    def run() -> int:
        found = found_catalog(manager, quiet=as_json)
        rows = catalog_rows(manager, found)
        if as_json:
            print(json.dumps({"entries": rows, "problems": found.problems}, indent=2))
            return EXIT_OK
        width = max((len(r["name"]) for r in rows), default=4)
        for row in rows:
            if row["state"] == "requires a newer Hermes":
                print(f"{row['name']:<{width}}  {row['detail']}")
                continue
            origin = "" if "(built-in)" in row["from"] else f"  [from {row['from']}]"
            label = f"needs {row['needs']}" if row["state"] == NEEDS_RUNNER else row["state"]
            print(f"{row['name']:<{width}}  {label:<20}  {row['description']}{origin}")
            if row["state"] == "unavailable here" or row["detail"]:
                print(f"{'':<{width}}  {row['detail']}")
        builtin = sum(1 for r in rows if "(built-in)" in r["from"])
        others = sorted({r["from"] for r in rows if "(built-in)" not in r["from"]})
        extra = f"; {len(rows) - builtin} from {', '.join(others)}" if others else ""
        print(
            f"\n{len(rows)} entries ({builtin} shipped with Hermes{extra}). "
            "Install one: hermes mcp install NAME"
        )
        return EXIT_OK

    return catalog_guard(run)


# --------------------------------------------------------------------------- suggest


def suggest(manager: HermesPluginManager, text: str, *, as_json: bool = False) -> int:
    """Entries whose keywords occur as whole words in *text*, or whose hosts match its URLs."""

    def run() -> int:

        found = found_catalog(manager, quiet=True)
        matches = suggestions(found.entries.values(), text)
        servers, _raw = configured_servers(manager)
        rows = [
            {
                "name": m.entry.name,
                "why": m.why,
                "state": state_of(m.entry, servers, manager.display_names).state,
                "description": shown(m.entry.description),
            }
            for m in matches
        ]
        if as_json:
            print(json.dumps(rows, indent=2))
        elif not rows:
            print("no catalog entry matches")
        else:
            for row in rows:
                print(f"{row['name']}  ({row['why']}; {row['state']})  {row['description']}")
                if row["state"] == "available":
                    print(f"  install: hermes mcp install {row['name']}")
        return EXIT_OK if rows else EXIT_FAILED

    return catalog_guard(run)
