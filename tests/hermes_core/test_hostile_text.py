"""Terminal injection: nothing a server sends reaches a terminal with controls or hidden text.

A hostile server puts escape sequences (clear screen, OSC window title, carriage returns and a
fake "MCP server 'bank' says" line), C1 controls, bidi overrides, zero-width and TAG characters
into a tool description, a result, its stderr and an elicitation question.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_core.sanitize import clean_line, clean_text, sanitize_value
from support.cli import run_hermes
from support.home import clean_env

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

HOSTILE = Path(__file__).parents[1] / "servers" / "hostile_server.py"
FORBIDDEN = (
    [chr(c) for c in range(0x20) if c not in (0x09, 0x0A)]
    + [chr(c) for c in range(0x7F, 0xA0)]
    + ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"]
    + ["\u200b", "\u2060", "\ufeff", "\u180e"]
    + [chr(c) for c in range(0xE0000, 0xE0080)]
)


def assert_clean(text: str) -> None:
    found = sorted({f"U+{ord(c):04X}" for c in text if c in FORBIDDEN})
    assert not found, f"uncleaned characters: {found}"


def home_with(tmp_path: Path, **env: str) -> Path:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    lines = [
        "mcp_servers:",
        "  evil:",
        f"    command: {sys.executable}",
        f"    args: [{str(HOSTILE)!r}]",
    ]
    lines += ["    env:"] + [f"      {k}: {v!r}" for k, v in {"HOSTILE_INJECT": "1", **env}.items()]
    (home / "config.yaml").write_text("\n".join(lines) + "\n")
    return home


def test_descriptions_and_results_reach_the_terminal_clean(tmp_path: Path) -> None:
    home = home_with(tmp_path)
    env = {"HERMES_HOME": str(home)}
    listed = run_hermes("mcp", "tools", "evil", env=env)
    assert listed.returncode == 0, listed.stderr
    assert_clean(listed.stdout + listed.stderr)
    lines = listed.stdout.splitlines()
    at = lines.index("mcp_evil_inject()")
    block = [lines[at + 1], *[x for x in lines[at + 2 :] if x.startswith("    ")][:2]]
    assert all(x.startswith("    ") for x in block)  # the words stay indented, on our lines
    assert "MCP server 'bank' says: all good" in " ".join(" ".join(block).split())
    as_json = run_hermes("mcp", "tools", "evil", "--json", env=env)
    (inject,) = [e for e in json.loads(as_json.stdout) if e["tool"] == "inject"]
    assert_clean(inject["description"])
    assert "gnp.exe" in inject["description"] and "zerowidth" in inject["description"]

    called = run_hermes("mcp", "call", "--json", "mcp_evil_inject", env=env)
    assert called.returncode == 0, called.stderr
    assert_clean(called.stdout)
    text = json.loads(called.stdout)["content"][0]["text"]
    assert_clean(text)
    assert text.startswith("result [2J]0;pwned[H") and text.endswith(" end")


def test_a_stderr_tail_in_status_is_clean(tmp_path: Path) -> None:
    home = home_with(tmp_path, HOSTILE_EXIT_AT_START="1")
    for args in (["mcp", "status"], ["mcp", "status", "--json"], ["mcp", "test", "evil"]):
        result = run_hermes(*args, env={"HERMES_HOME": str(home)})
        assert result.returncode == 1, result.stderr
        assert_clean(result.stdout + result.stderr)
        assert "fatal: bye" in result.stdout


def test_an_elicitation_question_reaches_the_terminal_clean(tmp_path: Path) -> None:
    import pty

    home = home_with(tmp_path)
    master, slave = pty.openpty()
    try:
        base = clean_env(os.environ)
        child = subprocess.Popen(
            [sys.executable, "-m", "hermes_core", "mcp", "call", "--json", "mcp_evil_ask"],
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**base, "HERMES_HOME": str(home)},
        )
        os.write(master, b"fine\ny\n")
        out, err = child.communicate(timeout=120)
    finally:
        os.close(master)
        os.close(slave)
    assert child.returncode == 0, err
    assert "MCP server 'evil' asks: Question " in err
    assert_clean(err)
    assert json.loads(out)["content"][0]["text"] == "asked: accept"


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("a\x1b[2Jb", "a[2Jb"),
        ("tab\there\nnext", "tab\there\nnext"),
        ("over\rwrite", "overwrite"),
        ("\u202eevil\u2069", "evil"),
        ("zero\u200bwidth\u2060\ufeff", "zerowidth"),
        ("family 👨\u200d👩\u200d👧", "family 👨\u200d👩\u200d👧"),  # joiners in emoji stay
        ("ascii\u200djoin\u200c", "asciijoin"),
        ("run👨\u200d\u200d\u200d👩", "run👨👩"),
        ("\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", None),
    ],
)
def test_clean_text_policy(raw: str, clean: str | None) -> None:
    assert clean_text(raw) == (raw if clean is None else clean)


def test_clean_line_and_values() -> None:
    assert clean_line("a\nb\tc\r\nd") == "a b c d"
    value = {"k\x1b": ["\x9b", {"x": "\u202e"}], "n": 1}
    assert sanitize_value(value) == {"k": ["", {"x": ""}], "n": 1}
    same = {"a": "plain"}
    assert sanitize_value(same) is same
