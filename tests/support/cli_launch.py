"""Run ``python -m hermes_core ARGS`` as a process forked from this worker's launcher
(``support/cli_zygote.py``): a real process (its own pid, pipes, environment, working directory
and exit status) that skips the interpreter's start and the imports every run would repeat.

:func:`run` has :func:`subprocess.run`'s contract for what the suite's runs use (captured text
output, a timeout that kills the process and raises :class:`subprocess.TimeoutExpired`); it
returns ``None`` where the launcher cannot give the same process (an interpreter option in
the environment, no ``fork``), and the caller starts the interpreter itself.
``HERMES_TEST_EXEC=1`` in the suite's environment turns the launcher off altogether.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path

__all__ = ["launcher_pid", "run"]

ZYGOTE = Path(__file__).with_name("cli_zygote.py")
#: Environment variables the launcher's children take as they are (the others named
#: ``PYTHON…`` change how an interpreter starts: such runs start one).
CHILD_OK = {"PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED"}


class _Launcher:
    """This worker's launcher process (started on first use, ended with the worker)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[str] | None = None
        self._path = ""
        self._broken = False

    def socket_path(self) -> str | None:
        with self._lock:
            if self._broken:
                return None
            if self._process is not None and self._process.poll() is None:
                return self._path
            self._path = os.path.join(tempfile.mkdtemp(prefix="hermes-launch-"), "s")
            env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
            self._process = subprocess.Popen(
                [sys.executable, str(ZYGOTE), self._path],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                env=env,
                start_new_session=True,  # a Ctrl-C aimed at the test run is not its
            )
            assert self._process.stdout is not None
            if self._process.stdout.readline().strip() != "ready":
                self._broken = True
                self._process.kill()
                return None
            atexit.register(self._stop, self._process)
            return self._path

    def pid(self) -> int | None:
        process = self._process
        return process.pid if process is not None else None

    @staticmethod
    def _stop(process: subprocess.Popen[str]) -> None:
        if process.stdin is not None:
            process.stdin.close()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()


_LAUNCHER = _Launcher()


def launcher_pid() -> int | None:
    """The pid of this worker's launcher (``None``: none started)."""
    return _LAUNCHER.pid()


def _forkable(env: Mapping[str, str]) -> bool:
    if os.environ.get("HERMES_TEST_EXEC") == "1" or not hasattr(os, "fork"):
        return False
    return all(k in CHILD_OK for k in env if k.startswith("PYTHON"))


def _read_all(fds: dict[int, bytearray], deadline: float) -> bool:
    """Read *fds* to their end (``False``: the deadline passed first)."""
    selector = selectors.DefaultSelector()
    for fd in fds:
        selector.register(fd, selectors.EVENT_READ)
    try:
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            for key, _ in selector.select(left):
                chunk = os.read(key.fd, 65536)
                if chunk:
                    fds[key.fd] += chunk
                else:
                    selector.unregister(key.fd)
        return True
    finally:
        selector.close()


def _line(connection: socket.socket, deadline: float) -> str:
    data = b""
    while not data.endswith(b"\n"):
        connection.settimeout(max(0.001, deadline - time.monotonic()))
        chunk = connection.recv(64)
        if not chunk:
            raise ConnectionError("the launcher closed the connection")
        data += chunk
    return data.decode().strip()


def run(
    argv: list[str], env: Mapping[str, str], cwd: Path | None, timeout: float
) -> subprocess.CompletedProcess[str] | None:
    """``python -m hermes_core ARGV`` forked from the launcher (``None``: not forkable here)."""
    if not _forkable(env):
        return None
    path = _LAUNCHER.socket_path()
    if path is None:
        return None
    request = {"argv": argv, "env": dict(env), "cwd": str(cwd or os.getcwd())}
    command = [sys.executable, "-m", "hermes_core", *argv]
    deadline = time.monotonic() + timeout
    stdin_r, stdin_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    os.close(stdin_w)  # no input: the child reads an end of file, as from capture_output
    output = {out_r: bytearray(), err_r: bytearray()}
    pid, status = 0, None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            try:
                connection.connect(path)
                body = json.dumps(request).encode()
                socket.send_fds(connection, [f"{len(body)}\n".encode()], [stdin_r, out_w, err_w])
                connection.sendall(body)
            finally:
                for fd in (stdin_r, out_w, err_w):
                    os.close(fd)
            pid = int(_line(connection, deadline).removeprefix("pid "))
            if _read_all(output, deadline):
                status = int(_line(connection, deadline).removeprefix("exit "))
    except TimeoutError:
        status = None
    finally:
        os.close(out_r)
        os.close(err_r)
    if status is None:
        if pid > 0:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        raise subprocess.TimeoutExpired(command, timeout)
    return subprocess.CompletedProcess(command, status, _text(output[out_r]), _text(output[err_r]))


def _text(data: bytearray) -> str:
    """*data* as ``subprocess.run(text=True)`` reads it (UTF-8, universal newlines)."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
