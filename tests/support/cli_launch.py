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
from typing import BinaryIO

__all__ = ["LaunchedProcess", "launcher_pid", "popen", "run", "shim_argv"]

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


SHIM = Path(__file__).with_name("hermes_shim.py")


def shim_argv(argv: list[str], env: Mapping[str, str]) -> list[str] | None:
    """The command line that runs ``hermes ARGV`` forked from the launcher for a client that
    starts the command itself (``support/hermes_shim.py``); ``None``: not forkable here."""
    if not _forkable(env):
        return None
    path = _LAUNCHER.socket_path()
    if path is None:
        return None
    return [sys.executable, str(SHIM), path, *argv]


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


def _ask(connection: socket.socket, path: str, request: object, fds: list[int]) -> None:
    """Send *request* (its length, *fds* with it, then its JSON) to the launcher at *path*."""
    connection.connect(path)
    body = json.dumps(request).encode()
    socket.send_fds(connection, [f"{len(body)}\n".encode()], fds)
    connection.sendall(body)


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
                _ask(connection, path, request, [stdin_r, out_w, err_w])
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


class LaunchedProcess:
    """A long-running ``hermes`` forked from the launcher, with what the suite uses of
    :class:`subprocess.Popen`: ``pid``, ``stdout``/``stderr`` (binary files of the pipes
    asked for), ``poll``, ``wait``, ``send_signal``, ``terminate``, ``kill``, ``communicate``.
    Its exit status comes on the launcher's connection."""

    def __init__(
        self,
        args: list[str],
        connection: socket.socket,
        stdout: BinaryIO | None,
        stderr: BinaryIO | None,
    ) -> None:
        self.args = args
        self.stdout = stdout
        self.stderr = stderr
        self.stdin = None
        self.returncode: int | None = None
        self._connection = connection
        self._ended = threading.Event()
        self.pid = int(_line(connection, time.monotonic() + 60).removeprefix("pid "))
        threading.Thread(target=self._await_exit, daemon=True).start()

    def _await_exit(self) -> None:
        with self._connection:
            self._connection.settimeout(None)
            data = b""
            while not data.endswith(b"\n"):
                chunk = self._connection.recv(64)
                if not chunk:
                    break
                data += chunk
        text = data.decode().strip()
        self.returncode = int(text.removeprefix("exit ")) if text.startswith("exit ") else -9
        self._ended.set()

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if not self._ended.wait(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, number: int) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, number)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def communicate(self, timeout: float | None = None) -> tuple[bytes | None, bytes | None]:
        """The rest of stdout and stderr (where piped) once the process has ended."""
        deadline = time.monotonic() + (timeout if timeout is not None else 3600)
        streams = [s for s in (self.stdout, self.stderr) if s is not None]
        output = {s.fileno(): bytearray() for s in streams}
        if not _read_all(output, deadline):
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        self.wait(max(0.0, deadline - time.monotonic()))
        got = [
            bytes(output[s.fileno()]) if s is not None else None for s in (self.stdout, self.stderr)
        ]
        for stream in streams:
            stream.close()
        return got[0], got[1]


def popen(
    argv: list[str],
    env: Mapping[str, str],
    *,
    stdout: int | BinaryIO | None = None,
    stderr: int | BinaryIO | None = None,
    cwd: Path | None = None,
) -> LaunchedProcess | None:
    """``python -m hermes_core ARGV`` forked from the launcher and left running (``None``: not
    forkable here).  *stdout*/*stderr*: ``subprocess.PIPE``, ``subprocess.DEVNULL``, an open
    file, or ``None`` (this process's); stdin reads the null device."""
    if not _forkable(env):
        return None
    path = _LAUNCHER.socket_path()
    if path is None:
        return None
    mine: list[int] = []  # what is closed here once sent
    kept: dict[int, BinaryIO] = {}

    def child_end(target: int | BinaryIO | None, fd: int) -> int:
        if target is None:
            return fd
        if target == subprocess.DEVNULL:
            mine.append(os.open(os.devnull, os.O_RDWR))
            return mine[-1]
        if target == subprocess.PIPE:
            read, write = os.pipe()
            kept[fd] = os.fdopen(read, "rb", buffering=0)
            mine.append(write)
            return write
        assert not isinstance(target, int)
        return target.fileno()

    fds = [child_end(subprocess.DEVNULL, 0), child_end(stdout, 1), child_end(stderr, 2)]
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        request = {"argv": argv, "env": dict(env), "cwd": str(cwd or os.getcwd())}
        _ask(connection, path, request, fds)
    except OSError:
        connection.close()
        for stream in kept.values():
            stream.close()
        raise
    finally:
        for fd in mine:
            os.close(fd)
    command = [sys.executable, "-m", "hermes_core", *argv]
    return LaunchedProcess(command, connection, kept.get(1), kept.get(2))
