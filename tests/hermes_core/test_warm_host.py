"""``hermes mcp up`` / ``down`` and the warm path of ``status``, ``tools``, ``call`` and ``test``,
all through the CLI as subprocesses, against the test upstream and the 2026-07-28-only
server."""

from __future__ import annotations

import json
import socket
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cli import run_hermes
from support.procs import wait_exit
from support.proxy import MODERN, UPSTREAM, write_config

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

WARM = "using the warm host"


@pytest.fixture
def home(tmp_path: Path) -> Iterator[dict[str, str]]:
    write_config(
        tmp_path,
        servers={
            "up": {"command": sys.executable, "args": [str(UPSTREAM)]},
            "modern": {"command": sys.executable, "args": [str(MODERN)]},
        },
    )
    env = {"HERMES_HOME": str(tmp_path)}
    yield env
    run_hermes("mcp", "down", env=env)


def test_up_serves_the_cli_and_down_stops_it(home: dict[str, str]) -> None:
    root = Path(home["HERMES_HOME"])
    started = run_hermes("mcp", "up", env=home)
    assert started.returncode == 0, started.stderr
    assert "warm host running (pid" in started.stdout
    sock, pid_file = root / "run" / "host.sock", root / "run" / "host.pid"
    assert stat.S_IMODE(sock.stat().st_mode) == 0o600 and stat.S_ISSOCK(sock.stat().st_mode)
    assert stat.S_IMODE((root / "run").stat().st_mode) == 0o700
    assert stat.S_IMODE(pid_file.stat().st_mode) == 0o600
    pid = int(pid_file.read_text())
    assert (root / "logs" / "warm-host.log").exists()
    again = run_hermes("mcp", "up", env=home)
    assert again.returncode == 0 and f"already running (pid {pid}" in again.stdout

    called = run_hermes(
        "mcp", "call", "--json", "mcp_up_note", "--args", '{"text": "warm"}', env=home
    )
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["content"][0]["text"] == "noted warm"
    assert called.stderr.count(WARM) == 1 and f"pid {pid}" in called.stderr
    status = run_hermes("mcp", "status", "--json", env=home)
    assert WARM in status.stderr
    rows = {r["server"]: r for r in json.loads(status.stdout)}
    assert set(rows) == {"up", "modern"} and rows["modern"]["protocol"] == "2026-07-28"
    tools = run_hermes("mcp", "tools", "modern", env=home)
    assert WARM in tools.stderr and "mcp_modern_echo" in tools.stdout
    assert "mcp_up_note" not in tools.stdout
    tested = run_hermes("mcp", "test", "up", "--json", env=home)
    assert WARM in tested.stderr and tested.returncode == 0
    report = json.loads(tested.stdout)
    assert report["connection"] == "connected" and "mcp_up_peek" in report["tools"]
    cold = run_hermes("mcp", "status", env={**home, "HERMES_WARM": "0"})
    assert WARM not in cold.stderr and "connecting 2 server(s)" in cold.stderr

    stopped = run_hermes("mcp", "down", env=home)
    assert stopped.returncode == 0 and f"stopped the warm host (pid {pid})" in stopped.stdout
    assert wait_exit(pid, 60)
    assert not sock.exists() and not pid_file.exists()
    after = run_hermes("mcp", "status", env=home)
    assert WARM not in after.stderr
    assert "no warm host is running" in run_hermes("mcp", "down", env=home).stdout


def test_a_stale_socket_and_pid_are_cleaned(home: dict[str, str]) -> None:
    root = Path(home["HERMES_HOME"])
    run = root / "run"
    run.mkdir(mode=0o700)
    with socket.socket(socket.AF_UNIX) as leftover:  # bound, never listening: nobody answers
        leftover.bind(str(run / "host.sock"))
    (run / "host.pid").write_text("999999\n")
    status = run_hermes("mcp", "status", env=home)
    assert "removed a stale warm host socket (pid 999999 is gone)" in status.stderr
    assert WARM not in status.stderr and status.returncode == 0
    assert not (run / "host.sock").exists() and not (run / "host.pid").exists()
    (run / "host.pid").write_text("999999\n")
    started = run_hermes("mcp", "up", env=home)
    assert started.returncode == 0 and "removed a stale warm host" in started.stderr


def test_a_bad_config_stops_up_with_exit_2(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("mcp_servers:\n  x:\n    command: a\n    timeout: no\n")
    done = run_hermes("mcp", "up", env={"HERMES_HOME": str(tmp_path)})
    assert done.returncode == 2 and ":4: mcp_servers.x.timeout" in done.stderr
    assert not (tmp_path / "run" / "host.sock").exists()


def test_a_config_edit_reloads_the_warm_host(home: dict[str, str]) -> None:
    root = Path(home["HERMES_HOME"])
    assert run_hermes("mcp", "up", env=home).returncode == 0
    write_config(root, servers={"up2": {"command": sys.executable, "args": [str(UPSTREAM)]}})
    deadline = time.monotonic() + 90
    names: set[str] = set()
    while time.monotonic() < deadline:  # the watcher notices within its interval (2 s)
        status = run_hermes("mcp", "status", "--json", env=home)
        assert WARM in status.stderr
        names = {r["server"] for r in json.loads(status.stdout) if r["connection"] == "connected"}
        if names == {"up2"}:
            break
    assert names == {"up2"}


def test_a_warm_calls_approval_is_asked_on_the_calling_terminal(tmp_path: Path) -> None:
    write_config(
        tmp_path,
        servers={"up": {"command": sys.executable, "args": [str(UPSTREAM)], "trust": "untrusted"}},
    )
    env = {"HERMES_HOME": str(tmp_path)}
    assert run_hermes("mcp", "up", env=env).returncode == 0
    try:
        # No terminal here: the question reaches this CLI (not the warm host's log) and is
        # declined by it, so the call fails closed, as a cold call does.
        called = run_hermes(
            "mcp", "call", "--json", "mcp_up_note", "--args", '{"text": "x"}', env=env
        )
        assert WARM in called.stderr and called.returncode == 1
        assert "is untrusted and wants to run 'note'" in called.stderr
        assert "not run (no terminal to ask on)" in called.stderr
        assert "was NOT run: the user declined" in json.loads(called.stdout)["error"]
        peeked = run_hermes("mcp", "call", "--json", "mcp_up_peek", env=env)
        assert peeked.returncode == 0 and "untrusted" not in peeked.stderr
    finally:
        run_hermes("mcp", "down", env=env)
