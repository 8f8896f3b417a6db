"""Tool overrides in the host (in-process servers): which name the filters and the policy
match, a rename that clashes, an untrusted tool's approval question naming both names and the
fixed arguments.  The doors themselves: ``test_every_door_overrides.py``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from hermes_core.config.policy import load_policy
from hermes_core.host.host import MCPHost
from hermes_core.host.tools.filtering import ToolFilter
from hermes_core.host.tools.naming import assign_names
from hermes_core.host.tools.overrides import ToolOverride, overridden_schema, override_problem
from hermes_core.offers.elicitation import ElicitationRequest
from support.memory import MEMORY, MemoryTransport, ToyServer, memory_server

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "n": {"type": "integer"},
        "mode": {"enum": ["a", "b"]},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["text", "n"],
}
ANNOUNCE = ToolOverride("say", name="announce", fixed={"n": 7}, defaults={"tags": ["t"]})


def _toy() -> ToyServer:
    return ToyServer("toy").tool(
        "say", lambda args: json.dumps(args, sort_keys=True), input_schema=SCHEMA
    )


def test_the_schema_the_model_sees_and_what_does_not_fit_it() -> None:
    shaped = overridden_schema(ANNOUNCE, SCHEMA)
    assert set(shaped["properties"]) == {"text", "mode", "tags"}
    assert shaped["properties"]["tags"]["default"] == ["t"] and shaped["required"] == ["text"]
    assert SCHEMA["required"] == ["text", "n"]  # the server's schema is left as it was
    assert override_problem(ANNOUNCE, SCHEMA) is None
    for fixed, said in [
        ({"x": 1}, "has no argument 'x'"),
        ({"n": "7"}, "must be of type integer"),
        ({"n": True}, "must be of type integer"),
        ({"mode": "c"}, 'must be one of "a", "b"'),
        ({"tags": ["a", 2]}, "item 1 must be of type string"),
    ]:
        problem = override_problem(ToolOverride("say", fixed=fixed, key="k"), SCHEMA)
        assert problem is not None and said in problem, (fixed, problem)


def test_include_and_exclude_match_either_name() -> None:
    assert ToolFilter(include=("announce",)).allows_either("say", "announce")
    assert ToolFilter(include=("say",)).allows_either("say", "announce")
    assert not ToolFilter(include=("other",)).allows_either("say", "announce")
    assert not ToolFilter(exclude=("ann*",)).allows_either("say", "announce")
    assert not ToolFilter(exclude=("say",)).allows_either("say", "announce")


def test_a_rename_that_clashes_is_reported_like_any_collision() -> None:
    assigned = assign_names([("s", "a"), ("s", "b")], shown={("s", "a"): "b"})
    names = {assigned.name_for("s", "a"), assigned.name_for("s", "b")}
    assert len(names) == 2 and "mcp_s_b" in names  # distinct: one keeps it, one is suffixed
    (collision,) = assigned.collisions
    assert collision.base_name == "mcp_s_b" and "(renamed 'b')" in collision.message()


def test_the_policy_denies_by_either_name_and_allows_by_the_servers_own(tmp_path: Path) -> None:
    def policy(text: str) -> Any:
        path = tmp_path / f"policy{len(text)}.yaml"
        path.write_text(text)
        return load_policy({"HERMES_POLICY": str(path)})

    overrides = {"say": ANNOUNCE}
    servers = [
        memory_server("deny", overrides=overrides, policy=policy('deny:\n  tools: ["*/ann*"]\n')),
        memory_server(
            "allow", overrides=overrides, policy=policy('allow:\n  tools: ["allow/announce"]\n')
        ),
        memory_server("own", overrides=overrides, policy=policy('allow:\n  tools: ["own/say"]\n')),
    ]
    toys = {name: _toy() for name in ("deny", "allow", "own")}

    async def scenario() -> tuple[set[str], dict[str, Any], dict[str, Any]]:
        transport = MemoryTransport(toys)
        async with MCPHost(servers, transports={MEMORY: transport}) as host:
            names = {e.name for e in host.tools()}
            denied = await host.call_tool("mcp_deny_announce", {"text": "x"})
            sent = await host.call_tool("mcp_own_announce", {"text": "x"})
            return names, denied, sent

    names, denied, sent = asyncio.run(scenario())
    assert names == {"mcp_own_announce"}  # a rename never gets a tool past an allow-list
    assert denied["state"] == "policy" and "ann*" in denied["error"]
    assert json.loads(sent["content"][0]["text"]) == {"n": 7, "tags": ["t"], "text": "x"}
    assert toys["deny"].called("say") == 0 and toys["allow"].called("say") == 0


def test_the_approval_question_names_both_names_and_the_fixed_arguments() -> None:
    asked: list[ElicitationRequest] = []

    async def elicitor(request: ElicitationRequest) -> Any:
        asked.append(request)
        return type("Answer", (), {"action": "decline", "content": None})()

    server = memory_server("toy", trust="untrusted", overrides={"say": ANNOUNCE})

    async def scenario() -> dict[str, Any]:
        transport = MemoryTransport({"toy": _toy()})
        async with MCPHost([server], transports={MEMORY: transport}, elicitor=elicitor) as host:
            return await host.call_tool("mcp_toy_announce", {"text": "x"})

    refused = asyncio.run(scenario())
    (question,) = asked
    assert "'mcp_toy_announce' (its own name 'say')" in question.message
    assert '"n": 7' in question.message and "(n fixed by config.yaml" in question.message
    assert refused["state"] == "not_approved"
    assert "'mcp_toy_announce' (its own name 'say')" in refused["error"]
