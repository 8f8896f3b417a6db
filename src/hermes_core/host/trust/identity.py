"""Which tool a pin or a remembered decision belongs to: the tool the user saw, under the name
the agent sees.

The agent calls a server's tool by its registry name, ``mcp_<server>_<tool>`` with every
character outside ``[A-Za-z0-9_]`` made ``_`` (``hermes_core.host.tools.naming``).  That mapping is
lossy: ``read_file`` and ``read-file`` are both ``mcp_files_read_file``.  So a server that
replaces a pinned ``read_file`` by ``read-file`` offers the agent a *different* tool under the
name it already trusts.  Pins and decisions are therefore matched by the tool's **name key** —
the tool part of that registry name (before a long name is shortened) — and a listed tool that
is not the pinned one of its key is a changed definition of it (see ``screen.py``).
"""

from __future__ import annotations

from collections.abc import Iterable

from hermes_core.host.tools.naming import sanitize_component

__all__ = ["PinnedNames", "name_key"]


def name_key(tool: str) -> str:
    """The part of ``mcp_<server>_<tool>`` that names *tool* (``read-file`` -> ``read_file``)."""
    return sanitize_component(tool)


class PinnedNames:
    """The pinned tools of one server, found by name key."""

    def __init__(self, pinned: Iterable[str]) -> None:
        self.names = set(pinned)
        self._by_key: dict[str, str] = {}
        for name in sorted(self.names):
            self._by_key.setdefault(name_key(name), name)

    def compared_with(self, tool: str) -> str | None:
        """The pinned tool *tool* is compared with: itself when it is pinned, else the pinned
        tool whose name the agent sees is the same (the first by name when several are: tools
        pinned together at first sight), else ``None`` (a name the agent has not seen)."""
        if tool in self.names:
            return tool
        return self._by_key.get(name_key(tool))
