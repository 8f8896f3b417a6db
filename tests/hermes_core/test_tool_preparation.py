"""From a server's listed tools to the offered ones (hermes_core.host.tools.preparation), in
memory: the filter, skipped and task-only tools, and the reuse of what was prepared before."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hermes_core.host.server_spec import HostServer
from hermes_core.host.tools.preparation import (
    TASK_REQUIRED_REASON,
    ToolPreparation,
    same_listing,
)

SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


def tool(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "description": f"{name} it", "inputSchema": SCHEMA, **extra}


def test_the_filter_task_only_and_broken_tools_are_kept_apart() -> None:
    config = HostServer("acme", command="unused", exclude=("secret_*",))
    preparation = ToolPreparation()
    tools = [
        tool("render"),
        tool("secret_keys"),
        tool("batch", execution={"taskSupport": "required"}),
        {"name": "broken", "inputSchema": {"type": "string"}},
    ]
    usable, utilities = preparation.usable_tools(config, tools, None, ["'odd': no name"])
    assert [name for name, *_ in usable] == ["render"]
    assert utilities == []
    assert preparation.filtered_out["acme"] == 1
    assert preparation.unoffered_tools["acme"] == {"batch": TASK_REQUIRED_REASON}
    skipped = preparation.skipped_tools["acme"]
    assert skipped[0] == "'odd': no name" and skipped[1].startswith("broken: ")


def test_a_task_only_tool_is_offered_when_the_server_runs_tool_calls_as_tasks() -> None:
    calls = SimpleNamespace(requests=SimpleNamespace(tools=SimpleNamespace(call={})))
    none = {"resources": None, "prompts": None}
    legacy = SimpleNamespace(tasks=calls, **none)
    modern = SimpleNamespace(tasks=None, extensions={"io.modelcontextprotocol/tasks": {}}, **none)
    other = SimpleNamespace(tasks=None, extensions={"io.example/other": {}}, **none)
    for caps, offered in ((legacy, True), (modern, True), (other, False)):
        preparation = ToolPreparation()
        config = HostServer("acme", command="unused")
        batch = tool("batch", execution={"taskSupport": "required"})
        usable, _ = preparation.usable_tools(config, [batch], caps)
        assert ([name for name, *_ in usable] == ["batch"]) is offered
        assert ("batch" in preparation.unoffered_tools["acme"]) is not offered


def test_an_unchanged_tool_keeps_its_prepared_form_for_the_same_config() -> None:
    config = HostServer("acme", command="unused")
    preparation = ToolPreparation()
    first = preparation.usable_tools(config, [tool("render")], None)
    again = preparation.usable_tools(config, [tool("render")], None)  # equal JSON, new dicts
    assert same_listing(first, again)
    other = HostServer("acme", command="unused", timeout=5.0)  # another config: prepared again
    assert not same_listing(first, preparation.usable_tools(other, [tool("render")], None))
    preparation.forget("acme")
    assert not same_listing(first, preparation.usable_tools(config, [tool("render")], None))
