"""What the Resources, Prompts and Apps views ask a server, as thin calls over
:class:`~hermes_core.host.host.MCPHost`: each is the server's utility tool (``list_resources``,
``read_resource``, ``get_prompt`` …) called through the host's whole call pipeline, so the
gates, the trust approval, the audit log and the sanitising apply as to any call.

A server whose utility tools are not registered (it advertised no resources or prompts, or
``tools.resources``/``tools.prompts`` is off) has nothing to browse: said in words."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hermes_core.host.browse import Family, list_family
from hermes_core.host.host import MCPHost
from hermes_core.host.tools.registry import ToolEntry
from hermes_core.json_types import JsonObject

__all__ = ["Listing", "app_entry", "call_utility", "listing", "sibling_tool", "utility_entry"]

#: The listing kinds the pages show.
FAMILIES = {
    "resources": Family.RESOURCES,
    "templates": Family.TEMPLATES,
    "prompts": Family.PROMPTS,
}


@dataclass(frozen=True)
class Listing:
    """One server's listing of one kind: its items, or why there are none."""

    server: str
    items: Sequence[Mapping[str, object]]
    problem: str | None = None
    note: str | None = None


def utility_entry(host: MCPHost, server: str, tool: str) -> ToolEntry | None:
    """*server*'s registered utility tool *tool* (``read_resource`` …), if it has one."""
    return next((e for e in host.registry.snapshot(server) if e.utility and e.tool == tool), None)


def sibling_tool(host: MCPHost, server: str, tool: str) -> ToolEntry | None:
    """*server*'s own tool named *tool* as the server names it (an app's ``tools/call``)."""
    return next(
        (e for e in host.registry.snapshot(server) if not e.utility and e.tool == tool), None
    )


def app_entry(host: MCPHost, name: str) -> ToolEntry | None:
    """The registered tool *name*, when its definition names a ``ui://`` app."""
    entry = host.registry.get(name)
    return entry if entry is not None and entry.app_uri else None


async def call_utility(
    host: MCPHost, server: str, tool: str, args: dict[str, object]
) -> JsonObject:
    """*server*'s utility *tool* called with *args* through the pipeline; the result."""
    entry = utility_entry(host, server, tool)
    if entry is None:
        family = "prompts" if "prompt" in tool else "resources"
        return {"error": f"MCP server '{server}' offers no {family} here"}
    return await host.call_tool(entry.name, args)


async def listing(host: MCPHost, server: str, kind: str) -> Listing:
    """*server*'s listing of *kind* (``resources``, ``templates`` or ``prompts``): the
    CLI's listing (:func:`hermes_core.host.browse.list_family`, paging followed and bounded,
    a cut-short listing saying so); a server with nothing of that kind lists nothing, quietly."""
    family = FAMILIES[kind]
    if utility_entry(host, server, family.tool) is None:
        return Listing(server, [], None)
    for found in await list_family(host, family, server):
        return Listing(server, found.items, found.error, found.note)
    return Listing(server, [], None)
