"""What `hermes mcp status` and `hermes mcp tools` tell a user about each server (a gated app,
filtered tools, a disabled entry, a crash), and listing commands whose reader stops early."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli import hermes_at as hermes
from support.home import clean_env

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

HOSTILE = Path(__file__).parents[1] / "servers" / "hostile_server.py"
# acme-studio (declared by the example vendor plugin, installed in the test environment) is not
# on this PATH, so its server is gated.
NO_APPS = "/usr/bin:/bin"
CRASH = "import sys; sys.stderr.write('boom: ACME_KEY is missing\\n'); sys.exit(3)"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n"
        "  acme-studio:\n"
        f"    command: {sys.executable}\n"
        f"    args: [{str(HOSTILE)!r}]\n"
        "  hostile:\n"
        f"    command: {sys.executable}\n"
        f"    args: [{str(HOSTILE)!r}]\n"
        "    tools: {exclude: [hang, crash, huge]}\n"
        "  crashy:\n"
        f"    command: {sys.executable}\n"
        f"    args: ['-c', {CRASH!r}]\n"
        "  off:\n"
        "    command: nothing\n"
        "    enabled: false\n"
    )
    return tmp_path


def test_status_says_why_a_gated_server_is_not_offered_and_what_is_filtered(home: Path) -> None:
    result = hermes(home, "mcp", "status", PATH=NO_APPS)
    assert result.returncode == 1  # acme-studio and crashy are not offered
    lines = result.stdout.splitlines()
    acme = next(i for i, line in enumerate(lines) if line.startswith("[--] acme-studio "))
    assert "app: missing_app" in lines[acme]
    assert (
        lines[acme + 1] == "     Acme Studio is not installed. Install Acme Studio, then try again."
    )
    hostile = next(i for i, line in enumerate(lines) if line.startswith("[ok] hostile "))
    assert lines[hostile + 1] == "     filtered out: 3 tool(s) by tools: include/exclude"
    rows = {
        r["server"]: r
        for r in json.loads(hermes(home, "mcp", "status", "--json", PATH=NO_APPS).stdout)
    }
    assert rows["acme-studio"]["gate"] == (
        "Acme Studio is not installed. Install Acme Studio, then try again."
    )
    assert rows["hostile"]["gate"] is None and rows["hostile"]["filtered_out"] == 3


def test_a_crashed_servers_progress_line_shows_its_stderr(home: Path) -> None:
    result = hermes(home, "mcp", "status")
    progress = result.stderr.splitlines()
    crashed = next(i for i, line in enumerate(progress) if line.startswith("  crashy: failed: "))
    assert "exited with code 3" in progress[crashed]
    assert "    | boom: ACME_KEY is missing" in progress[crashed + 1 :]


def test_tools_reports_a_disabled_server_as_disabled(home: Path) -> None:
    result = hermes(home, "mcp", "tools", PATH=NO_APPS)
    assert "# off: no tools offered (disabled in config.yaml; `hermes mcp enable` turns it on)" in (
        result.stderr.splitlines()
    )
    assert "undeclared" not in result.stderr
    gated = "# acme-studio: no tools offered (Acme Studio is not installed. Install Acme Studio, "
    assert any(line.startswith(gated) for line in result.stderr.splitlines())


@pytest.mark.parametrize(
    "command",
    [
        ["mcp", "list", "--json"],
        ["mcp", "tools", "hostile", "--json"],
        ["mcp", "status", "--json"],
        ["plugins", "list", "--json"],
        ["skills", "list", "--json"],
    ],
)
def test_a_reader_that_stops_early_ends_no_traceback(home: Path, command: list[str]) -> None:
    """``hermes … --json | head -1``: the reader is gone before hermes writes anything."""
    import os

    env = clean_env(os.environ)
    process = subprocess.Popen(
        [sys.executable, "-m", "hermes_core", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**env, "HERMES_HOME": str(home)},
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # as `head` does once it has its line
    with process.stderr:
        stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == 141, stderr
    assert "BrokenPipeError" not in stderr and "Traceback" not in stderr
