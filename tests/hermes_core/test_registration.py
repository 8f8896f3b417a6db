"""Registration reads a listing once, as JSON, and re-prepares only what changed.

* A tool listing is read raw and each tool checked in place (``hermes_core.host.tools.listing``):
  the outcome is the SDK ``Tool`` model's, tool by tool (Hypothesis holds the two together).
* An input schema that needs no repair is kept as it is, never copied; one that does is
  repaired exactly as the copying pass repairs it (Hypothesis again).
* A stdio server that announces its changes is listed once at start; a re-list that finds
  nothing new rebuilds nothing, and one that finds a new tool rebuilds only that tool's entry.
"""

from __future__ import annotations

import asyncio
import copy
import json
import math
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from hermes_core.host.host import HostServer, MCPHost
from hermes_core.host.tools.listing import annotations_of, checked_tool, execution_of
from hermes_core.sanitize.schema import _repaired, prepare_input_schema

HOSTILE = Path(__file__).resolve().parents[1] / "servers" / "hostile_server.py"

# -- each tool checked as the SDK's model checks it -------------------------------------------
_TEXT = st.text(alphabet="ab \u200b\x1b", max_size=4)
_ODD = st.one_of(st.none(), st.integers(-1, 1), st.just("true"), st.just([]), _TEXT)
_ANNOTATIONS = st.dictionaries(
    st.sampled_from(
        ["title", "readOnlyHint", "destructiveHint", "openWorldHint", "read_only_hint", "x"]
    ),
    st.one_of(st.booleans(), _ODD),
    max_size=3,
)
_FIELDS: dict[str, Any] = {
    "name": st.one_of(_TEXT, _ODD),
    "inputSchema": st.one_of(st.just({"type": "object"}), _ODD),
    "input_schema": st.just({"type": "object", "properties": {}}),
    "description": st.one_of(_TEXT, _ODD),
    "title": st.one_of(_TEXT, _ODD),
    "annotations": st.one_of(_ANNOTATIONS, _ODD),
    "execution": st.one_of(
        st.fixed_dictionaries(
            {},
            optional={
                "taskSupport": st.sampled_from(["required", "optional", "forbidden", "x", None]),
                "task_support": st.just("optional"),
            },
        ),
        _ODD,
    ),
    "outputSchema": st.one_of(st.just({"type": "object"}), _ODD),
    "icons": st.one_of(st.just([{"src": "https://x.test/i.png"}]), st.just([{"s": 1}]), _ODD),
    "_meta": st.one_of(st.just({"k": 1}), _ODD),
    "extra": _ODD,
}
_TOOL = st.fixed_dictionaries(
    {
        "name": st.one_of(st.just("t"), _FIELDS["name"]),
        "inputSchema": st.one_of(st.just({"type": "object"}), _FIELDS["inputSchema"]),
    },
    optional={k: v for k, v in _FIELDS.items() if k not in ("name", "inputSchema")},
)


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(_TOOL)
def test_a_listed_tool_is_accepted_and_read_as_the_sdk_model_reads_it(item: dict[str, Any]) -> None:
    try:
        model = types.Tool.model_validate(item)
    except ValidationError:
        model = None
    tool, problem = checked_tool(item)
    assert (tool is None) == (model is None), (item, problem)
    if tool is None or model is None:
        assert problem is not None and problem.startswith("invalid ")
        return
    dumped = model.model_dump(by_alias=True, exclude_none=True)
    for key in ("name", "inputSchema", "outputSchema", "description", "title"):
        assert tool.get(key) == dumped.get(key), key
    assert annotations_of(tool) == dumped.get("annotations", {})
    assert execution_of(tool) == dumped.get("execution", {})


def test_a_plain_tool_is_kept_as_the_same_dict() -> None:
    item = {
        "name": "get",
        "description": "Get one.",
        "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
        "annotations": {"readOnlyHint": True, "title": "Get"},
        "execution": {"taskSupport": "optional"},
    }
    tool, problem = checked_tool(item)
    assert tool is item and problem is None


def test_a_refused_tool_says_which_field_is_wrong() -> None:
    assert checked_tool({"name": 7, "inputSchema": {}}) == (
        None,
        "invalid name: Input should be a valid string",
    )


# -- schemas: no copy when nothing needs repair, the copying pass's result otherwise ---------
_KEYWORDS = [
    "type",
    "properties",
    "required",
    "items",
    "prefixItems",
    "description",
    "title",
    "additionalProperties",
    "anyOf",
    "$ref",
    "$defs",
    "enum",
    "default",
]
_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(alphabet="ab\u200b\x1b\U000e0041", max_size=3),
    st.sampled_from(["object", "array", "string", "a", "b"]),
)


def _schemas() -> st.SearchStrategy[Any]:
    def extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(
            st.lists(children, max_size=3),
            st.dictionaries(st.sampled_from([*_KEYWORDS, "a", "b"]), children, max_size=4),
        )

    return st.recursive(_SCALAR, extend, max_leaves=20)


_ROOT = st.fixed_dictionaries(
    {"type": st.sampled_from(["object", None])},
    optional={key: _schemas() for key in _KEYWORDS if key != "type"},
)


def _by_copying(schema: dict[str, Any]) -> tuple[dict[str, Any] | None, bool]:
    """The old pass: a JSON round trip, then the repairs; (result, refused)."""
    try:
        text = json.dumps(schema, allow_nan=False)
    except (TypeError, ValueError):
        return None, True
    return _repaired(json.loads(text)), False


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(_ROOT)
def test_a_schema_is_kept_when_sound_and_repaired_as_before_otherwise(
    schema: dict[str, Any],
) -> None:
    before = copy.deepcopy(schema)
    prepared, problem = prepare_input_schema(schema)
    expected, refused = _by_copying(before)
    if refused:
        assert prepared is None and problem is not None
        return
    if prepared is None:  # refused for its structure (properties not an object...)
        assert problem is not None
        return
    assert prepared == expected
    assert _same(schema, before)  # the server's schema is never modified
    if prepared is schema:  # kept: so the repairs had nothing to do
        assert _same(expected, before)


def _same(a: Any, b: Any) -> bool:
    """Equality with NaN equal to itself (json.dumps with allow_nan=False refuses both)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_a_sound_schema_is_not_copied_and_a_repaired_one_is() -> None:
    sound = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "The identifier."},
            "fields": {"type": "array", "items": {"type": "string"}},
            "any": {"anyOf": [{"$ref": "#/$defs/x"}, {"type": "null"}]},
        },
        "required": ["id"],
        "$defs": {"x": {"type": "integer", "minimum": 1, "default": 2.5}},
    }
    assert prepare_input_schema(sound)[0] is sound
    for needs in (
        {"type": "object", "properties": {"a": {"type": "array"}}},  # items: {} is added
        {"type": "object", "properties": {}, "required": ["gone"]},  # pruned
        {"type": "object", "description": "hidden\u200btext"},  # cleaned
        {"properties": {}},  # type inferred
    ):
        prepared = prepare_input_schema(needs)[0]
        assert prepared is not None and prepared is not needs and prepared != needs
    refused = prepare_input_schema({"type": "object", "default": math.nan})
    assert refused[0] is None and "JSON" in str(refused[1])


# -- a stdio server that announces changes: one listing, changes rebuild only themselves ----
def _hostile(**env: str) -> HostServer:
    return HostServer(
        "evil", command=sys.executable, args=[str(HOSTILE)], env={"HOSTILE_FLOOD": "1", **env}
    )


def _late_relists(host: MCPHost) -> list[asyncio.Task[Any]]:
    return [t for t in host._tasks._tasks if "late re-list" in t.get_name()]


async def _lists(host: MCPHost) -> int:
    return int((await host.call_tool("mcp_evil_lists"))["content"][0]["text"])


@pytest.mark.process
@pytest.mark.slow
def test_a_stdio_server_that_announces_changes_is_listed_once_and_rebuilt_only_where_changed() -> (
    None
):
    async def scenario() -> None:
        async with MCPHost([_hostile(HOSTILE_LIST_CHANGED="1")]) as host:
            assert not _late_relists(host)  # no second listing was scheduled
            assert await _lists(host) == 1
            before = {e.name: e for e in host.tools()}
            snapshot = host.registry.snapshot()
            assert await host.refresh_tools("evil") == ([], [])  # same tools: nothing rebuilt
            assert host.registry.snapshot() is snapshot
            assert (await host.call_tool("mcp_evil_grow"))["content"]
            worker = host._connections["evil"]._tools_worker
            assert worker is not None
            await worker  # the list_changed re-list is over
            after = {e.name: e for e in host.tools()}
            assert set(after) - set(before) == {"mcp_evil_late_tool"}
            for name, entry in before.items():
                assert after[name] is entry  # unchanged tools keep their very entries

    asyncio.run(scenario())


@pytest.mark.process
@pytest.mark.slow
def test_a_server_that_does_not_announce_changes_is_listed_again_a_moment_later() -> None:
    async def scenario() -> None:
        async with MCPHost([_hostile()]) as host:
            snapshot = host.registry.snapshot()
            await asyncio.gather(*_late_relists(host))  # (if it has not run already)
            assert await _lists(host) == 2
            assert host.registry.snapshot() is snapshot  # it found nothing new: no rebuild

    asyncio.run(scenario())
