"""``hermes chat`` as a user runs it: a subprocess, real MCP servers (server-filesystem, our
SDK asking server), the real ``llm`` library with its offline ``echo`` model, ``state.db``
read back through ``hermes mcp serve``, and an interactive session on a pseudo-terminal
(pexpect) with a trust prompt, an elicitation and slash commands."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from servers.reference import FILESYSTEM, node
from support.cli import run_hermes
from support.home import clean_env
from support.serve import sdk_session, structured

ASKING = Path(__file__).parents[1] / "servers" / "asking_server.py"

pytestmark = [pytest.mark.process, pytest.mark.cli]


@pytest.fixture(autouse=True)
def _llm_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_USER_PATH", str(tmp_path_factory.mktemp("llm")))


def env(home: Path) -> dict[str, str]:
    return {"HERMES_HOME": str(home), "LLM_USER_PATH": os.environ["LLM_USER_PATH"]}


def asking(name: str = "asking", extra: str = "") -> str:
    return f"  {name}:\n    command: {sys.executable}\n    args: [{ASKING}]\n{extra}"


def calls(name: str, arguments: dict[str, object]) -> str:
    return json.dumps({"tool_calls": [{"name": name, "arguments": arguments}]})


def answers(stdout: str) -> list[dict[str, object]]:
    """The echo model's JSON answers, in order."""
    found, at, decoder = [], 0, json.JSONDecoder()
    while (start := stdout.find("{", at)) != -1:
        value, at = decoder.raw_decode(stdout, start)
        found.append(value)
    return found


@pytest.mark.node
def test_one_turn_lists_a_folder_through_server_filesystem(tmp_path: Path) -> None:
    folder = tmp_path / "repo"
    (folder / "src").mkdir(parents=True)
    (folder / "README.md").write_text("# demo\n")
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        f"mcp_servers:\n  fs:\n    command: {node()}\n    args: [{FILESYSTEM}, {folder}]\n"
    )
    done = run_hermes(
        "chat",
        "-m",
        "echo",
        "-q",
        calls("mcp_fs_list_directory", {"path": str(folder)}),
        env=env(home),
    )
    assert done.returncode == 0, done.stderr
    _first, second = answers(done.stdout)
    (result,) = second["tool_results"]  # type: ignore[misc]
    assert result["name"] == "mcp_fs_list_directory"
    assert "[FILE] README.md" in result["output"] and "[DIR] src" in result["output"]
    assert "[tool] mcp_fs_list_directory done: [FILE] README.md [DIR] src" in done.stderr
    assert "[tool]" not in done.stdout
    assert "connecting" not in done.stderr  # off a terminal, -q says nothing while it waits

    async def listed() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
        async with sdk_session(home, no_plugins=True) as session:
            found = structured(await session.call_tool("conversations_list", {"platform": "cli"}))
            key = found["conversations"][0]["session_key"]
            read = await session.call_tool("messages_read", {"session_key": key})
            return found["conversations"], structured(read)["messages"]

    conversations, messages = asyncio.run(listed())
    (conversation,) = conversations
    assert conversation["title"].startswith('{"tool_calls"')
    assert [m["role"] for m in messages] == ["user", "tool", "assistant"]
    assert "README.md" in str(messages[1]["content"])


def test_config_model_tool_search_always_load_and_slash_commands(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        "model: echo\ntool_search: on\nmcp_servers:\n"
        + asking("pinned", "    always_load: true\n")
        + asking("other")
    )
    lines = [
        "/tools",
        calls("tool_search", {"query": "open a page", "limit": 1}),
        "/tools",
        "/mcp",
        "/modle",
        "/model",
        "/exit",
        "never read",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "hermes_core", "chat"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env=clean_env(os.environ, env(tmp_path)),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    err = done.stderr
    before, after = err.split("[tool] tool_search", 1)
    assert "tool search on: 10 of 20 tools loaded" in before
    assert "mcp_pinned_book" in before and "mcp_other_visit" not in before
    (search,) = answers(done.stdout)[1]["tool_results"]  # type: ignore[misc]
    assert json.loads(search["output"])["tools"][0]["name"].endswith("_visit")
    assert "tool search on: 11 of 20 tools loaded" in after
    assert "[ok] other  connected  tools: 5 + 5 host tools" in after  # its own, the host's
    assert "unknown command /modle; did you mean /model?" in after
    assert "model: echo" in after
    assert "never read" not in done.stdout


def test_bad_chat_settings_are_errors_naming_file_line_and_key(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("mcp_servers: {}\ntool_search: maybe\n")
    done = run_hermes("chat", "-m", "echo", "-q", "hi", env=env(tmp_path))
    assert done.returncode == 2
    assert f"{config}:2: tool_search: must be auto, on or off (got 'maybe')" in done.stderr
    config.write_text("tool_search_budget: lots\n")
    done = run_hermes("chat", "-m", "echo", "-q", "hi", env=env(tmp_path))
    assert done.returncode == 2 and f"{config}:1: tool_search_budget: must be" in done.stderr
    config.write_text("mcp_servers:\n" + asking(extra="    always_load: maybe\n"))
    done = run_hermes("chat", "-m", "echo", "-q", "hi", env=env(tmp_path))
    assert done.returncode == 2 and "mcp_servers.asking.always_load" in done.stderr
    done = run_hermes("chat", "-m", "echo", "-q", " ", env=env(tmp_path))
    assert done.returncode == 2 and "error: -q needs a prompt" in done.stderr
    config.write_text("model: no-such-model\n")
    done = run_hermes("chat", "-q", "hi", env=env(tmp_path))
    assert done.returncode == 2 and "unknown model 'no-such-model'" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_an_interactive_session_with_a_trust_prompt_an_elicitation_and_a_reload(
    tmp_path: Path,
) -> None:
    import pexpect

    config = tmp_path / "config.yaml"
    config.write_text("mcp_servers:\n" + asking(extra="    trust: untrusted\n"))
    child = pexpect.spawn(
        sys.executable,
        ["-m", "hermes_core", "chat", "-m", "echo"],
        env={**clean_env(os.environ), **env(tmp_path), "TERM": "xterm"},
        encoding="utf-8",
        timeout=90,
    )
    try:
        child.expect_exact("hermes chat with echo; 10 tools")
        child.expect_exact("you> ")
        child.sendline("/tools")
        child.expect_exact("mcp_asking_book")
        child.expect_exact("you> ")
        child.sendline(calls("mcp_asking_book", {}))
        child.expect_exact("Hermes asks:")
        child.expect(r"Run it\? \[y[^:]*: ")  # with always/never where remembered
        child.sendline("y")
        child.expect_exact("MCP server 'asking' asks: Which table should I book?")
        child.expect_exact("Name")
        child.sendline("Ada")
        for _ in range(3):  # guests, terrace, mood: their defaults
            child.expect(r"\]: ")
            child.sendline("")
        child.expect_exact("[Y]es / [n]o / [c]ancel: ")
        child.sendline("y")
        child.expect_exact('booked {\\"name\\":\\"Ada\\",\\"guests\\":2')  # the model's echo
        child.expect_exact("you> ")
        config.write_text("mcp_servers:\n" + asking() + asking("second"))
        # Applied by this command, or already by the chat's config watcher ("no change").
        child.sendline("/reload-mcp")
        child.expect_exact("reloaded")
        child.expect_exact("you> ")
        deadline = time.monotonic() + 60
        while True:  # the second server's tools, once it has connected
            child.sendline("/tools")
            if child.expect(["mcp_second_book", "you> "]) == 0:
                child.expect_exact("you> ")
                break
            assert time.monotonic() < deadline, "the second server never connected"
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_tool_search_by_a_pattern_over_names_through_hermes_chat(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        "model: echo\ntool_search: on\nmcp_servers:\n" + asking("other")
    )
    lines = [
        calls("tool_search", {"pattern": "^mcp_other_(visit|book)$"}),
        calls("tool_search", {"pattern": "(a|aa)+$" + "(" * 300}),  # past the length bound
        "/exit",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "hermes_core", "chat"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env=clean_env(os.environ, env(tmp_path)),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    found, refused = (answers(done.stdout)[i]["tool_results"] for i in (1, 3))  # type: ignore[misc]
    names = [tool["name"] for tool in json.loads(found[0]["output"])["tools"]]  # type: ignore[index]
    assert sorted(names) == ["mcp_other_book", "mcp_other_visit"]
    assert "longer than 200 characters" in json.loads(refused[0]["output"])["error"]  # type: ignore[index]
