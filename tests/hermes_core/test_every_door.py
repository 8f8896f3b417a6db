"""One call, every door: the same calls through each way Hermes offers a tool — the embedding
API (the reference), ``hermes mcp call`` cold and on the warm host (text and ``--json``),
``hermes mcp proxy`` (stdio and HTTP, the raw SDK client), ``hermes chat`` (``llm``'s offline
``echo`` model) and the dashboard's tool form (its HTTP posts) — against our fixture server
(``tests/servers/every_door_server.py``), server-everything and the tasks server.

Each door is started once per module and runs every case in one go; each (door, case) test
then compares the door's answer with the embedding API's: the same content (every text, the
image's type, the resources' URIs and words, the listings' names), the same structured
content where the door has a channel for it, the same error flag, the same refusal wording and
state, the same exit class.  A door that cannot offer a kind says so in one sentence (chat
never hands a text model an image's base64).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from support import doors
from support.doors import Answer, Case, DashboardDoor, WarmHost

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.node, pytest.mark.slow]

SAY = ("did you mean", "mcp_door_say")
CUT = "[Hermes cut this result:"

CASES = [
    Case("text", "mcp_door_say", {"text": "hello"}),
    Case(
        "key_value",
        "mcp_door_say",
        {"text": "007", "n": 3, "tags": ["a", "b"]},
        pairs=("text=007", "n=3", 'tags:=["a", "b"]'),
    ),
    Case("structured", "mcp_door_measure"),
    Case(
        "structured_everything", "mcp_everything_get_structured_content", {"location": "New York"}
    ),
    Case("image", "mcp_door_picture"),
    Case("image_everything", "mcp_everything_get_tiny_image"),
    Case("embedded_and_link", "mcp_door_bundle"),
    Case("links_everything", "mcp_everything_get_resource_links", {"count": 2}),
    Case("list_resources", "mcp_door_list_resources"),
    Case("read_resource", "mcp_door_read_resource", {"uri": "door://note/3"}),
    Case("list_templates", "mcp_door_list_resource_templates"),
    Case("list_prompts", "mcp_door_list_prompts"),
    Case("get_prompt", "mcp_door_get_prompt", {"name": "greet-2", "arguments": {"who": "Ann"}}),
    Case("task", "mcp_tasks_research", {"topic": "doors"}),
    Case("elicits", "mcp_door_ask", must_say=("asked: no answer",)),
    Case("tool_error", "mcp_door_broken"),
    Case("over_budget", "mcp_door_huge", must_say=("The whole result is saved in",)),
    Case("policy", "mcp_door_forbidden", must_say=("administrator's policy",)),
    Case("never", "mcp_door_blocked", must_say=("never",)),
    Case(
        "untrusted_write",
        "mcp_guarded_write",
        {"path": "x.txt"},
        must_say=("NOT run",),
        own_words=True,
    ),
    Case("app_gate", "mcp_appgated_say", {"text": "hi"}, must_say=("Door App",)),
    Case("unknown_typo", "mcp_door_sya", must_say=SAY),
    Case("unknown_bare", "say", {"text": "hi"}, must_say=SAY),
]
BY_NAME = {case.name: case for case in CASES}

#: The doors whose answers carry the refusal's state (the raw result).
STATES = {"cold_json", "warm_json"}


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return doors.write_home(tmp_path_factory.mktemp("doors") / "home")


@pytest.fixture(scope="module")
def reference(env: dict[str, str]) -> dict[str, Answer]:
    return doors.embedding(env, CASES)


#: The cases the cold call also prints as text (the warm door prints every case as text with
#: the same renderer; a cold call costs a process and a server start).
COLD_TEXT = {"key_value", "image", "embedded_and_link", "tool_error", "policy", "unknown_typo"}


@pytest.fixture(scope="module")
def cold_text(env: dict[str, str]) -> dict[str, Answer]:
    return doors.cli(env, [c for c in CASES if c.name in COLD_TEXT], warm=False, as_json=False)


@pytest.fixture(scope="module")
def cold_json(env: dict[str, str]) -> dict[str, Answer]:
    return doors.cli(env, CASES, warm=False, as_json=True)


@pytest.fixture(scope="module")
def warm(env: dict[str, str]) -> Iterator[dict[str, dict[str, Answer]]]:
    with WarmHost(dict(env)):
        yield {
            "text": doors.cli(env, CASES, warm=True, as_json=False),
            "json": doors.cli(env, CASES, warm=True, as_json=True),
        }


@pytest.fixture(scope="module")
def warm_text(warm: dict[str, dict[str, Answer]]) -> dict[str, Answer]:
    return warm["text"]


@pytest.fixture(scope="module")
def warm_json(warm: dict[str, dict[str, Answer]]) -> dict[str, Answer]:
    return warm["json"]


@pytest.fixture(scope="module")
def proxy_stdio(env: dict[str, str]) -> dict[str, Answer]:
    return doors.proxy_stdio(env, CASES)


@pytest.fixture(scope="module")
def proxy_http(env: dict[str, str]) -> dict[str, Answer]:
    return doors.proxy_http(env, CASES)


@pytest.fixture(scope="module")
def chat(env: dict[str, str]) -> dict[str, Answer]:
    return doors.chat(env, CASES)


@pytest.fixture(scope="module")
def dashboard(env: dict[str, str]) -> Iterator[dict[str, Answer]]:
    with DashboardDoor(dict(env)) as door:
        yield door.run(CASES)


DOORS = [
    "cold_text",
    "cold_json",
    "warm_text",
    "warm_json",
    "proxy_stdio",
    "proxy_http",
    "chat",
    "dashboard",
]


MATRIX = [
    pytest.param(door, case.name, id=f"{door}-{case.name}")
    for door in DOORS
    for case in CASES
    if door != "cold_text" or case.name in COLD_TEXT
]


def needles(case: Case, ref: Answer) -> list[str]:
    """What every door's text must hold: the case's own words, and from the reference result
    its error, each text, each image's type, each resource's URI and words, each listed
    resource's, template's and prompt's name, each prompt message's text."""
    found = list(case.must_say)
    raw: dict[str, Any] = ref.raw
    if "error" in raw and not case.own_words:
        found.append(raw["error"])
    for block in raw.get("content") or []:
        kind = block.get("type")
        if kind == "text" and block["text"].startswith(CUT):
            # the budget's notice: its words, not the path of this call's saved result
            found.append(block["text"].split(" The whole result is saved in ", 1)[0])
        elif kind == "text":
            found.append(block["text"])
        elif kind in ("image", "audio"):
            found.append(block["mimeType"])
        elif kind == "resource":
            found.append(block["resource"]["uri"])
            if "text" in block["resource"]:
                found.append(block["resource"]["text"])
        elif kind == "resource_link":
            found.append(block["uri"])
    for key in ("resources", "resourceTemplates", "prompts"):
        found.extend(item["name"] for item in raw.get(key) or [])
    for item in raw.get("contents") or []:
        found.append(item["uri"])
        found.extend([item["text"]] if "text" in item else [])
    for message in raw.get("messages") or []:
        found.extend([message["content"]["text"]] if "text" in message["content"] else [])
    return found


def test_the_reference_answers_each_kind(reference: dict[str, Answer]) -> None:
    """The embedding API itself: what the matrix compares with is what each case is about."""
    for case in CASES:
        for word in case.must_say:
            assert word in reference[case.name].text, (case.name, reference[case.name].raw)
    assert reference["structured"].structured == {"width": 42, "unit": "mm"}
    assert any(b["type"] == "image" for b in reference["image"].raw["content"])
    assert reference["tool_error"].raw["isError"] is True
    assert reference["policy"].state == "policy" and reference["never"].state == "blocked"
    assert reference["untrusted_write"].state == "not_approved"
    assert reference["app_gate"].state == "missing_app"
    assert reference["unknown_bare"].raw["error"].startswith("unknown tool 'say'; did you mean ")
    assert reference["task"].raw["content"][0]["text"] == "report on doors"
    assert len(reference["over_budget"].raw["content"][0]["text"]) < 4 * doors.BUDGET * 2
    assert len(reference["list_resources"].raw["structuredContent"]["resources"]) == 5
    assert len(reference["list_templates"].raw["structuredContent"]["resourceTemplates"]) == 3
    assert len(reference["list_prompts"].raw["structuredContent"]["prompts"]) == 3


@pytest.mark.parametrize(("door", "case"), MATRIX)
def test_each_door_gives_what_the_embedding_api_gives(
    door: str, case: str, reference: dict[str, Answer], request: pytest.FixtureRequest
) -> None:
    answers: dict[str, Answer] = request.getfixturevalue(door)
    ref, got, spec = reference[case], answers[case], BY_NAME[case]
    assert not got.problems, f"{door}/{case}: " + "\n".join(got.problems)
    missing = [n[:120] for n in needles(spec, ref) if n not in got.text]
    assert not missing, f"{door}/{case}: not said: {missing}\n--- the door said:\n{got.text[:3000]}"
    assert got.is_error == ref.is_error, (door, case, got.text[:2000])
    if got.exit is not None:
        assert got.exit == ref.exit, (door, case, got.text[:2000])
    if got.has_structured and ref.structured is not None:
        assert got.structured == ref.structured, (door, case)
    if door in STATES:
        assert got.state == ref.state, (door, case, got.raw)
    if door == "chat":  # a text model is never handed an image's bytes as text
        for block in ref.raw.get("content") or []:
            if block.get("type") == "image":
                assert block["data"] not in got.text, (door, case)
