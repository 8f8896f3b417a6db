"""What the CLI does on a terminal, driven through a real pseudo-terminal: the spinner and the
colours (and ``--no-color``/``NO_COLOR``), a call's progress in place, and the prompts (a yes/no
needs Enter, a stray Enter answers nothing, Esc leaves the picker, Ctrl-C exits 130)."""

from __future__ import annotations

import io
import os
import re
import sys
from pathlib import Path

import pexpect
import pytest

from support.home import clean_env

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

SERVERS = Path(__file__).parents[1] / "servers"
HOSTILE = SERVERS / "hostile_server.py"
FIDELITY = SERVERS / "fidelity_server.py"
SPACE, ENTER, CTRL_C, ESC = " ", "\r", "\x03", "\x1b"
GREEN = "\x1b[32m"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    (catalog / "hostile.yaml").write_text(
        "manifest_version: 1\nname: hostile\ndescription: A local test server\n"
        f"transport:\n  command: {sys.executable}\n  args: ['-u', {str(HOSTILE)!r}]\n"
    )
    (home / "config.yaml").write_text(
        f"mcp_servers:\n  fidelity: {{command: {sys.executable}, args: [{str(FIDELITY)!r}]}}\n"
    )
    base = {k: v for k, v in clean_env(os.environ).items() if k != "NO_COLOR"}
    return {
        **base,
        "HERMES_HOME": str(home),
        "HERMES_CATALOG_PATH": str(catalog),
        "TERM": "xterm",
        "PROMPT_TOOLKIT_NO_CPR": "1",
    }


def spawn(env: dict[str, str], *args: str) -> tuple[pexpect.spawn, io.StringIO]:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "hermes_core", *args],
        env=env,
        encoding="utf-8",
        timeout=90,
        dimensions=(40, 120),
    )
    transcript = io.StringIO()
    child.logfile_read = transcript
    return child, transcript


def ended(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    return int(child.exitstatus if child.exitstatus is not None else 128 + child.signalstatus)


def test_status_on_a_terminal_spins_and_colours(env: dict[str, str]) -> None:
    child, transcript = spawn(env, "mcp", "status")
    child.expect_exact("connecting 1 server(s)…")
    child.expect_exact(f"{GREEN}[ok]")
    assert ended(child) == 0
    shown = transcript.getvalue()
    assert any(frame in shown for frame in "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")  # rich's spinner was drawn
    assert "  fidelity: connected (" in shown  # each server's outcome stays above it


@pytest.mark.parametrize("how", ["flag", "env"])
def test_no_color_turns_colour_off(env: dict[str, str], how: str) -> None:
    if how == "env":
        child, transcript = spawn({**env, "NO_COLOR": "1"}, "mcp", "status")
    else:
        child, transcript = spawn(env, "mcp", "status", "--no-color")
    child.expect_exact("[ok] fidelity")
    assert ended(child) == 0
    assert GREEN not in transcript.getvalue()


def test_a_calls_progress_shows_in_place(env: dict[str, str]) -> None:
    child, transcript = spawn(env, "mcp", "call", "mcp_fidelity_slow")
    child.expect_exact("connecting 1 server(s)…")  # a spinner while the server starts
    child.expect_exact("progress: 3/3 (100%) step 3")  # the last report stays
    child.expect_exact("done")  # then the result, as text
    assert ended(child) == 0
    # drawn in place, after a spinner frame, while the call ran
    assert re.search(r"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\x1b\[0m progress: \d/3", transcript.getvalue())


def test_chat_q_shows_a_spinner_while_servers_connect(env: dict[str, str], tmp_path: Path) -> None:
    llm_home = tmp_path / "llm"
    llm_home.mkdir()
    child, transcript = spawn(
        {**env, "LLM_USER_PATH": str(llm_home)}, "chat", "-m", "echo", "-q", "hi"
    )
    child.expect_exact("connecting 1 server(s)…")  # on stderr, while a person waits
    assert ended(child) == 0
    assert any(frame in transcript.getvalue() for frame in "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")


def test_a_yes_needs_its_enter(env: dict[str, str]) -> None:
    child, _ = spawn(env, "mcp", "install", "hostile")
    child.expect(r"Install 'hostile'\?")
    child.send("y")  # not an answer yet: it can still be changed
    child.send("n" + ENTER)
    child.expect_exact("nothing was installed")
    assert ended(child) == 1
    assert not (Path(env["HERMES_HOME"]) / "config.yaml").read_text().count("hostile")


def test_a_stray_enter_does_not_confirm_the_next_screen(env: dict[str, str]) -> None:
    child, transcript = spawn(env, "mcp", "install", "hostile")
    child.expect(r"Install 'hostile'\?")
    child.send("y" + ENTER + ENTER)  # one Enter too many, typed before the checklist shows
    child.expect_exact("Select tools for 'hostile' (6 tools)")
    child.expect_exact("tagged")  # the last row is drawn: the checklist waits
    child.send(SPACE + ENTER)  # uncheck the first tool, confirm
    child.expect(r"tools: 5 enabled \(")
    assert ended(child) == 0
    # what was chosen is counted in tools only: questionary's "done (N selections)" counted
    # the utility rows too, and is not shown
    assert "selections)" not in transcript.getvalue()
    assert "starting 'hostile' to list its tools…" in transcript.getvalue()  # the spinner's


@pytest.mark.parametrize("where", ["confirm", "picker", "checklist"])
def test_ctrl_c_exits_130(env: dict[str, str], where: str) -> None:
    if where == "picker":
        child, transcript = spawn(env, "mcp")
        child.expect(r"\(quit\)")
    else:
        child, transcript = spawn(env, "mcp", "install", "hostile")
        child.expect(r"Install 'hostile'\?")
        if where == "checklist":
            child.send("y" + ENTER)
            child.expect_exact("tagged")
    child.send(CTRL_C)
    assert ended(child) == 130
    assert "Cancelled by user" not in transcript.getvalue()


def test_esc_leaves_the_picker(env: dict[str, str]) -> None:
    child, _ = spawn(env, "mcp")
    child.expect(r"\(type to filter, ENTER choose, Esc leave\)")
    child.expect(r"\(quit\)")
    child.send(ESC)
    assert ended(child) == 0
