"""``hermes mcp get NAME [--json]``: one server's entry (secrets masked), then its state once
started: connection, tools count, what gates it, its last error."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, PluginLoader
from hermes_core.cli.hosting import with_host
from hermes_core.cli.loading import factory_for, load
from hermes_core.cli.masked import masked_entry
from hermes_core.cli.status_text import lifecycle_lines
from hermes_core.cli.stop import Stop
from hermes_core.host.server_status import tool_count
from hermes_core.sanitize import clean_line
from hermes_core.spelling import closest
from hermes_core.yaml_lines import plain

if TYPE_CHECKING:
    from hermes_core.host.surface import HostSurface
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["get", "run"]


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp get NAME [--json]``."""
    return get(plugins(), args.name, as_json=args.json)


def get(manager: HermesPluginManager, name: str, *, as_json: bool = False) -> int:
    """Show server *name*: exit 0 when its tools are offered, 1 when not, 2 when unknown."""

    loaded = load(factory_for(manager))
    written = loaded.tree.get("mcp_servers") if loaded.tree is not None else None
    entries: dict[str, Any] = plain(written) if isinstance(written, dict) else {}
    if name not in entries:
        close = closest(name, list(entries))
        hint = f"; did you mean {close!r}?" if close else ""
        known = ", ".join(entries) or "none"
        raise Stop(
            EXIT_USAGE, f"no server named {name!r} in {loaded.path}{hint} (configured: {known})"
        )
    entry = masked_entry(entries[name]) if isinstance(entries[name], dict) else {}

    async def body(host: HostSurface) -> dict[str, Any]:
        (row,) = host.status()
        return row.__dict__.copy()

    row = with_host(manager, body, only=name, quiet=as_json)
    report = {
        "server": name,
        "entry": entry,
        "line": loaded.line_of(f"mcp_servers.{name}"),
        **{key: row.get(key) for key in _FIELDS},
    }
    if as_json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        _print(report, row)
    return EXIT_OK if row["offered"] else EXIT_FAILED


#: The status fields ``mcp get`` reports.
_FIELDS = (
    "transport",
    "enabled",
    "connection",
    "offered",
    "tools",
    "host_tools",
    "filtered_out",
    "availability",
    "gate",
    "last_error",
    "protocol",
    "trust",
    "override_problems",
)


def _print(report: dict[str, Any], row: dict[str, Any]) -> None:
    where = f" (config.yaml line {report['line']})" if report["line"] else ""
    print(f"{report['server']}{where}:")
    for key, value in report["entry"].items():
        print(f"  {key}: {_value(value)}")
    connection = report["connection"]
    protocol = f", protocol {report['protocol']}" if report["protocol"] else ""
    print(f"  state: {connection} ({report['transport']}{protocol})")
    offered = "offered" if report["offered"] else "not offered"
    filtered = f", {report['filtered_out']} filtered out" if report["filtered_out"] else ""
    count = tool_count(report["tools"], report.get("host_tools") or 0, bare=True)
    print(f"  tools: {count} {offered}{filtered}")
    if report["availability"] != "undeclared":
        print(f"  app: {report['availability']}")
    print(f"  gate: {clean_line(report['gate']) if report['gate'] else 'none'}")
    error = report["last_error"]
    print(f"  last error: {clean_line(error.splitlines()[0]) if error else 'none'}")
    for line in lifecycle_lines(row):
        print(f"  {line}")


def _value(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={_value(v)}" for k, v in value.items()) or "{}"
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return clean_line(str(value))
