"""`hermes mcp add` flags, run as a user runs them: the server's arguments (``--arg``, ``--args``,
``--``), tool filters, ``--transport`` and a preset whose program is not installed yet."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from support.cli import hermes_at as hermes

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

HOSTILE = Path(__file__).parents[1] / "servers" / "hostile_server.py"


def entry(home: Path, name: str) -> dict[str, object]:
    from ruamel.yaml import YAML

    data = YAML(typ="safe").load((home / "config.yaml").read_text())
    found: dict[str, object] = data["mcp_servers"][name]
    return found


def test_a_hermes_flag_after_args_is_refused_not_stored(tmp_path: Path) -> None:
    result = hermes(
        tmp_path, "mcp", "add", "s", "--command", sys.executable, "--args", "a", "b", "--env", "K=V"
    )
    assert result.returncode == 2, result.stdout
    assert "'--env' after --args would be passed to the server as an argument" in result.stderr
    assert "after `--`" in result.stderr
    assert not (tmp_path / "config.yaml").exists()
    inline = hermes(tmp_path, "mcp", "add", "s", "--command", "x", "--args", "a", "--header=A=1")
    assert inline.returncode == 2 and "'--header' after --args" in inline.stderr


def test_everything_after_double_dash_is_the_servers(tmp_path: Path) -> None:
    result = hermes(
        tmp_path,
        "mcp",
        "add",
        "hostile",
        "--command",
        sys.executable,
        "--env",
        "HERMES_TEST_X=1",
        "--include",
        "echo",
        "--",
        "-u",
        str(HOSTILE),
    )
    assert result.returncode == 0, result.stderr
    # Probed for real (python -u hostile_server.py), the filter applied: one tool offered.
    assert result.stdout.strip() == "added 'hostile' (1 tool); new sessions will use it"
    saved = entry(tmp_path, "hostile")
    assert saved["args"] == ["-u", str(HOSTILE)]
    assert saved["env"] == {"HERMES_TEST_X": "1"}
    assert saved["tools"] == {"include": ["echo"]}
    listed = hermes(tmp_path, "mcp", "tools", "hostile")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[0] == "mcp_hostile_echo(text: str)"
    assert [line for line in listed.stdout.splitlines() if line.startswith("mcp_")] == [
        "mcp_hostile_echo(text: str)"
    ]


def test_repeated_arg_and_exclude(tmp_path: Path) -> None:
    result = hermes(
        tmp_path,
        "mcp",
        "add",
        "hostile",
        "--command",
        sys.executable,
        "--arg=-u",
        "--arg",
        str(HOSTILE),
        "--exclude",
        "hang,crash",
        "--exclude",
        "big*",
    )
    assert result.returncode == 0, result.stderr
    saved = entry(tmp_path, "hostile")
    assert saved["args"] == ["-u", str(HOSTILE)]
    assert saved["tools"] == {"exclude": ["hang", "crash", "big*"]}
    names = hermes(tmp_path, "mcp", "tools", "hostile", "--json")
    assert names.returncode == 0, names.stderr
    offered = {tool["name"] for tool in json.loads(names.stdout)}
    assert "mcp_hostile_echo" in offered and "mcp_hostile_hang" not in offered
    assert "mcp_hostile_crash" not in offered


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--command", "x", "--arg", "a", "--", "b"], "give the command's arguments one way"),
        (["--url", "http://127.0.0.1:9/mcp", "--", "b"], "need --command"),
        (["--command", "x", "--include", "a,,b"], "--include: empty tool name"),
        (["--url", "http://127.0.0.1:9/mcp", "--transport", "carrier-pigeon"], "unknown transport"),
        (["--command", "x", "--transport", "sse"], "transport: sse needs a 'url'"),
    ],
)
def test_add_usage_errors(tmp_path: Path, flags: list[str], message: str) -> None:
    result = hermes(tmp_path, "mcp", "add", "s", "--no-probe", *flags)
    assert result.returncode == 2, result.stdout
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "config.yaml").exists()


def test_transport_is_written(tmp_path: Path) -> None:
    url = "http://127.0.0.1:9/sse"
    result = hermes(
        tmp_path, "mcp", "add", "legacy", "--url", url, "--transport", "sse", "--no-probe"
    )
    assert result.returncode == 0, result.stderr
    assert entry(tmp_path, "legacy") == {"url": url, "transport": "sse"}
    rows = json.loads(hermes(tmp_path, "mcp", "list", "--json").stdout)
    assert rows[0]["transport"] == "sse"


def test_a_preset_whose_program_is_not_installed_yet_is_saved_disabled(tmp_path: Path) -> None:
    """As ``hermes mcp install codex`` does: a missing runner is saved disabled, exit 1."""
    empty = tmp_path / "bin"
    empty.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    result = hermes(
        home,
        "mcp",
        "add",
        "codex",
        "--preset",
        "codex",
        "--exclude",
        "codex-reply",
        PATH=str(empty),
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines() == [
        "saved 'codex' disabled: needs codex: `codex` is not on PATH. Install the Codex CLI "
        "(npm install -g @openai/codex), then try again.",
        "install it, then `hermes mcp enable codex`",
    ]
    assert entry(home, "codex") == {
        "command": "codex",
        "args": ["mcp-server"],
        "tools": {"exclude": ["codex-reply"]},
        "enabled": False,
    }
    # So is a known runner (uvx) of one's own command; any other command not found is a
    # failed probe, saved disabled the same way.
    uv = hermes(
        home, "mcp", "add", "t", "--command", "uvx", "--", "mcp-server-time", PATH=str(empty)
    )
    assert uv.returncode == 1 and "saved 't' disabled: needs uv: `uvx` is not on PATH" in uv.stdout
    own = hermes(home, "mcp", "add", "mine", "--command", "hermes-no-such-command")
    assert own.returncode == 1 and "saved 'mine' disabled: the probe failed" in own.stdout
