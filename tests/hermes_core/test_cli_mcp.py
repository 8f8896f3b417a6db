"""`hermes mcp …` run as a user runs it: a temporary HERMES_HOME, real servers, real processes."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from support.cli import hermes_at as hermes

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

HOSTILE = Path(__file__).parents[1] / "servers" / "hostile_server.py"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "config.yaml").write_text(
        "# servers for the test\n"
        "mcp_servers:\n"
        "  hostile:\n"
        f"    command: {sys.executable}\n"
        f"    args: [{str(HOSTILE)!r}]\n"
        "    tools:\n"
        "      exclude: [hang, crash]\n"
        "  needs-token:\n"
        "    command: ${HERMES_TEST_UNSET_TOKEN}\n"
        "  off:\n"
        "    command: nothing\n"
        "    enabled: false\n"
    )
    return tmp_path


def test_list_does_not_connect(home: Path) -> None:
    result = hermes(home, "mcp", "list", "--json")
    assert result.returncode == 0, result.stderr
    rows = {r["server"]: r for r in json.loads(result.stdout)}
    assert rows["off"]["enabled"] is False
    assert rows["hostile"]["transport"] == "stdio"


def test_status_reports_each_server(home: Path) -> None:
    result = hermes(home, "mcp", "status", "--json")
    assert result.returncode == 1  # one enabled server is not offered
    rows = {r["server"]: r for r in json.loads(result.stdout)}
    assert rows["hostile"]["connection"] == "connected"
    assert rows["hostile"]["tools"] == 4
    assert rows["needs-token"]["connection"] == "failed"
    assert rows["needs-token"]["last_error"] == (
        f"{home / 'config.yaml'}:9: mcp_servers.needs-token.command: "
        f"${{HERMES_TEST_UNSET_TOKEN}} is not set (not in the environment or {home / '.env'})"
    )
    assert rows["off"]["connection"] == "disabled"


def test_dotenv_supplies_variables(home: Path) -> None:
    (home / ".env").write_text(f"export HERMES_TEST_UNSET_TOKEN='{shutil.which('false')}'\n")
    result = hermes(home, "mcp", "test", "needs-token", "--json")
    report = json.loads(result.stdout)
    # The variable resolved to `false`, which exits at once: a startup failure, not "not set".
    assert report["error"] == "the server exited with code 1 during startup"


def test_tools_and_call(home: Path) -> None:
    listed = hermes(home, "mcp", "tools", "hostile")
    assert listed.returncode == 0, listed.stderr
    assert "mcp_hostile_echo(text: str)\n    Echo the text.\n" in listed.stdout
    assert "mcp_hostile_hang" not in listed.stdout
    called = hermes(
        home, "mcp", "call", "--json", "mcp_hostile_echo", "--args", '{"text": "hi there"}'
    )
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["content"][0]["text"] == "hi there"
    bad = hermes(home, "mcp", "call", "--json", "mcp_hostile_echo", "--args", "{not json")
    assert bad.returncode == 2 and "--args is not valid JSON" in bad.stderr


def test_test_command_times_one_server(home: Path) -> None:
    result = hermes(home, "mcp", "test", "hostile")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("hostile: connected and listed 4 tools in ")
    missing = hermes(home, "mcp", "test", "nope")
    assert missing.returncode == 2 and "no server named 'nope'" in missing.stderr


def test_bad_config_is_exit_2_with_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("mcp_servers:\n  x:\n    command: a\n    timeout: soon\n")
    result = hermes(tmp_path, "mcp", "status")
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: {tmp_path / 'config.yaml'}:4: mcp_servers.x.timeout")
    assert "Traceback" not in result.stderr


def test_add_probe_enable_disable_remove_keep_comments(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(
        "# my settings\nmodel: local  # keep me\n"
        "mcp_servers:\n  # the first one\n  one:\n    command: x\n"
    )
    added = hermes(
        tmp_path, "mcp", "add", "hostile", "--command", sys.executable, "--args", str(HOSTILE)
    )
    assert added.returncode == 0, added.stderr
    assert added.stdout.strip() == "added 'hostile' (6 tools); new sessions will use it"
    failed = hermes(tmp_path, "mcp", "add", "broken", "--command", "hermes-no-such-command")
    assert failed.returncode == 1
    assert "saved 'broken' disabled: the probe failed: command not found" in failed.stdout
    assert hermes(tmp_path, "mcp", "disable", "one").stdout.strip() == "'one' disabled"
    assert hermes(tmp_path, "mcp", "disable", "one").stdout.strip() == "'one' was already disabled"
    assert hermes(tmp_path, "mcp", "remove", "broken").returncode == 0
    assert hermes(tmp_path, "mcp", "remove", "broken").returncode == 2
    text = config.read_text()
    assert text.startswith(
        "# my settings\nmodel: local  # keep me\nmcp_servers:\n  # the first one\n"
    )
    assert "broken" not in text
    rows = {r["server"]: r for r in json.loads(hermes(tmp_path, "mcp", "list", "--json").stdout)}
    assert rows["one"]["enabled"] is False and rows["hostile"]["enabled"] is True


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ([], "give the server: `hermes mcp add NAME -- CMD ARGS…`, `hermes mcp add NAME URL`"),
        (["--preset", "nope"], "unknown MCP preset 'nope' (known: codex)"),
        (["--url", "http://127.0.0.1:9/mcp", "--env", "A=1"], "--env is only for stdio servers"),
        (["--command", "x", "--env", "novalue"], "invalid --env value (expected NAME=VALUE)"),
        (["--command", "x", "--env", "1A=2"], "invalid --env name '1A'"),
    ],
)
def test_add_usage_errors(tmp_path: Path, flags: list[str], message: str) -> None:
    result = hermes(tmp_path, "mcp", "add", "s", *flags)
    assert result.returncode == 2
    assert message in result.stderr
    assert not (tmp_path / "config.yaml").exists()


def test_add_preset_without_probe(tmp_path: Path) -> None:
    result = hermes(tmp_path, "mcp", "add", "codex", "--preset", "codex", "--no-probe")
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "config.yaml").read_text()
    assert "command: codex" in text and "mcp-server" in text


def test_add_with_oauth_saves_then_points_at_login(tmp_path: Path) -> None:
    result = hermes(
        tmp_path, "mcp", "add", "linear", "--url", "https://127.0.0.1:9/mcp", "--auth", "oauth"
    )
    assert result.returncode == 0, result.stderr
    assert "now authorise it: `hermes mcp login linear`" in result.stdout
    assert "auth: oauth" in (tmp_path / "config.yaml").read_text()
    stdio = hermes(tmp_path, "mcp", "add", "x", "--command", "y", "--auth", "oauth")
    assert stdio.returncode == 2 and "--auth is only for HTTP servers" in stdio.stderr
