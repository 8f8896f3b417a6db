"""``hermes mcp search [TEXT] [--registry NAME|URL] [--cursor C] [--limit N] [--json]``: the
servers of the configured MCP registries whose name contains TEXT, one page at a time (the
registry's cursor).  Everything shown is unvetted and sanitised.  Reference: ``docs/registry.md``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import Any

from hermes_core.catalog.registry.client import Listed, RegistryClient, RegistryError
from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, PluginLoader
from hermes_core.cli.mcp_catalog import catalog_guard
from hermes_core.cli.mcp_registry_install import registries_for
from hermes_core.cli.prompts import shown
from hermes_core.cli.stop import Stop
from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["run", "search"]


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    return search(
        plugins(),
        " ".join(args.text),
        registry=args.registry,
        cursor=args.cursor,
        limit=args.limit,
        as_json=args.json,
    )


def _row(listed: Listed) -> dict[str, Any]:
    server = listed.server
    row: dict[str, Any] = {
        "name": shown(listed.name, 200),
        "registry": listed.registry.name,
        "registry_url": listed.registry.url,
    }
    if server is None:
        row["problem"] = shown(listed.problem or "", 400)
        return row
    row.update(
        {
            "title": shown(server.title),
            "description": shown(server.description, 400),
            "version": shown(server.version, 80),
            "status": listed.status,
            "packages": [
                {
                    "type": shown(p.registry_type, 40),
                    "identifier": shown(p.identifier, 300),
                    "version": shown(p.version or "", 80) or None,
                }
                for p in server.packages
            ],
            "remotes": [
                {"type": shown(r.type, 40), "url": shown(r.url or "", 300)} for r in server.remotes
            ],
        }
    )
    return row


def _print(rows: list[dict[str, Any]]) -> None:
    for row in rows:
        if "problem" in row:
            print(f"{row['name']}  [{row['registry']}]  (unusable: {row['problem']})")
            continue
        status = "" if row["status"] in (None, "active") else f"  ({row['status']})"
        print(f"{row['name']}  {row['version']}  [{row['registry']}]{status}")
        if row["description"]:
            print(f"  {row['description']}")
        kinds = sorted({p["type"] for p in row["packages"]})
        parts = []
        if kinds:
            parts.append(f"packages: {', '.join(kinds)}")
        for remote in row["remotes"]:
            parts.append(f"remote: {remote['type']} {remote['url']}")
        if parts:
            print(f"  {'; '.join(parts)}")


def search(
    manager: HermesPluginManager,
    text: str,
    *,
    registry: str | None = None,
    cursor: str | None = None,
    limit: int = 30,
    as_json: bool = False,
) -> int:
    """One page from each configured registry (or the one *registry* names)."""

    def action() -> int:
        if not 1 <= limit <= 100:
            raise Stop(EXIT_USAGE, f"--limit {limit}: give 1 to 100")
        registries = registries_for(manager, registry)
        if cursor and len(registries) > 1:
            raise Stop(EXIT_USAGE, "a --cursor belongs to one registry: add --registry NAME")
        rows: list[dict[str, Any]] = []
        more: list[dict[str, str]] = []
        problems: list[str] = []
        for each in registries:
            try:
                page = RegistryClient(each).page(text or None, cursor, limit)
            except RegistryError as exc:
                problems.append(str(exc))
                continue
            rows.extend(_row(listed) for listed in page.servers)
            if page.next_cursor:
                more.append({"registry": each.name, "url": each.url, "cursor": page.next_cursor})
        if as_json:
            print(json.dumps({"servers": rows, "next": more, "problems": problems}, indent=2))
        else:
            for problem in problems:
                print(f"warning: {problem}", file=sys.stderr)
            if rows:
                _print(rows)
            else:
                if not problems:
                    print("no registry server matches")
                else:
                    print("no registry could be searched: each warning says why")
            for nxt in more:
                words = "".join(shlex.quote(w) + " " for w in text.split())
                print(
                    f"more from {nxt['registry']}: hermes mcp search {words}"
                    f"--registry {shlex.quote(nxt['url'])} "
                    f"--cursor {shlex.quote(shown(nxt['cursor'], 300))}"
                )
            if rows:
                print("Unvetted. Install one: hermes mcp install NAME (shows what it runs first)")
        if problems and not rows:
            return EXIT_FAILED
        return EXIT_OK if rows else EXIT_FAILED

    return catalog_guard(action)
