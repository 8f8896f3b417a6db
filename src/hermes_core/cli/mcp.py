"""``hermes mcp status``, ``hermes mcp tools`` and ``hermes mcp test``: connect the configured
servers and show their state, their tools, or how one of them starts."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, Any

from hermes_core.cli.bus_text import bus_line
from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, PluginLoader
from hermes_core.cli.hosting import with_host
from hermes_core.cli.override_lines import entry_json, override_lines
from hermes_core.cli.progress import paint
from hermes_core.cli.state_text import state_line
from hermes_core.cli.status_text import (
    lifecycle_lines,
    roots_line,
    sampling_line,
    sampling_matters,
)
from hermes_core.cli.tool_lines import tool_lines, width
from hermes_core.host.server_status import tool_count

if TYPE_CHECKING:
    from hermes_core.host.surface import HostSurface
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["run_status", "run_test", "run_tools", "status", "test_server", "tools"]

#: How many tools ``hermes mcp tools --search`` shows at most.
_SEARCH_RESULTS = 10


def run_status(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp status [--json]``."""
    return status(plugins(), as_json=args.json)


def run_tools(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp tools [SERVER] [--json] [--search TEXT] [--overrides]``."""
    return tools(
        plugins(),
        args.server,
        as_json=args.json,
        search=args.search,
        overrides=getattr(args, "overrides", False),
    )


def run_test(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp test NAME [--json]``."""
    return test_server(plugins(), args.name, as_json=args.json)


def status(manager: HermesPluginManager, *, as_json: bool = False) -> int:
    """Connect every enabled server and show connection, availability, tools and errors."""

    async def body(host: HostSurface) -> list[dict[str, Any]]:
        return [row.__dict__.copy() for row in host.status()]

    rows = with_host(manager, body, quiet=as_json)
    if as_json:
        print(json.dumps(rows, indent=2))
    else:
        # Only servers that could ask are told about sampling (a host with no model set
        # never asked for it); one reason shared by every server is said once, at the end.
        for row in rows:
            if not sampling_matters(row.get("sampling")):
                row["sampling"] = None
        infos = [r["sampling"] for r in rows if r.get("sampling")]
        shared = len(infos) > 1 and all(i == infos[0] for i in infos) and not infos[0]["offered"]
        for row in rows:
            mark = paint("[ok]", "green") if row["offered"] else paint("[--]", "red")
            app = "" if row["availability"] == "undeclared" else f"app: {row['availability']}  "
            print(
                f"{mark} {row['server']}  [{row['transport']}]  {row['connection']}  "
                f"{app}tools: {tool_count(row['tools'], row.get('host_tools', 0), bare=True)}"
                + (f"  protocol: {row['protocol']}" if row.get("protocol") else "")
            )
            if row["last_error"]:
                print(f"     last error: {row['last_error']}")
            if row.get("gate"):
                print(f"     {row['gate']}")
            for line in lifecycle_lines(row):
                print(f"     {line}")
            if row.get("sampling") and not shared:
                print(f"     sampling: {sampling_line(row['sampling'])}")
            if row.get("roots"):
                print(f"     roots: {roots_line(row['roots'])}")
            for collision in row["name_collisions"]:
                print(f"     {collision}")
        if shared:
            print(f"sampling (every server): {sampling_line(infos[0])}")
        for where in (state_line(manager), bus_line(manager)):
            if where is not None:
                print(where)
    failed = [r for r in rows if r["enabled"] and not r["offered"]]
    return EXIT_FAILED if failed else EXIT_OK


def tools(
    manager: HermesPluginManager,
    server: str | None,
    *,
    as_json: bool = False,
    search: str | None = None,
    overrides: bool = False,
) -> int:
    """The tools an agent would see (per server), with the reason for any hidden server;
    with *search*, only the best matches of that text, best first (``MCPHost.search_tools``);
    with *overrides*, what each ``tools.overrides`` entry changed."""

    async def body(host: HostSurface) -> tuple[list[Any], list[Any], dict[str, dict[str, str]]]:
        if search is not None:
            found = host.search_tools(search, _SEARCH_RESULTS)
            entries = [e for e in found if server is None or e.server == server]
            return entries, host.status(), host.unoffered_tools
        return host.tools(server), host.status(), host.unoffered_tools

    entries, rows, unoffered = with_host(manager, body, only=server, quiet=as_json)
    if overrides and as_json:
        shown = [entry_json(e) for e in entries if e.override is not None]
        problems = {r.server: r.override_problems for r in rows if r.override_problems}
        print(json.dumps({"overrides": shown, "problems": problems}, indent=2))
        return EXIT_OK
    if overrides:
        print("\n".join(override_lines(entries, rows)) or "no tool overrides")
        return EXIT_OK
    if as_json:
        print(json.dumps([entry_json(e) for e in entries], indent=2))
    else:
        columns = width()
        for entry in entries:
            print("\n".join(tool_lines(entry, columns)))
        for row in rows:
            if row.offered and row.host_tools and search is None:
                count = tool_count(row.tools, row.host_tools)
                print(
                    f"# {row.server}: {count} (the host's, over its resources and "
                    "prompts: `hermes mcp resources`, `hermes mcp prompts`)",
                    file=sys.stderr,
                )
            if not row.offered:
                if not row.enabled:
                    reason = "disabled in config.yaml; `hermes mcp enable` turns it on"
                else:
                    reason = row.last_error or row.gate or row.availability
                print(f"# {row.server}: no tools offered ({reason})", file=sys.stderr)
    for name, why_not in sorted(unoffered.items()):
        for tool, reason in sorted(why_not.items()):
            print(f"# {name}: tool {tool!r} {reason}", file=sys.stderr)
    return EXIT_OK if entries else EXIT_FAILED


def test_server(manager: HermesPluginManager, name: str, *, as_json: bool = False) -> int:
    """Connect one server, list its tools, and time both.

    Exit 0 only when the server connected *and* listed its tools; 1 when either failed, or
    when the server is disabled (it is not tested: nothing is claimed of it); 2 for a bad
    config or an unknown name.  A ``lazy`` server is started (not read from its cache)."""

    async def body(host: HostSurface) -> dict[str, Any]:
        (row,) = host.status()
        if row.connection == "lazy":  # registered from its cache: a test really connects
            await host.wake(name)
            (row,) = host.status()
        error = row.last_error
        if not row.enabled:
            error = (
                f"disabled in config.yaml, so it was not tested "
                f"(`hermes mcp enable {name}` turns it on)"
            )
        elif error is None and row.connection != "connected":
            error = f"not connected ({row.connection})"
        return {
            "server": name,
            "connection": row.connection,
            "tools": [e.name for e in host.tools(include_gated=True)] if row.enabled else [],
            "host_tools": row.host_tools,
            "error": error,
        }

    started = time.monotonic()
    report = with_host(manager, body, only=name, quiet=True)
    report["seconds"] = round(time.monotonic() - started, 3)
    if as_json:
        print(json.dumps(report, indent=2))
    elif report["connection"] == "disabled":
        print(f"{name}: {report['error']}")
    elif report["error"]:
        print(f"{name}: failed after {report['seconds']} s: {report['error']}")
    else:
        count = tool_count(len(report["tools"]), report["host_tools"])
        print(f"{name}: connected and listed {count} in {report['seconds']} s")
        for tool_name in report["tools"]:
            print(f"  {tool_name}")
    return EXIT_FAILED if report["error"] else EXIT_OK
