"""Arguments nested more than 64 levels deep are one clear error at every door: ``hermes mcp
call`` cold (``--args``, ``key:=JSON``) and with a warm host up, the dashboard's tool form,
``hermes mcp proxy`` (the raw SDK client) and ``hermes chat`` — never a ``RecursionError``,
a traceback or a 500; nothing reaches the server."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_core.nesting import MAX_ARGUMENT_DEPTH
from support.cli import run_hermes
from support.doors import EVERY_DOOR, Case, DashboardDoor, WarmHost, chat, dashboard_form
from support.proxy import proxy_session, text_of

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

TOO_DEEP = f"more than {MAX_ARGUMENT_DEPTH} levels of objects and arrays deep (the limit)"
#: Deep enough that Python's json would end in a RecursionError (and short enough for argv).
VERY_DEEP = "[" * 30_000 + "]" * 30_000


def nested(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = [value]
    return value


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    home = tmp_path_factory.mktemp("depth") / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        f"mcp_servers:\n  door:\n    command: {json.dumps(sys.executable)}\n"
        f"    args: [{json.dumps(str(EVERY_DOOR))}]\n"
    )
    return {"HERMES_HOME": str(home), "LLM_USER_PATH": str(home / "llm")}


@pytest.fixture(scope="module")
def warm(env: dict[str, str]) -> Iterator[None]:
    with WarmHost(dict(env)):
        yield


@pytest.mark.parametrize(
    ("words", "said"),
    [
        (["--args", '{"text": "x", "deep": ' + VERY_DEEP + "}"], "--args nests"),
        (["text=x", "deep:=" + VERY_DEEP], "argument 'deep' nests"),
        (["--args", json.dumps({"text": "x", "deep": nested(MAX_ARGUMENT_DEPTH)})], "--args nests"),
    ],
    ids=["args", "key-json", "just-over"],
)
@pytest.mark.parametrize("door", ["cold", "warm"])
def test_the_cli_says_so_in_one_line_and_exits_2(
    door: str, words: list[str], said: str, env: dict[str, str], request: pytest.FixtureRequest
) -> None:
    if door == "warm":
        request.getfixturevalue("warm")
    extra = {**env, "HERMES_WARM": "1" if door == "warm" else "0"}
    done = run_hermes("mcp", "call", "mcp_door_say", *words, env=extra)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.strip().splitlines()[-1] == f"error: {said} {TOO_DEEP}"
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr


def test_within_the_limit_the_call_is_made_and_deep_key_value_is_text(
    env: dict[str, str],
) -> None:
    env = {**env, "HERMES_WARM": "0"}  # the cold reading of the arguments
    args = json.dumps({"text": "x", "deep": nested(MAX_ARGUMENT_DEPTH - 1)})
    done = run_hermes("mcp", "call", "mcp_door_say", "--args", args, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('said {"deep": [[[')
    brackets = "[" * 100 + "]" * 100
    words = ["--json", "mcp_door_say", "text=x", f"deep={brackets}"]
    done = run_hermes("mcp", "call", *words, env=env)
    assert done.returncode == 0, done.stderr  # key=value: JSON too deep to read is the text
    said = json.loads(done.stdout)["content"][0]["text"]
    assert json.loads(said.removeprefix("said "))["deep"] == brackets


def test_the_dashboard_form_says_so_on_the_page(env: dict[str, str]) -> None:
    with DashboardDoor(dict(env)) as door:
        case = Case("deep", "mcp_door_say", {"text": "x", "deep": nested(MAX_ARGUMENT_DEPTH)})
        over = door.call(dashboard_form(case))
        assert over.is_error and f"arguments JSON nests {TOO_DEEP}" in over.text
        very = door.call({"tool": "mcp_door_say", "__json__": '{"a": ' + VERY_DEEP + "}"})
        assert very.is_error and f"arguments JSON nests {TOO_DEEP}" in very.text
        field = door.call({"tool": "mcp_door_say", "a:text": "x", "a:tags": VERY_DEEP})
        assert field.is_error and f"tags nests {TOO_DEEP}" in field.text


def test_the_proxy_answers_a_tool_error(env: dict[str, str]) -> None:
    home = Path(env["HERMES_HOME"])

    async def run() -> tuple[Any, Any]:
        async with proxy_session(home, errlog=home / "proxy.err") as session:
            deep = await session.call_tool(
                "mcp_door_say", {"text": "x", "deep": nested(MAX_ARGUMENT_DEPTH + 20)}
            )
            fine = await session.call_tool("mcp_door_say", {"text": "x", "deep": nested(3)})
            return deep, fine

    deep, fine = asyncio.run(run())
    assert deep.is_error and f"its arguments nest {TOO_DEEP}" in text_of(deep)
    assert not fine.is_error and text_of(fine).startswith("said ")


def test_chat_hands_the_model_the_error(env: dict[str, str]) -> None:
    case = Case("deep", "mcp_door_say", {"text": "x", "deep": nested(MAX_ARGUMENT_DEPTH + 20)})
    answer = chat(env, [case])["deep"]
    assert answer.is_error and f"its arguments nest {TOO_DEEP}" in answer.text
