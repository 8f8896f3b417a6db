"""Why a tool name that is not in the registry is not there, when the host itself is why.

A tool the host does not offer is refused by every path (``hermes mcp call``,
:meth:`MCPHost.call_tool <hermes_core.host.host.MCPHost.call_tool>`, ``hermes mcp serve``)
with the reason ``hermes mcp status`` gives, never run and never answered by a bare "unknown
tool": a tool the server lists but the host does not offer (one that only runs as a task,
say), or a name of a server that was not offered sampling, which servers answer by listing
their sampling tools only to hosts that offer it (server-everything's
``trigger-sampling-request``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from hermes_core.host.tools.naming import registered_tool_name, sanitize_component

__all__ = ["UnofferedReasons"]


class UnofferedReasons:
    """The reason the host gives for a name it does not offer, from what it keeps."""

    def __init__(
        self,
        servers: Callable[[], Iterable[str]],
        unoffered_tools: Callable[[], Mapping[str, Mapping[str, str]]],
        sampling_status: Callable[[str], Mapping[str, object] | None],
        wants_sampling: Callable[[str], bool],
        registered_as: Callable[[str, str], str] = registered_tool_name,
    ) -> None:
        """*servers*: the connected servers' names; *wants_sampling(name)*: whether the
        server's config asks for sampling (enabled, with a model), so that a name missing
        from it may be a sampling tool (a plain server's missing name is a plain unknown);
        *registered_as(server, tool)*: the plain registry name of a server's tool (an
        override's name where it renames one)."""
        self._registered_as = registered_as
        self._servers = servers
        self._unoffered = unoffered_tools
        self._sampling = sampling_status
        self._wants_sampling = wants_sampling

    def __call__(self, name: str) -> str | None:
        """Why *name* (a registered-style name) is not offered, or ``None`` (not ours to say)."""
        for server, tools in self._unoffered().items():
            for tool, why in tools.items():
                if self._registered_as(server, tool) == name:
                    return f"MCP server '{server}': tool {tool!r} {why}"
        owners = [s for s in self._servers() if name.startswith(f"mcp_{sanitize_component(s)}_")]
        for server in sorted(owners, key=len, reverse=True)[:1]:  # the longest prefix owns it
            sampling = self._sampling(server)
            wanted = self._wants_sampling(server)
            if wanted and sampling is not None and not sampling.get("offered"):
                return (
                    f"tool {name!r} is not offered: MCP server '{server}' was not offered "
                    f"sampling ({sampling.get('reason')}), and servers list their sampling "
                    "tools only to a host that offers it"
                )
        return None
