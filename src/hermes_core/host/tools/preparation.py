"""From a server's listed tools to the ones the host offers: the ``tools:`` filter, each input
schema validated and repaired, descriptions cleaned, task-only tools set aside with the reason.

A re-list prepares only what changed: an unchanged tool (equal JSON) of the same config keeps
its prepared form.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

from hermes_core.host.server_spec import HostServer
from hermes_core.host.tasks.support import runs_tool_tasks
from hermes_core.host.tools.filtering import ToolFilter, utility_tools
from hermes_core.host.tools.listing import tool_name
from hermes_core.host.tools.overrides import ToolOverride, overridden_schema, override_problem
from hermes_core.json_types import JsonObject
from hermes_core.sanitize import clean_text, prepare_input_schema

if TYPE_CHECKING:
    from mcp.types import ServerCapabilities

__all__ = [
    "TASK_REQUIRED_REASON",
    "Listed",
    "OverrideProblem",
    "ToolPreparation",
    "Usable",
    "prepare_tool",
    "same_listing",
]

log = logging.getLogger(__name__)

TASK_REQUIRED_REASON = (
    "not offered: it can only run as a task (execution.taskSupport: required), and the server "
    "does not declare task-augmented tools/call (capabilities.tasks.requests.tools.call, or the "
    "io.modelcontextprotocol/tasks extension)"
)

#: A listed tool offered: (name, description, its prepared input schema, the wire dict).
Usable = tuple[str, str, JsonObject, JsonObject]
#: A server's offered tools and its utility tools (the input of the name assignment).
Listed = tuple[list[Usable], list[str]]
#: A listed tool not offered because it only runs as a task.
_TASK_REQUIRED = "task required"
#: What a listed tool comes to: offered, task-only, skipped (the reason), or its override's
#: problem (an :class:`OverrideProblem`).
_Prepared = Usable | str
#: A tool's wire dict and what it came to.
_Memo = tuple[JsonObject, _Prepared]


def prepare_tool(tool: JsonObject) -> _Prepared:
    """One listed tool, ready to register: its schema validated and repaired (kept as it is
    when it needs no repair), its description cleaned; or why it is not offered."""
    schema, problem = prepare_input_schema(tool["inputSchema"])
    if schema is None:
        return str(problem)
    execution = tool.get("execution")
    if isinstance(execution, dict) and execution.get("taskSupport") == "required":
        return _TASK_REQUIRED
    return _usable(tool, cast(JsonObject, schema))  # (a normalised copy of JSON: JSON)


def _usable(tool: JsonObject, schema: JsonObject) -> Usable:
    description = tool.get("description")
    return (
        tool_name(tool),
        clean_text(description if isinstance(description, str) else ""),
        schema,
        tool,
    )


class OverrideProblem(str):
    """Why a tool's override cannot apply (``<file>:<line>: <key>: <what>``): the tool is not
    offered rather than offered as the server wrote it."""

    __slots__ = ()


def overridden(override: ToolOverride, usable: Usable) -> Usable | OverrideProblem:
    """*usable* as its override shows it (description, the schema the model sees), or why the
    override does not fit the tool's schema."""
    name, description, schema, tool = usable
    problem = override_problem(override, schema)
    if problem is not None:
        return OverrideProblem(problem)
    shown = clean_text(override.description) if override.description else description
    return (name, shown, overridden_schema(override, schema), tool)


def unknown_overrides(config: HostServer, tools: list[JsonObject]) -> list[str]:
    """The overrides of *config* naming a tool the server does not list, one error each."""
    if not config.overrides:
        return []
    listed = {tool_name(tool) for tool in tools}
    return [
        f"{override.where()}: the server lists no tool {tool!r}"
        for tool, override in config.overrides.items()
        if tool not in listed
    ]


def same_listing(before: Listed | None, after: Listed) -> bool:
    """Whether *after* holds the very prepared tools of *before* (a re-list found no change)."""
    if before is None or before[1] != after[1] or len(before[0]) != len(after[0]):
        return False
    return all(a is b for a, b in zip(before[0], after[0], strict=True))


class ToolPreparation:
    """Prepares each server's listing, and keeps what was not offered and why."""

    def __init__(self) -> None:
        # Server -> (the config it was prepared for, tool name -> (its wire dict, outcome)).
        self.prepared: dict[str, tuple[HostServer, dict[str, _Memo]]] = {}
        self.skipped_tools: dict[str, list[str]] = {}
        self.unoffered_tools: dict[str, dict[str, str]] = {}
        """Server -> {tool: why it is listed by the server but not offered}."""
        self.filtered_out: dict[str, int] = {}
        self.override_problems: dict[str, list[str]] = {}
        """Server -> the overrides that could not apply to its last listing (one line each)."""

    def usable_tools(
        self,
        config: HostServer,
        tools: list[JsonObject],
        caps: ServerCapabilities | None,
        invalid: list[str] | None = None,
        held: Mapping[str, str] | None = None,
    ) -> Listed:
        """The offered tools of *tools* and the server's utility tools; *invalid* are the
        tools the listing already skipped (reported with the ones skipped here); *held* are
        the tools the trust state holds back (tool -> why), listed as not offered."""
        chosen = ToolFilter(config.include, config.exclude)
        usable: list[Usable] = []
        skipped: list[str] = []
        filtered_out = 0
        unoffered: dict[str, str] = {}
        memo_config, memo = self.prepared.get(config.name, (None, {}))
        if memo_config is not config:
            memo = {}
        prepared: dict[str, _Memo] = {}
        overrides = config.overrides
        problems = unknown_overrides(config, tools)
        for tool in tools:
            name = tool_name(tool)
            override = overrides.get(name) if overrides else None
            shown = override.name if override is not None else None
            if not (chosen.allows(name) if shown is None else chosen.allows_either(name, shown)):
                filtered_out += 1
                continue
            if held and name in held:
                unoffered[name] = held[name]
                continue
            before = memo.get(name)
            if before is not None and (before[0] is tool or before[0] == tool):
                outcome = before[1]
            else:
                outcome = prepare_tool(tool)
                if override is not None and isinstance(outcome, tuple):
                    outcome = overridden(override, outcome)
            prepared[name] = (tool, outcome)
            if isinstance(outcome, tuple):
                usable.append(outcome)
            elif isinstance(outcome, OverrideProblem):
                unoffered[name] = f"not offered: its override does not fit: {outcome}"
                problems.append(str(outcome))
            elif outcome is _TASK_REQUIRED:
                if runs_tool_tasks(caps):  # called as a task (hermes_core.host.tasks)
                    schema, _problem = prepare_input_schema(tool["inputSchema"])
                    assert schema is not None  # (validated by prepare_tool)
                    task_tool = _usable(tool, cast(JsonObject, schema))  # (JSON: see above)
                    shaped = overridden(override, task_tool) if override else task_tool
                    if isinstance(shaped, OverrideProblem):
                        unoffered[name] = f"not offered: its override does not fit: {shaped}"
                        problems.append(str(shaped))
                    else:
                        usable.append(shaped)
                else:  # a plain call to such a tool is refused by the server
                    unoffered[name] = TASK_REQUIRED_REASON
            else:
                skipped.append(f"{name}: {outcome}")
                log.warning("MCP server '%s': skipping tool %r: %s", config.name, name, outcome)
        self.prepared[config.name] = (config, prepared)
        self.skipped_tools[config.name] = (invalid or []) + skipped
        self.filtered_out[config.name] = filtered_out
        self.unoffered_tools[config.name] = unoffered
        if problems != self.override_problems.get(config.name, []):
            for problem in problems:
                log.warning("MCP server '%s': tool override: %s", config.name, problem)
        self.override_problems[config.name] = problems
        flags = {
            "resources": caps is not None and caps.resources is not None,
            "prompts": caps is not None and caps.prompts is not None,
        }
        return usable, list(utility_tools(flags, config.resources, config.prompts))

    def forget(self, server: str) -> None:
        self.prepared.pop(server, None)
        self.override_problems.pop(server, None)
