"""The tool registry: every server's tools under their Hermes names, by toolset."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ToolEntry", "ToolRegistry"]


@dataclass(frozen=True)
class ToolEntry:
    """One registered tool: ``mcp_<server>_<tool>`` in toolset ``mcp-<server>``."""

    name: str
    server: str
    tool: str
    description: str
    input_schema: dict[str, Any] = field(hash=False)
    toolset: str
    utility: bool = False
    read_only: bool = False
    """The server marked the tool ``readOnlyHint: true`` (it changes nothing)."""
    title: str | None = None
    """The tool's human-readable title (``title``, else ``annotations.title``), sanitised."""
    annotations: dict[str, Any] | None = field(default=None, hash=False)
    """The server's hints as sent (``readOnlyHint``, ``destructiveHint``, ``idempotentHint``,
    ``openWorldHint``, ``title``), sanitised; hints are untrusted, so only :attr:`read_only`
    changes what Hermes does (the ``trust: untrusted`` approval)."""
    output_schema: dict[str, Any] | None = field(default=None, hash=False)
    """The tool's ``outputSchema``; a result's ``structuredContent`` is checked against it."""
    execution: dict[str, Any] | None = field(default=None, hash=False)
    """The tool's ``execution`` block (``taskSupport``), sanitised."""
    supports_parallel_tool_calls: bool = False
    """The server's ``supports_parallel_tool_calls`` setting (its calls may overlap)."""


class ToolRegistry:
    """Thread-safe mapping of registered names to entries; replaced per server as a diff."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tools: dict[str, ToolEntry] = {}

    def replace_server(self, server: str, entries: list[ToolEntry]) -> tuple[list[str], list[str]]:
        """Make *entries* the server's tools; returns (added, removed) names.

        Names that stay are swapped in place, so concurrent calls never see a gap.
        """
        with self._lock:
            old = {n for n, e in self._tools.items() if e.server == server}
            new = {e.name for e in entries}
            for entry in entries:
                self._tools[entry.name] = entry
            for name in old - new:
                del self._tools[name]
        return sorted(new - old), sorted(old - new)

    def drop_server(self, server: str) -> list[str]:
        return self.replace_server(server, [])[1]

    def get(self, name: str) -> ToolEntry | None:
        with self._lock:
            return self._tools.get(name)

    def names(self) -> set[str]:
        with self._lock:
            return set(self._tools)

    def entries(self, server: str | None = None) -> list[ToolEntry]:
        with self._lock:
            values = list(self._tools.values())
        return sorted(
            (e for e in values if server is None or e.server == server), key=lambda e: e.name
        )

    def toolsets(self) -> dict[str, list[str]]:
        """Toolset name → tool names; a server with no tools has no toolset."""
        sets: dict[str, list[str]] = {}
        for entry in self.entries():
            sets.setdefault(entry.toolset, []).append(entry.name)
        return sets
