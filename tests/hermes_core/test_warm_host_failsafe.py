"""The warm host fails safe: a host that does not answer never hangs the CLI (a bounded hello,
then the command runs cold with one warning), ``hermes mcp down`` always ends the process, a
``HERMES_HOME`` of any length works, and a link planted at the pid file is not followed; all
through the CLI as subprocesses, with the test upstream as the server."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cli import run_hermes
from support.procs import wait_exit
from support.proxy import UPSTREAM, write_config

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

WARM = "using the warm host"
BYPASSED = "warning: the warm host"


def _home(root: Path) -> dict[str, str]:
    write_config(root, servers={"up": {"command": sys.executable, "args": [str(UPSTREAM)]}})
    return {"HERMES_HOME": str(root)}


@pytest.fixture
def home(tmp_path: Path) -> Iterator[dict[str, str]]:
    env = _home(tmp_path)
    yield env
    run_hermes("mcp", "down", env=env)


class _Silent:
    """A Unix socket that accepts every connection, reads nothing and never answers."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(path))
        self.sock.listen(16)
        self.held: list[socket.socket] = []
        self.accepted = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)
            self.accepted.set()

    def close(self) -> None:
        self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        self._thread.join(10)
        for conn in self.held:
            conn.close()


def test_a_warm_host_that_never_answers_is_bypassed_with_one_warning(
    home: dict[str, str],
) -> None:
    run = Path(home["HERMES_HOME"]) / "run"
    run.mkdir(mode=0o700)
    silent = _Silent(run / "host.sock")
    (run / "host.pid").write_text(f"{os.getpid()}\n")  # alive: it looks up, it is not
    try:
        for words in (
            ("call", "mcp_up_note", "text=cold"),
            ("call", "--json", "mcp_up_note", "--args", '{"text": "cold"}'),
            ("status",),
        ):
            started = time.monotonic()
            done = run_hermes("mcp", *words, env=home, timeout=90)
            assert done.returncode == 0, done.stderr
            warnings = [line for line in done.stderr.splitlines() if BYPASSED in line]
            assert len(warnings) == 1 and "did not answer within 2 s" in warnings[0], done.stderr
            assert WARM not in done.stderr and "Traceback" not in done.stderr
            assert time.monotonic() - started < 60  # one bounded hello, then the cold run
        assert silent.accepted.is_set()  # it was asked, and said nothing
        assert (
            "noted cold" in run_hermes("mcp", "call", "mcp_up_note", "text=cold", env=home).stdout
        )
        up = run_hermes("mcp", "up", env=home)
        assert up.returncode == 1 and "does not answer; `hermes mcp down` ends it" in up.stderr
        down = run_hermes("mcp", "down", env=home)  # the pid is this test's: never signalled
        assert down.returncode == 0 and "removed a stale warm host" in down.stderr
        assert not (run / "host.pid").exists()
    finally:
        silent.close()


def test_a_hung_warm_host_is_bypassed_and_down_ends_it(home: dict[str, str]) -> None:
    assert run_hermes("mcp", "up", env=home).returncode == 0
    pid = int((Path(home["HERMES_HOME"]) / "run" / "host.pid").read_text())
    os.kill(pid, signal.SIGSTOP)  # hung: its socket takes connections, nothing answers
    try:
        called = run_hermes("mcp", "call", "mcp_up_note", "text=around it", env=home, timeout=90)
        assert called.returncode == 0 and called.stdout.strip() == "noted around it"
        assert called.stderr.count(BYPASSED) == 1 and f"(pid {pid})" in called.stderr
        down = run_hermes("mcp", "down", env=home, timeout=90)
        assert down.returncode == 0, down.stderr
        assert f"the warm host (pid {pid}) did not answer" in down.stderr
        assert "ended with SIGKILL" in down.stderr  # stopped: SIGTERM waits, SIGKILL does not
        assert wait_exit(pid, 30)
    finally:
        if not wait_exit(pid, 0):
            os.kill(pid, signal.SIGKILL)
    assert "no warm host is running" in run_hermes("mcp", "down", env=home).stdout


def test_a_client_that_sends_stop_and_leaves_still_ends_the_host(home: dict[str, str]) -> None:
    root = Path(home["HERMES_HOME"])
    assert run_hermes("mcp", "up", env=home).returncode == 0
    pid = int((root / "run" / "host.pid").read_text())
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(str(root / "run" / "host.sock"))
        client.sendall(json.dumps({"op": "stop"}).encode() + b"\n")
    assert wait_exit(pid, 60)
    assert not (root / "run" / "host.sock").exists() and not (root / "run" / "host.pid").exists()


def test_a_long_hermes_home_starts_serves_and_stops(tmp_path: Path) -> None:
    root = tmp_path
    for part in ("a" * 60, "b" * 60, "c" * 60, "home"):
        root = root / part
    assert len(str(root / "run" / "host.sock")) > 200
    env = _home(root)
    try:
        started = run_hermes("mcp", "up", env=env)
        assert started.returncode == 0, started.stderr
        sock = root / "run" / "host.sock"
        assert stat.S_ISSOCK(sock.stat().st_mode) and stat.S_IMODE(sock.stat().st_mode) == 0o600
        called = run_hermes("mcp", "call", "mcp_up_note", "text=far away", env=env)
        assert called.returncode == 0 and called.stdout.strip() == "noted far away"
        assert called.stderr.count(WARM) == 1, called.stderr
        status = run_hermes("mcp", "status", "--json", env=env)
        assert WARM in status.stderr and json.loads(status.stdout)[0]["connection"] == "connected"
        pid = int((root / "run" / "host.pid").read_text())
        down = run_hermes("mcp", "down", env=env)
        assert down.returncode == 0 and f"stopped the warm host (pid {pid})" in down.stdout
        assert wait_exit(pid, 60) and not sock.exists()
    finally:
        run_hermes("mcp", "down", env=env)


def test_a_link_planted_at_the_pid_file_is_not_followed(home: dict[str, str]) -> None:
    root = Path(home["HERMES_HOME"])
    run = root / "run"
    run.mkdir(mode=0o700)
    targets = {name: root / f"precious-{name}" for name in ("host.pid", "host.pid.tmp")}
    for name, target in targets.items():
        target.write_text("keep me\n")
        (run / name).symlink_to(target)
    started = run_hermes("mcp", "up", env=home)
    assert started.returncode == 0, started.stderr
    for target in targets.values():
        assert target.read_text() == "keep me\n"
    pid_file = run / "host.pid"
    assert not pid_file.is_symlink() and stat.S_IMODE(pid_file.stat().st_mode) == 0o600
    pid = int(pid_file.read_text())
    assert not (run / "host.pid.tmp").exists()
    assert run_hermes("mcp", "down", env=home).returncode == 0
    assert wait_exit(pid, 60)
    for target in targets.values():
        assert target.read_text() == "keep me\n"


def test_a_run_directory_that_is_a_link_is_refused(tmp_path: Path) -> None:
    env = _home(tmp_path / "home")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "home" / "run").symlink_to(elsewhere)
    started = run_hermes("mcp", "up", env=env)
    assert started.returncode == 1 and "is not a directory of this user" in started.stderr
    assert list(elsewhere.iterdir()) == []
