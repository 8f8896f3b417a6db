"""Registering the servers' tools under their Hermes names, all servers at once.

The names depend on the set of tools alone (not on which server connected first): see
:func:`hermes_core.host.tools.naming.assign_names`.  :class:`ToolNaming` keeps each server's
prepared listing and the memos that keep starting N servers linear in N.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TypedDict

from hermes_core.host.server_spec import HostServer
from hermes_core.host.tools.listing import annotations_of, execution_of
from hermes_core.host.tools.naming import (
    NameCollision,
    assign_names,
    registered_tool_name,
    toolset_name,
)
from hermes_core.host.tools.overrides import ToolOverride
from hermes_core.host.tools.preparation import Listed, Usable
from hermes_core.host.tools.registry import ToolEntry, ToolRegistry
from hermes_core.host.tools.utility_tools import UTILITY_DESCRIPTIONS, UTILITY_SCHEMAS
from hermes_core.json_types import JsonObject
from hermes_core.sanitize import clean_text, sanitize_value

__all__ = ["ToolMetadata", "ToolNaming", "overridden_metadata", "tool_metadata"]

log = logging.getLogger(__name__)


class ToolNaming:
    """Each server's listing, named and applied to the registry, with the memos of the last
    assignment (plain names per listing, entries per tool, entries per unchanged listing)."""

    def __init__(self, registry: ToolRegistry, servers: Mapping[str, HostServer]) -> None:
        self.registry = registry
        self._servers = servers
        self.listed: dict[str, Listed] = {}
        """Server -> its usable tools and its utility tools: the input of the assignment."""
        self.collisions: tuple[NameCollision, ...] = ()
        """Every current tool name collision, across all servers."""
        # Server -> (its listing, (tool, utility) -> plain registry name).
        self._plain_names: dict[str, tuple[Listed, dict[tuple[str, bool], str]]] = {}
        # Server -> (its config, registry name -> (the usable tuple or utility, its entry)).
        self._entry_memo: dict[
            str, tuple[HostServer | None, dict[str, tuple[Usable | str, ToolEntry]]]
        ] = {}
        # While no names collide, server -> (its config, its listing, its entries) as applied.
        self._unchanged_entries: dict[str, tuple[HostServer | None, Listed, list[ToolEntry]]] = {}

    def _renamed(self, server: str) -> dict[str, str]:
        """*server*'s tools an override renames: own name -> the override's name."""
        config = self._servers.get(server)
        if config is None or not config.overrides:
            return {}
        return {tool: o.name for tool, o in config.overrides.items() if o.name is not None}

    def collision_lines(self) -> list[str]:
        return [c.message() for c in self.collisions]

    def collisions_of(self, server: str) -> list[str]:
        """The current tool name collisions *server* takes part in, one line each."""
        return [c.message() for c in self.collisions if any(m.server == server for m in c.members)]

    def apply(self, server: str, listed: Listed) -> dict[str, tuple[list[str], list[str]]]:
        """Make *listed* the server's listing and name everything again."""
        self.listed[server] = listed
        return self.assign()

    def forget(self, server: str) -> None:
        """Take *server*'s tools out (names of the others may change back)."""
        if self.listed.pop(server, None) is not None:
            self.assign()
        self.registry.drop_server(server)

    def assign(self) -> dict[str, tuple[list[str], list[str]]]:
        """Name every listed tool of every server at once and apply it to the registry.

        The names depend on the set of tools alone (not on which server connected first):
        see :func:`hermes_core.host.tools.naming.assign_names`.  Returns server → (added, removed)
        for every server whose names changed; a server renamed by another's listing is logged.

        Starting N servers names the tools N times, so the common case is kept linear in the
        changed server's tools: each listing's plain names are computed once (kept with the
        listing), and when no two tools anywhere share a plain name (no collision: nothing to
        suffix) every tool's name is its plain name, exactly what :func:`assign_names` would
        give, and a server whose listing is unchanged keeps its entries as they are.
        """
        plain: dict[str, dict[tuple[str, bool], str]] = {}
        count = 0
        for server, listed in self.listed.items():
            known_names = self._plain_names.get(server)
            if known_names is None or known_names[0] is not listed:
                usable, utilities = listed
                renamed = self._renamed(server)
                names = {
                    (name, False): registered_tool_name(server, renamed.get(name, name))
                    for name, *_ in usable
                }
                names.update({(u, True): registered_tool_name(server, u) for u in utilities})
                known_names = self._plain_names[server] = (listed, names)
            plain[server] = known_names[1]
            count += len(known_names[1])
        for server in set(self._plain_names) - set(self.listed):
            del self._plain_names[server]
        distinct = len(set().union(*(names.values() for names in plain.values())))
        if distinct == count:  # no collisions: every name is its plain name

            def name_for(server: str, tool: str, *, utility: bool = False) -> str:
                return plain[server][(tool, utility)]

            collisions: tuple[NameCollision, ...] = ()
        else:
            assignment = assign_names(
                [(s, name) for s, (usable, _) in self.listed.items() for name, *_ in usable],
                [(s, u) for s, (_, utilities) in self.listed.items() for u in utilities],
                {(s, tool): shown for s in self.listed for tool, shown in self._renamed(s).items()},
            )
            name_for, collisions = assignment.name_for, assignment.collisions
        known = {c.message() for c in self.collisions}
        for collision in collisions:
            if collision.message() not in known:
                log.warning("%s", collision.message())
        self.collisions = collisions
        entries: dict[str, list[ToolEntry]] = {}
        for server, listed in self.listed.items():
            usable, utilities = listed
            config = self._servers.get(server)
            if not collisions:
                same = self._unchanged_entries.get(server)
                if same is not None and same[0] is config and same[1] is listed:
                    entries[server] = same[2]  # its listing and names as last time
                    continue
            shown = config.name if config is not None else server
            parallel = config.supports_parallel_tool_calls if config is not None else False
            toolset = toolset_name(server)
            # An entry is rebuilt only when its tool or its name changed: registering one
            # server leaves the others' entries (and the registry's sorted runs) as they are.
            memo_config, memo = self._entry_memo.get(server, (None, {}))
            if memo_config is not config:
                memo = {}
            kept: dict[str, tuple[Usable | str, ToolEntry]] = {}
            mine: list[ToolEntry] = []
            for item in usable:
                name, desc, schema, tool = item
                registered = name_for(server, name)
                before = memo.get(registered)
                if before is not None and before[0] is item:
                    entry = before[1]
                else:
                    override = config.overrides.get(name) if config is not None else None
                    entry = ToolEntry(
                        registered,
                        server,
                        name,
                        desc,
                        schema,
                        toolset,
                        supports_parallel_tool_calls=parallel,
                        **overridden_metadata(tool_metadata(tool), override),
                    )
                kept[registered] = (item, entry)
                mine.append(entry)
            for u in utilities:
                registered = name_for(server, u, utility=True)
                before = memo.get(registered)
                if before is not None and before[0] == u:
                    entry = before[1]
                else:
                    entry = ToolEntry(
                        registered,
                        server,
                        u,
                        UTILITY_DESCRIPTIONS[u].format(s=shown),
                        UTILITY_SCHEMAS[u],
                        toolset,
                        utility=True,
                        read_only=True,
                        annotations={"readOnlyHint": True},
                        supports_parallel_tool_calls=parallel,
                    )
                kept[registered] = (u, entry)
                mine.append(entry)
            self._entry_memo[server] = (config, kept)
            entries[server] = mine
            if not collisions:
                self._unchanged_entries[server] = (config, listed, mine)
            else:
                self._unchanged_entries.pop(server, None)
        for server in set(self._entry_memo) - set(self.listed):
            del self._entry_memo[server]
        for server in set(self._unchanged_entries) - set(self.listed):
            del self._unchanged_entries[server]
        return self.registry.replace_all(entries)


class ToolMetadata(TypedDict, total=False):
    """What a :class:`ToolEntry` shows of a listed tool besides its name, description and
    schema (its keyword arguments)."""

    read_only: bool
    title: str | None
    annotations: JsonObject | None
    output_schema: JsonObject | None
    execution: JsonObject | None
    max_result_chars: int | None
    app_uri: str | None
    override: ToolOverride
    max_result_tokens: int


def tool_metadata(tool: Mapping[str, object]) -> ToolMetadata:
    """A listed tool's title, annotations, output schema and execution, sanitised."""
    hints = annotations_of(tool)
    title = tool.get("title") or hints.get("title")
    output_schema = tool.get("outputSchema")
    execution = execution_of(tool)
    return {
        "read_only": hints.get("readOnlyHint") is True,
        "title": clean_text(title) if isinstance(title, str) else None,
        "annotations": sanitize_value(hints) if hints else None,
        "output_schema": sanitize_value(dict(output_schema))
        if isinstance(output_schema, dict)
        else None,
        "execution": sanitize_value(execution) if execution else None,
        "max_result_chars": result_size_hint(tool),
        "app_uri": app_resource_uri(tool),
    }


def overridden_metadata(metadata: ToolMetadata, override: ToolOverride | None) -> ToolMetadata:
    """A tool's :func:`tool_metadata` as its override shows it: its title, its annotations
    made more cautious (``read_only`` follows), its result budget; the override itself kept
    on the entry (its fixed and default arguments)."""
    if override is None:
        return metadata
    shaped: ToolMetadata = {**metadata, "override": override}
    annotations = metadata.get("annotations")
    if override.title is not None:
        title = shaped["title"] = clean_text(override.title)
        if annotations and "title" in annotations:
            shaped["annotations"] = {**annotations, "title": title}
    if override.annotations:
        hints: JsonObject = dict(shaped.get("annotations") or {})
        hints.update(override.annotations)
        if hints.get("destructiveHint") is True:
            hints["readOnlyHint"] = False  # (a destructive tool is never read-only)
        shaped["annotations"] = hints
        if hints.get("readOnlyHint") is not True:
            shaped["read_only"] = False
    if override.max_result_tokens is not None:
        shaped["max_result_tokens"] = override.max_result_tokens
    return shaped


#: The longest ``ui://`` URI a tool's app may name.
MAX_APP_URI = 2048


def app_resource_uri(tool: Mapping[str, object]) -> str | None:
    """The ``ui://`` resource a tool's ``_meta.ui.resourceUri`` names (the MCP Apps
    extension; the older flat key ``ui/resourceUri`` too), when it is a clean one."""
    meta = tool.get("_meta")
    if not isinstance(meta, Mapping):
        return None
    ui = meta.get("ui")
    uri = ui.get("resourceUri") if isinstance(ui, Mapping) else meta.get("ui/resourceUri")
    if not isinstance(uri, str) or not uri.startswith("ui://") or len(uri) > MAX_APP_URI:
        return None
    return uri if uri == clean_text(uri) and uri.isprintable() and " " not in uri else None


#: The tool ``_meta`` key of a per-tool result limit, in characters (as Claude Code reads it).
RESULT_SIZE_HINT = "anthropic/maxResultSizeChars"


def result_size_hint(tool: Mapping[str, object]) -> int | None:
    """The tool's own result limit in characters (``_meta``), when it is a positive number."""
    meta = tool.get("_meta")
    if not isinstance(meta, Mapping):
        return None
    hint = meta.get(RESULT_SIZE_HINT)
    if isinstance(hint, bool) or not isinstance(hint, int | float) or not hint >= 1:
        return None
    return int(min(hint, 2**53))
