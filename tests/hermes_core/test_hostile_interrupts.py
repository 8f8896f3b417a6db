"""Interrupting the host: Ctrl-C while servers connect, and calls given up by their caller.

The server here never answers ``initialize`` (``HOSTILE_HANG_AT_START``): it starts a
grandchild, writes both pids to a marker file (the event the test waits for) and sleeps
without reading stdin, so only the host ending its process group stops it.  A call's
cancellation is recorded by the server itself (``HOSTILE_CANCEL_MARKER``).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hermes_core.host.host import HostServer, MCPHost
from hermes_core.host.sync import SyncMCPHost
from support.home import clean_env

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.network, pytest.mark.slow]

SERVERS = Path(__file__).parents[1] / "servers"
HOSTILE = str(SERVERS / "hostile_server.py")
WAIT = 120.0  # a hang guard for events, never a measured time


def wait_for_file(path: Path, process: subprocess.Popen[str] | None = None) -> str:
    """The content of *path* once it exists (the server writes it atomically)."""
    deadline = time.monotonic() + WAIT
    while not path.exists():
        if process is not None and process.poll() is not None:
            out, err = process.communicate()
            raise AssertionError(f"exited with {process.returncode} first:\n{out}\n{err}")
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)
    return path.read_text()


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def assert_gone(pids: list[int]) -> None:
    """Every pid ends (a SIGTERM to the group is asynchronous: wait for it, bounded)."""
    deadline = time.monotonic() + 30
    while alive := [pid for pid in pids if running(pid)]:
        if time.monotonic() > deadline:
            for pid in alive:  # do not leave them to the next test
                os.kill(pid, signal.SIGKILL)
            raise AssertionError(f"still running after the host stopped: {alive}")
        time.sleep(0.05)


def hanging_env(marker: Path) -> dict[str, str]:
    return {"HOSTILE_HANG_AT_START": str(marker)}


SYNC_SCRIPT = """
import sys
from hermes_core.host.host import HostServer
from hermes_core.host.sync import SyncMCPHost

server = HostServer(
    "slow", command=sys.executable, args=[sys.argv[1]],
    env={"HOSTILE_HANG_AT_START": sys.argv[2]}, connect_timeout=600,
)
try:
    with SyncMCPHost([server]) as host:
        print("started")
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


def test_an_interrupted_sync_start_stops_the_servers(tmp_path: Path) -> None:
    marker = tmp_path / "pids"
    script = subprocess.Popen(
        [sys.executable, "-c", SYNC_SCRIPT, HOSTILE, str(marker)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        pids = [int(p) for p in wait_for_file(marker, script).split()]
        script.send_signal(signal.SIGINT)  # Ctrl-C while SyncMCPHost.start() waits
        out, err = script.communicate(timeout=WAIT)
    finally:
        script.kill()
    assert out == "interrupted\n", err
    assert_gone(pids)


def cli(home: Path, *args: str) -> subprocess.Popen[str]:
    base = clean_env(os.environ)
    return subprocess.Popen(
        [sys.executable, "-m", "hermes_core", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**base, "HERMES_HOME": str(home)},
    )


@pytest.mark.parametrize(
    "command",
    [("status",), ("status", "--json"), ("tools",), ("call", "mcp_slow_echo"), ("test", "slow")],
)
def test_ctrl_c_while_connecting_is_one_line_and_exit_130(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    marker = tmp_path / "pids"
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        f"mcp_servers:\n  slow:\n    command: {sys.executable}\n    args: [{HOSTILE!r}]\n"
        f"    connect_timeout: 600\n    env:\n      HOSTILE_HANG_AT_START: {str(marker)!r}\n"
    )
    process = cli(home, "mcp", *command)
    try:
        pids = [int(p) for p in wait_for_file(marker, process).split()]
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=WAIT)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert out == ""
    lines = [line for line in err.splitlines() if not line.startswith("connecting ")]
    assert lines == ["hermes: interrupted"], err
    assert_gone(pids)


def test_a_sync_call_timeout_cancels_on_the_server_and_frees_the_slot(tmp_path: Path) -> None:
    marker = tmp_path / "cancelled"
    server = HostServer(
        "hostile",
        command=sys.executable,
        args=[HOSTILE],
        env={"HOSTILE_CANCEL_MARKER": str(marker)},
    )  # calls are serialised (no supports_parallel_tool_calls); its own timeout is 300 s
    with SyncMCPHost([server]) as host:
        with pytest.raises(TimeoutError):
            host.call_tool("mcp_hostile_hang", timeout=0.5)
        assert wait_for_file(marker) == "cancelled\n"  # notifications/cancelled arrived
        # The slot is free: the next call runs now, not after the hung call's 300 s.
        result = host.call_tool("mcp_hostile_echo", {"text": "next"}, timeout=WAIT)
        assert result["content"][0]["text"] == "next"


def test_an_async_call_given_up_by_its_caller_is_cancelled_on_the_server(tmp_path: Path) -> None:
    marker = tmp_path / "cancelled"
    server = HostServer(
        "hostile",
        command=sys.executable,
        args=[HOSTILE],
        env={"HOSTILE_CANCEL_MARKER": str(marker)},
    )

    async def scenario() -> dict[str, object]:
        async with MCPHost([server]) as host:
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(host.call_tool("mcp_hostile_hang"), 0.5)
            while not marker.exists():  # bounded by the outer wait_for
                await asyncio.sleep(0.05)
            return await host.call_tool("mcp_hostile_echo", {"text": "next"})

    result = asyncio.run(asyncio.wait_for(scenario(), WAIT))
    assert marker.read_text() == "cancelled\n"
    assert result["content"][0]["text"] == "next"  # type: ignore[index]


@pytest.mark.parametrize("command", [("status",), ("test", "slow")])
def test_ctrl_c_while_an_http_server_hangs_in_initialize(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    from servers.net import free_port, wait_for_port

    marker = tmp_path / "initialize"
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, str(SERVERS / "hostile_http.py"), str(port), "hang", str(marker)]
    )
    try:
        wait_for_port(port)
        home = tmp_path / "home"
        home.mkdir()
        (home / "config.yaml").write_text(
            f"mcp_servers:\n  slow:\n    url: http://127.0.0.1:{port}/mcp\n"
            "    connect_timeout: 600\n"
        )
        process = cli(home, "mcp", *command)
        try:
            wait_for_file(marker, process)  # the initialize request is in the server's hands
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=WAIT)
        finally:
            process.kill()
    finally:
        server.kill()
        server.wait()
    assert process.returncode == 130, err
    assert "Traceback" not in err and out == ""
    assert [line for line in err.splitlines() if not line.startswith("connecting ")] == [
        "hermes: interrupted"
    ], err
