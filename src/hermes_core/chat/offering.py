"""Which tools ``hermes chat`` offers the model: every schema, or a ``tool_search`` tool.

With ``tool_search: auto`` (the default), the model gets every offered tool's schema while
their estimated size stays within ``tool_search_budget`` tokens; past it (or always, with
``tool_search: on``) it gets the tools of ``always_load: true`` servers, the ``tool_search``
tool, and each tool a search has found, in full for the rest of the session.  ``off`` never
searches.

The estimate is the length of each tool's JSON (name, description, input schema) divided by
four, the usual rule of thumb for English and JSON with BPE tokenizers; it is an estimate
of the order of magnitude, not a model's own count.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, TypedDict

from hermes_core.config.chat import ChatSettings, ToolSearchMode
from hermes_core.host.tools.name_pattern import PatternError

if TYPE_CHECKING:
    from hermes_core.host.host import MCPHost
    from hermes_core.host.tools.registry import ToolEntry

__all__ = [
    "CHARS_PER_TOKEN",
    "SEARCH_LIMIT",
    "SEARCH_TOOL",
    "ToolOffer",
    "ToolSchema",
    "estimate_tokens",
    "tool_schema",
]

#: The name of the search tool offered to the model.
SEARCH_TOOL = "tool_search"
#: How many tools one search returns at most (the model may ask for fewer, or up to 20).
SEARCH_LIMIT = 5
_MAX_LIMIT = 20
#: Characters per token of the estimate.
CHARS_PER_TOKEN = 4
_DESCRIPTION_CHARS = 300

SEARCH_DESCRIPTION = (
    "Search the available MCP tools by what they do. Only some tools are loaded; call this "
    "with a few words describing the task (e.g. 'delete a DNS record') and the best matching "
    "tools become available to call, for the rest of the conversation. Or give 'pattern', a "
    "regular expression over tool names (e.g. '^mcp_github_.*issue'), instead of 'query'."
)
SEARCH_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What the tool should do, in a few words."},
        "pattern": {
            "type": "string",
            "description": "Instead of query: a regular expression over tool names "
            "(case-insensitive, matched anywhere in the name).",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": _MAX_LIMIT,
            "description": f"How many tools to return (default {SEARCH_LIMIT}).",
        },
    },
}


class ToolSchema(TypedDict):
    """What the model is sent for one tool."""

    name: str
    description: str
    input_schema: Mapping[str, object]


def tool_schema(entry: ToolEntry) -> ToolSchema:
    """What the model is sent for *entry*: its name, description and input schema."""
    return {
        "name": entry.name,
        "description": entry.description,
        "input_schema": entry.input_schema,
    }


def estimate_tokens(schemas: Sequence[Mapping[str, object]]) -> int:
    """The estimated tokens of *schemas* (their compact JSON's length / 4, rounded up)."""
    size = sum(len(json.dumps(s, separators=(",", ":"), ensure_ascii=False)) for s in schemas)
    return math.ceil(size / CHARS_PER_TOKEN)


class ToolOffer:
    """The tools one chat session offers, and the search that adds to them."""

    def __init__(
        self, host: MCPHost, settings: ChatSettings, always_load: Collection[str] = ()
    ) -> None:
        self._host = host
        self._settings = settings
        self._always_load = frozenset(always_load)
        self._found: dict[str, None] = {}  # names a search returned, in order
        self.searching = False
        """Whether the model gets ``tool_search`` instead of every schema (see :meth:`update`)."""
        self.all_tokens = 0
        """The estimated tokens of every offered tool's schema."""
        self.update()

    def reconfigure(self, settings: ChatSettings, always_load: Collection[str]) -> None:
        """New settings (``/reload-mcp``); the tools found so far stay found."""
        self._settings, self._always_load = settings, frozenset(always_load)
        self.update()

    def update(self) -> None:
        """Decide again whether to search, from the host's current tools."""
        every = self._host.tools()
        self.all_tokens = estimate_tokens([tool_schema(e) for e in every])
        mode = self._settings.tool_search
        self.searching = mode is ToolSearchMode.ON or (
            mode is ToolSearchMode.AUTO and self.all_tokens > self._settings.tool_search_budget
        )

    def tools(self) -> list[ToolEntry]:
        """The host's tools offered in full now."""
        every = self._host.tools()
        if not self.searching:
            return every
        return [e for e in every if e.server in self._always_load or e.name in self._found]

    def schemas(self) -> list[ToolSchema]:
        """Every schema the model is sent now, ``tool_search``'s included."""
        schemas = [tool_schema(e) for e in self.tools()]
        if self.searching:
            schemas.append(
                {
                    "name": SEARCH_TOOL,
                    "description": SEARCH_DESCRIPTION,
                    "input_schema": SEARCH_SCHEMA,
                }
            )
        return schemas

    def offered_tokens(self) -> int:
        """The estimated tokens of what the model is sent now."""
        return estimate_tokens(self.schemas())

    def search(self, arguments: Mapping[str, object]) -> dict[str, object]:
        """Run ``tool_search`` with the model's *arguments*: the matches, which are offered
        from now on, or ``{"error": ...}`` for bad arguments."""
        query, pattern = arguments.get("query"), arguments.get("pattern")
        limit = arguments.get("limit", SEARCH_LIMIT)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            limit = SEARCH_LIMIT
        if isinstance(pattern, str) and pattern and not (isinstance(query, str) and query.strip()):
            try:
                found = self._host.match_tools(pattern, min(limit, _MAX_LIMIT))
            except PatternError as exc:
                return {"error": f"tool_search: {exc}"}
        elif not isinstance(query, str) or not query.strip():
            return {
                "error": "tool_search needs a 'query' (a few words saying what to do) or a "
                "'pattern' (a regular expression over tool names)"
            }
        else:
            found = self._host.search_tools(query, min(limit, _MAX_LIMIT))
        for entry in found:
            self._found[entry.name] = None
        if not found:
            return {"tools": [], "note": "no tool matches; try other words"}
        return {
            "tools": [
                {"name": e.name, "description": e.description[:_DESCRIPTION_CHARS]} for e in found
            ],
            "note": "these tools can be called now",
        }
