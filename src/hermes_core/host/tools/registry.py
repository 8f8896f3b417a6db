"""The tool registry: every server's tools under their Hermes names, by toolset."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from hermes_core.host.tools.overrides import ToolOverride
from hermes_core.json_types import JsonObject

__all__ = ["ToolEntry", "ToolRegistry"]


@dataclass(frozen=True)
class ToolEntry:
    """One registered tool: ``mcp_<server>_<tool>`` in toolset ``mcp-<server>``."""

    name: str
    server: str
    tool: str
    description: str
    input_schema: JsonObject = field(hash=False)
    toolset: str
    utility: bool = False
    read_only: bool = False
    """The server marked the tool ``readOnlyHint: true`` (it changes nothing)."""
    title: str | None = None
    """The tool's human-readable title (``title``, else ``annotations.title``), sanitised."""
    annotations: JsonObject | None = field(default=None, hash=False)
    """The server's hints as sent (``readOnlyHint``, ``destructiveHint``, ``idempotentHint``,
    ``openWorldHint``, ``title``), sanitised; hints are untrusted, so only :attr:`read_only`
    changes what Hermes does (the ``trust: untrusted`` approval)."""
    output_schema: JsonObject | None = field(default=None, hash=False)
    """The tool's ``outputSchema``; a result's ``structuredContent`` is checked against it."""
    execution: JsonObject | None = field(default=None, hash=False)
    """The tool's ``execution`` block (``taskSupport``), sanitised."""
    supports_parallel_tool_calls: bool = False
    """The server's ``supports_parallel_tool_calls`` setting (its calls may overlap)."""
    max_result_chars: int | None = None
    """The tool's own result limit (``_meta["anthropic/maxResultSizeChars"]``), if it set one."""
    max_result_tokens: int | None = None
    """This tool's result budget (``tools.overrides.<tool>.max_result_tokens``); ``None``: the
    server's."""
    override: ToolOverride | None = field(default=None, hash=False)
    """The tool's ``tools.overrides`` entry (its name, description, schema and annotations
    above are already the overridden ones; its fixed and default arguments are merged into each
    call); ``None``: shown as the server wrote it."""

    app_uri: str | None = None
    """The ``ui://`` resource of the tool's MCP App (``_meta.ui.resourceUri``), if it names one."""


class ToolRegistry:
    """Thread-safe mapping of registered names to entries; replaced per server as a diff.

    Listing is a cached snapshot: each server's sorted run is rebuilt only when its tools change,
    and the all-servers listing is merged from the runs once after a change, so listing an
    unchanged registry sorts nothing, however many tools it holds.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tools: dict[str, ToolEntry] = {}
        self._owned: dict[str, dict[str, ToolEntry]] = {}  # server -> its names -> entries
        self._runs: dict[str, tuple[ToolEntry, ...]] = {}  # server -> sorted, built on demand
        self._all: tuple[ToolEntry, ...] | None = ()
        self._listeners: list[Callable[[], None]] = []

    def add_listener(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call *listener* (no arguments, quick, must not raise) after each change of the
        registered names; returns the function that removes it (``hermes mcp proxy``)."""
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    def replace_server(self, server: str, entries: list[ToolEntry]) -> tuple[list[str], list[str]]:
        """Make *entries* the server's tools; returns (added, removed) names.

        Names that stay are swapped in place, so concurrent calls never see a gap.  A name
        another server registered before moves to its new owner.
        """
        with self._lock:
            mine = self._owned.get(server, {})
            old = set(mine)
            new: set[str] = set()
            touched = {server}
            for entry in entries:
                name = entry.name
                new.add(name)
                previous = self._tools.get(name)
                if previous is not None and previous.server != entry.server:
                    self._owned[previous.server].pop(name, None)
                    touched.add(previous.server)
                self._tools[name] = entry
                self._owned.setdefault(entry.server, {})[name] = entry
                touched.add(entry.server)
            mine = self._owned.get(server, {})
            for name in old - new:
                del self._tools[name]
                mine.pop(name, None)
            for name in touched:
                self._runs.pop(name, None)
                if not self._owned.get(name, True):
                    del self._owned[name]
            self._all = None  # merged again on the next listing
        if new != old and self._listeners:
            self._changed()
        return sorted(new - old), sorted(old - new)

    def replace_all(
        self, entries: dict[str, list[ToolEntry]]
    ) -> dict[str, tuple[list[str], list[str]]]:
        """Make *entries* the whole registry at once; returns server → (added, removed) names.

        Registry names are assigned over every server together, so one server's listing can
        rename another server's tool: applying everything under one lock means no name is ever
        briefly held by the wrong server.
        """
        with self._lock:
            old = {server: set(names) for server, names in self._owned.items()}
            owned = {
                server: {e.name: e for e in server_entries}
                for server, server_entries in entries.items()
                if server_entries
            }
            # A server whose entries did not change keeps its sorted run.
            self._runs = {
                server: run
                for server, run in self._runs.items()
                if owned.get(server) == self._owned.get(server)
            }
            self._owned = owned
            self._tools = {name: e for mine in owned.values() for name, e in mine.items()}
            self._all = None
        changes: dict[str, tuple[list[str], list[str]]] = {}
        for server in set(old) | set(entries):
            before = old.get(server, set())
            after = {e.name for e in entries.get(server, [])}
            if before != after:
                changes[server] = (sorted(after - before), sorted(before - after))
        if changes and self._listeners:
            self._changed()
        return changes

    def drop_server(self, server: str) -> list[str]:
        return self.replace_server(server, [])[1]

    def get(self, name: str) -> ToolEntry | None:
        # One dict read is atomic, and replace_server swaps entries in place: no lock needed.
        return self._tools.get(name)

    def names(self) -> set[str]:
        with self._lock:
            return set(self._tools)

    def entries(self, server: str | None = None) -> list[ToolEntry]:
        """Entries sorted by name (one server's, or all), copied from the cached snapshot."""
        return list(self.snapshot(server))

    def snapshot(self, server: str | None = None) -> tuple[ToolEntry, ...]:
        """Like :meth:`entries`, as the shared immutable tuple (no copy, no sort when unchanged)."""
        return self.listing(server)[0]

    def listing(self, server: str | None = None) -> tuple[tuple[ToolEntry, ...], list[str]]:
        """:meth:`snapshot` and the servers that own its entries, taken together."""
        with self._lock:
            if server is not None:
                run = self._run(server)
                return run, [server] if run else []
            if self._all is None:
                # Each run is sorted already, so Timsort merges them in O(n log servers).
                merged = [entry for owner in self._owned for entry in self._run(owner)]
                merged.sort(key=_by_name)
                self._all = tuple(merged)
            return self._all, list(self._owned)

    def _run(self, server: str) -> tuple[ToolEntry, ...]:
        run = self._runs.get(server)
        if run is None:
            run = tuple(sorted(self._owned.get(server, {}).values(), key=_by_name))
            if run:
                self._runs[server] = run
        return run

    def servers(self) -> list[str]:
        """The servers with at least one registered tool."""
        with self._lock:
            return list(self._owned)

    def toolsets(self) -> dict[str, list[str]]:
        """Toolset name → tool names; a server with no tools has no toolset."""
        sets: dict[str, list[str]] = {}
        for entry in self.snapshot():
            sets.setdefault(entry.toolset, []).append(entry.name)
        return sets


def _by_name(entry: ToolEntry) -> str:
    return entry.name
