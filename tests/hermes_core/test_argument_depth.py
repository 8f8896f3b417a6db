"""Arguments nested too deeply are one clear error wherever they come in: the host's call
pipeline (every door passes it), ``hermes mcp call``'s ``--args`` and ``key:=JSON``, the
dashboard's form — never a ``RecursionError``; and the did-you-mean of an unknown tool (a bare
tool name points at its registered name).  In memory; the doors themselves are in
``test_every_door_depth.py``."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from hermes_core.cli.call_args import ArgumentError, arguments, parse_pairs
from hermes_core.dashboard import schema_form
from hermes_core.host.host import MCPHost
from hermes_core.host.tools.close_names import close_names, did_you_mean
from hermes_core.nesting import MAX_ARGUMENT_DEPTH, depth_of, json_text_depth
from support.memory import MEMORY, MemoryTransport, ToyServer, memory_server

TOO_DEEP = f"more than {MAX_ARGUMENT_DEPTH} levels of objects and arrays deep (the limit)"


def nested(levels: int) -> Any:
    """*levels* levels of lists and dicts, built without recursion."""
    value: Any = 0
    for level in range(levels):
        value = [value] if level % 2 else {"k": value}
    return value


def test_depth_is_counted_without_recursion_and_stops_early() -> None:
    assert depth_of({}) == 1 and depth_of(1) == 0 and depth_of({"a": [1, {"b": []}]}) == 4
    assert depth_of(nested(200_000)) == MAX_ARGUMENT_DEPTH + 1  # stopped, no RecursionError
    assert depth_of(nested(10), stop=3) == 4
    assert json_text_depth('{"a": [1, {"b": []}]}') == 4
    assert json_text_depth('{"a": "[[[[{{{{\\"]]]"}') == 1  # brackets in strings do not count
    assert json_text_depth("[" * 1_000_000) == 1_000_000


def test_the_cli_refuses_deep_args_and_key_json_before_parsing() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(ArgumentError, match="^" + re.escape(f"--args nests {TOO_DEEP}")):
        arguments('{"a": ' + deep + "}", [], None)
    with pytest.raises(ArgumentError, match="^" + re.escape(f"argument 'a' nests {TOO_DEEP}")):
        parse_pairs(["a:=" + deep])
    # key=value is JSON where it parses; too deep to parse, it is the text as written
    assert arguments(None, parse_pairs(["a=" + deep]), None) == {"a": deep}
    at_limit = json.dumps(nested(MAX_ARGUMENT_DEPTH - 1))
    assert arguments(None, parse_pairs(["a:=" + at_limit]), None) == {
        "a": nested(MAX_ARGUMENT_DEPTH - 1)
    }
    assert depth_of(arguments(json.dumps({"a": nested(MAX_ARGUMENT_DEPTH - 1)}), [], None)) == 64
    with pytest.raises(ArgumentError, match=re.escape(TOO_DEEP)):
        arguments(json.dumps({"a": nested(MAX_ARGUMENT_DEPTH)}), [], None)


def test_the_dashboard_form_refuses_deep_json() -> None:
    schema = {"type": "object", "properties": {"tags": {"type": "array"}}}
    deep = "[" * 100_000 + "]" * 100_000
    said = "^" + re.escape(f"arguments JSON nests {TOO_DEEP}")
    with pytest.raises(schema_form.ArgumentError, match=said):
        schema_form.arguments(schema, {"__json__": '{"a": ' + deep + "}"})
    with pytest.raises(schema_form.ArgumentError, match="^" + re.escape(f"tags nests {TOO_DEEP}")):
        schema_form.arguments(schema, {"a:tags": deep})


def test_the_pipeline_refuses_deep_arguments_and_sends_nothing() -> None:
    toy = ToyServer("toy").tool("echo", lambda args: json.dumps(args)[:50])

    async def scenario() -> list[dict[str, Any]]:
        transport = MemoryTransport({"toy": toy})
        async with MCPHost([memory_server("toy")], transports={MEMORY: transport}) as host:
            return [
                await host.call_tool("mcp_toy_echo", {"a": nested(200_000)}),
                await host.call_tool("mcp_toy_echo", {"a": nested(MAX_ARGUMENT_DEPTH)}),
                await host.call_tool("mcp_toy_echo", {"a": nested(MAX_ARGUMENT_DEPTH - 1)}),
            ]

    huge, just_over, at_limit = asyncio.run(scenario())
    for refused in (huge, just_over):
        assert refused["state"] == "invalid_arguments" and refused["retryable"] is False
        assert refused["error"] == (
            f"The MCP tool 'echo' of server 'toy' was NOT run: its arguments nest {TOO_DEEP}"
        )
    assert "error" not in at_limit
    assert toy.called("echo") == 1  # only the call within the limit reached the server


def test_an_unknown_name_suggests_the_registered_names_it_may_mean() -> None:
    known = ["mcp_fs_read_text_file", "mcp_fs_write_file", "mcp_door_say", "mcp_other_say"]
    assert close_names("read_text_file", known) == ["mcp_fs_read_text_file"]
    assert close_names("read-text-file", known) == ["mcp_fs_read_text_file"]
    assert close_names("say", known) == ["mcp_door_say", "mcp_other_say"]
    assert close_names("mcp_fs_read_txt_file", known)[0] == "mcp_fs_read_text_file"
    assert did_you_mean("nothing_like_it", known) == ""
    assert did_you_mean("x" * 10_000, known) == ""  # not compared: too long to be a name

    async def scenario() -> dict[str, Any]:
        transport = MemoryTransport({"fs": ToyServer("fs").tool("read_text_file")})
        async with MCPHost([memory_server("fs")], transports={MEMORY: transport}) as host:
            return await host.call_tool("read_text_file", {})

    assert asyncio.run(scenario()) == {
        "error": "unknown tool 'read_text_file'; did you mean mcp_fs_read_text_file?",
        "state": "unknown_tool",
        "retryable": False,
    }
