"""2026-07-28 multi-round-trip requests (SEP-2322) against a server that really asks.

``modern_asking_server.py`` speaks only 2026-07-28, where a server cannot send requests of its
own: its tools answer ``tools/call`` with an ``InputRequiredResult`` (an elicitation, a
sampling request, a roots request) and read the answers from the call sent again.  The host
answers through its own elicitation and sampling handlers, echoes the request state, and gives
up after ``INPUT_REQUIRED_MAX_ROUNDS`` rounds.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from hermes_core.host.connection import INPUT_REQUIRED_MAX_ROUNDS
from hermes_core.host.host import HostServer, MCPHost
from support.approvers import Answers
from support.cli import run_hermes
from support.home import clean_env

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

ASKING = str(Path(__file__).parents[1] / "servers" / "modern_asking_server.py")


def asking(name: str = "m") -> HostServer:
    return HostServer(name, command=sys.executable, args=[ASKING])


def text(result: dict[str, object]) -> str:
    assert "error" not in result, result
    content = result["content"]
    assert isinstance(content, list)
    return str(content[0]["text"])


def test_the_host_answers_an_elicitation_and_echoes_the_request_state() -> None:
    answers = Answers(name="Ada")

    async def scenario() -> None:
        async with MCPHost([asking()], elicitor=answers) as host:
            (row,) = host.status()
            assert row.protocol == "2026-07-28"
            said = text(await host.call_tool("mcp_m_book"))
            # The schema's default filled what the user left out; the state came back as is.
            assert said == 'accept {"guests": 2, "name": "Ada"} state=booking:opaque/state=1'
            assert answers.asked == ["Which table should I book?"]

    asyncio.run(scenario())


def test_each_round_asks_again_with_the_state_of_the_one_before() -> None:
    answers = Answers()  # accept every default

    async def scenario() -> None:
        async with MCPHost([asking()], elicitor=answers) as host:
            assert text(await host.call_tool("mcp_m_two_steps")) == "Oslo/Main"
            assert answers.asked == ["Which city?", "Which street in Oslo?"]

    asyncio.run(scenario())


def test_a_prompt_and_a_resource_that_ask_are_answered_too() -> None:
    answers = Answers(name="Ada")

    async def scenario() -> None:
        async with MCPHost([asking()], elicitor=answers) as host:
            prompt = await host.call_tool("mcp_m_get_prompt", {"name": "greeting"})
            assert "error" not in prompt, prompt
            messages = prompt["structuredContent"]["messages"]
            assert messages[0]["content"]["text"] == "Hello, Ada! state=greeting"
            note = await host.call_tool("mcp_m_read_resource", {"uri": "note://tea"})
            assert "error" not in note, note
            assert note["content"][0]["resource"]["text"] == "tea, signed Ada state=note"
            assert answers.asked == ["Greet whom?", "Who signs the note on tea?"]

    asyncio.run(scenario())


def test_a_server_that_never_stops_asking_is_given_up_after_the_bounded_rounds() -> None:
    answers = Answers()

    async def scenario() -> None:
        async with MCPHost([asking()], elicitor=answers) as host:
            result = await host.call_tool("mcp_m_forever")
            assert result["error"] == (
                "MCP server 'm': forever: the server asked for input more than "
                f"{INPUT_REQUIRED_MAX_ROUNDS} rounds in a row without finishing; "
                "the call was given up"
            )
            assert len(answers.asked) == INPUT_REQUIRED_MAX_ROUNDS
            # The connection is fine afterwards.
            assert text(await host.call_tool("mcp_m_two_steps")) == "Oslo/Main"

    asyncio.run(scenario())


def test_roots_and_sampling_the_host_does_not_offer_are_refused_not_hung() -> None:
    async def scenario() -> None:
        async with MCPHost([asking()], elicitor=Answers()) as host:
            roots = await host.call_tool("mcp_m_roots")
            assert "List roots not supported" in str(roots["error"])
            haiku = await host.call_tool("mcp_m_haiku", {"prompt": "hi"})  # no sampling set up
            assert "Sampling not supported" in str(haiku["error"])

    asyncio.run(scenario())


@pytest.fixture
def home(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    llm = tmp_path_factory.mktemp("llm")  # llm's keys and aliases: never the developer's own
    (tmp_path / "config.yaml").write_text(
        "sampling:\n  model: echo\n"
        f"mcp_servers:\n  m:\n    command: {json.dumps(sys.executable)}\n"
        f"    args: [{json.dumps(ASKING)}]\n"
    )
    return {"HERMES_HOME": str(tmp_path), "LLM_USER_PATH": str(llm)}


def test_hermes_mcp_call_samples_the_configured_model_for_a_modern_server(
    home: dict[str, str],
) -> None:
    done = run_hermes(
        "mcp", "call", "--json", "mcp_m_haiku", "--args", '{"prompt": "hello"}', env=home
    )
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)["content"][0]["text"]
    # llm's echo model answers with the prompt it was given.
    assert said.startswith("model=echo text=")
    assert json.loads(said.removeprefix("model=echo text="))["prompt"] == "hello"
    assert "m sampling: model echo · 1 requests, 1 completed" in done.stderr


def test_hermes_mcp_call_asks_on_the_terminal_for_a_modern_server(home: dict[str, str]) -> None:
    import pty
    import subprocess

    master, slave = pty.openpty()
    try:
        base = clean_env(os.environ)
        child = subprocess.Popen(
            [sys.executable, "-m", "hermes_core", "mcp", "call", "--json", "mcp_m_book"],
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**base, **home},
        )
        os.write(master, b"Grace\n\n\n")  # name, guests (kept), send
        out, err = child.communicate(timeout=180)
    finally:
        os.close(master)
        os.close(slave)
    assert child.returncode == 0, err
    assert "MCP server 'm' asks: Which table should I book?" in err
    said = json.loads(out)["content"][0]["text"]
    assert said == 'accept {"guests": 2, "name": "Grace"} state=booking:opaque/state=1'


def test_hermes_mcp_call_without_a_terminal_declines_for_a_modern_server(
    home: dict[str, str],
) -> None:
    done = run_hermes("mcp", "call", "--json", "mcp_m_book", env=home)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)["content"][0]["text"]
    assert said == "decline null state=booking:opaque/state=1"
    assert "declined (no terminal to ask on)" in done.stderr
