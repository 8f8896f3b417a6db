"""Browsing what servers offer besides tools: their resources, resource templates and prompts.

One place for every door that shows them to a person (``hermes mcp resources``/``read``/
``templates``/``prompts``/``prompt``, the dashboard's pages): each operation goes through the
server's utility tool (:mod:`hermes_core.host.tools.utility_tools`) with ``host.call_tool``, so the
host's pipeline (policy, gates, audit, the ``tools.resources``/``tools.prompts`` switches)
decides it as it decides the tool, and it runs the same on a started :class:`MCPHost` and on
the warm host (:class:`~hermes_core.host.surface.HostSurface`).

Listings follow the server's pages (bounded: :data:`~.utility_tools.LIST_MAX_PAGES` pages,
:data:`~.utility_tools.LIST_MAX_ITEMS` items; a cut-short listing carries its ``note``).
Everything returned is sanitised by the host already (control and invisible characters
stripped); a door printing a line runs it through ``clean_line`` once more.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

from hermes_core.host.calls.result_text import render_text
from hermes_core.host.tools.utility_results import utility_data
from hermes_core.json_types import JsonObject

if TYPE_CHECKING:
    from hermes_core.host.surface import HostSurface
    from hermes_core.host.tools.registry import ToolEntry

__all__ = [
    "BrowseError",
    "Family",
    "Listing",
    "Prompt",
    "Reading",
    "get_prompt",
    "list_family",
    "list_prompts",
    "list_resources",
    "list_templates",
    "read_resource",
]


class Family(Enum):
    """What a listing lists: (its utility tool, the result's key, the noun a person reads)."""

    RESOURCES = ("list_resources", "resources", "resources")
    TEMPLATES = ("list_resource_templates", "resourceTemplates", "resource templates")
    PROMPTS = ("list_prompts", "prompts", "prompts")

    @property
    def tool(self) -> str:
        return self.value[0]

    @property
    def key(self) -> str:
        return self.value[1]

    @property
    def noun(self) -> str:
        return self.value[2]

    @property
    def switch(self) -> str:
        """The config switch that turns the family off."""
        return "tools.prompts" if self is Family.PROMPTS else "tools.resources"


class BrowseError(Exception):
    """A read or a prompt that could not be done; the message says why, for a person."""


@dataclass(frozen=True)
class Listing:
    """One server's listing: its *items* (as the server sent them, sanitised), or *error*."""

    server: str
    items: list[JsonObject] = field(default_factory=list)
    note: str | None = None
    """Why the listing stopped early (more than the bound), when it did."""
    error: str | None = None
    """Why nothing was listed (the server failed, or does not offer this family)."""

    def as_dict(self) -> JsonObject:
        data: JsonObject = {"server": self.server, "items": [*self.items]}
        if self.note:
            data["note"] = self.note
        if self.error:
            data["error"] = self.error
        return data


@dataclass(frozen=True)
class Reading:
    """A resource read: the server that answered and the contents (``uri``, ``mimeType``,
    ``text`` or base64 ``blob``)."""

    server: str
    uri: str
    contents: list[dict[str, Any]]


@dataclass(frozen=True)
class Prompt:
    """A rendered prompt: its server and name, ``description`` and ``messages``."""

    server: str
    name: str
    description: str | None
    messages: list[JsonObject]


def _servers(host: HostSurface, server: str | None) -> list[str]:
    return [row.server for row in host.status() if server is None or row.server == server]


def _utility(host: HostSurface, server: str, tool: str) -> ToolEntry | None:
    for entry in host.tools(server, include_gated=True):
        if entry.utility and entry.tool == tool:
            return entry
    return None


def _why_missing(host: HostSurface, server: str, family: Family) -> str:
    """Why *server* has no utility tool for *family*: not running, or it offers none."""
    for row in host.status():
        if row.server != server:
            continue
        if not row.enabled:
            return "disabled in config.yaml"
        if row.last_error:
            return row.last_error.splitlines()[0]
        if row.gate:
            return row.gate
        if row.connection not in ("connected", "lazy"):
            return f"not connected ({row.connection})"
    return (
        f"offers no {family.noun} (the server did not announce them, or {family.switch} "
        "is false in config.yaml)"
    )


def _error_text(result: Mapping[str, object]) -> str:
    return render_text(result).text.removeprefix("error: ").strip() or "no answer"


async def list_family(
    host: HostSurface, family: Family, server: str | None = None
) -> list[Listing]:
    """Every server's (only *server*'s, when given) listing of *family*, sorted by server."""
    listings = []
    for name in _servers(host, server):
        entry = _utility(host, name, family.tool)
        if entry is None:
            listings.append(Listing(name, error=_why_missing(host, name, family)))
            continue
        result = await host.call_tool(entry.name, {})
        data = utility_data(entry.tool, result)
        if data is None:
            listings.append(Listing(name, error=_error_text(result)))
            continue
        items = [i for i in data.get(family.key, ()) if isinstance(i, dict)]
        listings.append(Listing(name, items, note=data.get("note")))
    return listings


async def list_resources(host: HostSurface, server: str | None = None) -> list[Listing]:
    """Each server's resources (``resources/list``, every page)."""
    return await list_family(host, Family.RESOURCES, server)


async def list_templates(host: HostSurface, server: str | None = None) -> list[Listing]:
    """Each server's resource templates (``resources/templates/list``, every page)."""
    return await list_family(host, Family.TEMPLATES, server)


async def list_prompts(host: HostSurface, server: str | None = None) -> list[Listing]:
    """Each server's prompts (``prompts/list``, every page)."""
    return await list_family(host, Family.PROMPTS, server)


def template_matches(template: str, uri: str) -> bool:
    """Whether *uri* fits the RFC 6570 *template* (each ``{…}`` stands for some text)."""
    parts = re.split(r"\{[^}]*\}", template)
    pattern = ".+".join(re.escape(part) for part in parts)
    return re.fullmatch(pattern, uri, flags=re.DOTALL) is not None


async def _reader_of(host: HostSurface, uri: str, server: str | None) -> str:
    """The server to read *uri* from: *server*, the only one that reads resources, else the
    one whose resources (then templates) name it."""
    readers = [n for n in _servers(host, server) if _utility(host, n, "read_resource")]
    if server is not None:
        if not readers:
            raise BrowseError(f"{server}: {_why_missing(host, server, Family.RESOURCES)}")
        return server
    if len(readers) == 1:
        return readers[0]
    if not readers:
        raise BrowseError("no server offers resources")
    listed = {
        listing.server
        for listing in await list_resources(host)
        if any(item.get("uri") == uri for item in listing.items)
    }
    if not listed:
        listed = {
            listing.server
            for listing in await list_templates(host)
            if any(
                template_matches(str(item.get("uriTemplate", "")), uri) for item in listing.items
            )
        }
    if len(listed) == 1:
        return listed.pop()
    named = ", ".join(sorted(listed)) if listed else "none of them"
    raise BrowseError(
        f"{len(readers)} servers read resources and {named} lists {uri!r}: "
        "name the server with --server"
    )


async def read_resource(host: HostSurface, uri: str, server: str | None = None) -> Reading:
    """Read *uri* (from *server*, or the server that lists it); :class:`BrowseError` when no
    server can, or the server refused."""
    name = await _reader_of(host, uri, server)
    entry = _utility(host, name, "read_resource")
    if entry is None:  # pragma: no cover - _reader_of checked it
        raise BrowseError(f"{name}: {_why_missing(host, name, Family.RESOURCES)}")
    result = await host.call_tool(entry.name, {"uri": uri})
    data = utility_data(entry.tool, result)
    if data is None:
        raise BrowseError(f"{name}: {_error_text(result)}")
    contents = [c for c in data.get("contents", ()) if isinstance(c, dict)]
    return Reading(name, uri, contents)


async def _prompt_owner(host: HostSurface, name: str, server: str | None) -> tuple[str, JsonObject]:
    """``(server, the listed prompt)`` for *name*: on *server*, the one server that lists it,
    or ``SERVER/NAME`` when no server lists *name* as written."""
    listings = await list_prompts(host, server)
    found = [
        (listing.server, item)
        for listing in listings
        for item in listing.items
        if item.get("name") == name
    ]
    owners = [owner for owner, _ in found]
    if len(found) == 1:
        return found[0]
    if len(owners) > 1:
        choices = " or ".join(f"{owner}/{name}" for owner in owners)
        raise BrowseError(f"{len(owners)} servers offer a prompt {name!r}: write {choices}")
    head, slash, rest = name.partition("/")
    if server is None and slash and head in {listing.server for listing in listings}:
        return await _prompt_owner(host, rest, head)
    offered = sorted(
        str(item.get("name"))
        for listing in listings
        for item in listing.items
        if item.get("name") is not None
    )
    failed = [f"{x.server}: {x.error}" for x in listings if x.error and server is not None]
    where = f" of {server}" if server else ""
    known = f" (prompts{where}: {', '.join(offered)})" if offered else ""
    reason = f"; {failed[0]}" if failed else ""
    raise BrowseError(f"no prompt named {name!r}{known}{reason}")


def _argument_problem(prompt: Mapping[str, object], given: Mapping[str, str]) -> str | None:
    """What is wrong with *given* for the listed *prompt*: an argument it does not take, or
    a required one missing (the signature says what it takes; ``?``: optional)."""
    listed = prompt.get("arguments")
    declared = [a for a in listed if isinstance(a, Mapping)] if isinstance(listed, list) else []
    names = [str(a.get("name")) for a in declared]
    signature = ", ".join(
        f"{n}{'' if a.get('required') else '?'}" for n, a in zip(names, declared, strict=True)
    )
    takes = f"it takes: {signature}" if names else "it takes no arguments"
    unknown = sorted(set(given) - set(names))
    if unknown:
        return f"unknown argument(s) {', '.join(map(repr, unknown))} ({takes})"
    missing = [
        n for n, a in zip(names, declared, strict=True) if a.get("required") and n not in given
    ]
    if missing:
        return f"missing required argument(s) {', '.join(map(repr, missing))} ({takes})"
    return None


async def get_prompt(
    host: HostSurface, name: str, arguments: Mapping[str, str], server: str | None = None
) -> Prompt:
    """Prompt *name* rendered with *arguments* (``SERVER/NAME`` or *server* says whose, when
    several servers offer one of that name); :class:`BrowseError` when it cannot be."""
    owner, listed = await _prompt_owner(host, name, server)
    plain = str(listed["name"])
    problem = _argument_problem(listed, arguments)
    if problem is not None:
        raise BrowseError(f"{owner}/{plain}: {problem}")
    entry = _utility(host, owner, "get_prompt")
    if entry is None:
        raise BrowseError(f"{owner}: {_why_missing(host, owner, Family.PROMPTS)}")
    given: JsonObject = {"name": plain}
    if arguments:
        given["arguments"] = {**arguments}
    result = await host.call_tool(entry.name, given)
    data = utility_data(entry.tool, result)
    if data is None:
        raise BrowseError(f"{owner}: {_error_text(result)}")
    messages = [m for m in data.get("messages", ()) if isinstance(m, dict)]
    description = data.get("description")
    return Prompt(owner, plain, description if isinstance(description, str) else None, messages)
