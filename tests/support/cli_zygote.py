"""The launcher the suite's ``hermes`` runs start from: one per test worker, run as a script.

It imports Hermes's command line and the ``mcp`` SDK once (about 0.85 s of CPU a Python
process would otherwise spend on every run) and then, for each run asked of it on its Unix
socket, forks a child that becomes ``python -m hermes_core ARGS``: the asker's three pipes as
its stdin, stdout and stderr, the asked environment (``os.environ`` replaced whole), working
directory and ``sys.path`` (the directory, then ``PYTHONPATH``, then the interpreter's own, as
``python -m`` builds it), default signal handlers, and, when the command ends, what the
interpreter does at exit (non-daemon threads joined, ``atexit`` handlers, streams flushed).
The child's exit status goes back on the asker's connection, in ``subprocess``'s convention
(a negative number: ended by that signal).

Nothing here imports the tests: the launcher holds only what a fresh interpreter would have
imported by the time the command starts.  No module of ``src/`` reads the environment while
it is imported (``tests/hermes_core/test_cli_launcher.py`` checks that), so a child that gets
its environment after the imports behaves as a process started with it.  The asker
(``support.cli``) starts the interpreter itself instead for what a fork cannot give: an
interpreter option in the environment (``PYTHON…`` other than ``PYTHONPATH``).

Protocol, one connection a run: the asker sends one JSON line ``{"argv", "env", "cwd"}`` with
three file descriptors (``SCM_RIGHTS``); the launcher answers ``pid N`` once forked and
``exit N`` once the child has ended.  It ends when its stdin (a pipe from the worker) closes.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import io
import json
import os
import selectors
import signal
import socket
import sys
import threading
import traceback
from typing import BinaryIO, cast

# What the command line of Hermes imports before a command runs (the SDK with it).
import mcp
import mcp.client.session  # noqa: F401

import hermes_core.cli
import hermes_core.cli.hosting
import hermes_core.cli.loading
import hermes_core.host.setup.factory

#: The interpreter's own ``sys.path`` after the script's directory (the stdlib, site-packages
#: and what their ``.pth`` files add): a child puts its directory and ``PYTHONPATH`` before it.
BASE_PATH = [entry for entry in sys.path[1:] if entry]
MAIN = os.path.normpath(
    os.path.join(os.path.dirname(hermes_core.cli.__file__), os.pardir, "__main__.py")
)
MAX_REQUEST = 64 << 20


def _writer(fd: int, unbuffered: bool) -> BinaryIO:
    """The binary layer under a standard stream: the file itself when unbuffered."""
    raw = io.FileIO(fd, "w", closefd=False)
    return cast(BinaryIO, raw if unbuffered else io.BufferedWriter(raw))


def _streams(unbuffered: bool) -> None:
    """``sys.stdin``/``stdout``/``stderr`` anew on fds 0/1/2, as the interpreter opens them on
    pipes: UTF-8 (this suite's locale), stdout block-buffered, stderr line-buffered; both
    unbuffered with ``PYTHONUNBUFFERED``."""
    stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), "utf-8")
    stdout = io.TextIOWrapper(
        _writer(1, unbuffered),
        "utf-8",
        write_through=unbuffered,
    )
    stderr = io.TextIOWrapper(
        _writer(2, unbuffered),
        "utf-8",
        errors="backslashreplace",
        line_buffering=True,
        write_through=unbuffered,
    )
    for name, stream in (("stdin", stdin), ("stdout", stdout), ("stderr", stderr)):
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _exit_code(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _child(request: dict[str, object], fds: list[int]) -> None:
    """Become ``python -m hermes_core ARGV`` (never returns)."""
    code = 1
    killed_by: int | None = None
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        signal.set_wakeup_fd(-1)
        for number in (signal.SIGTERM, signal.SIGCHLD, signal.SIGHUP, signal.SIGQUIT):
            signal.signal(number, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as the interpreter sets it
        env = request["env"]
        cwd = request["cwd"]
        argv = request["argv"]
        assert isinstance(env, dict) and isinstance(cwd, str) and isinstance(argv, list)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        extra = [entry for entry in env.get("PYTHONPATH", "").split(os.pathsep) if entry]
        sys.path[:] = [os.getcwd(), *(os.path.abspath(entry) for entry in extra), *BASE_PATH]
        sys.argv = [os.path.abspath(MAIN), *argv]
        _streams(bool(env.get("PYTHONUNBUFFERED")))
        try:
            from hermes_core.cli import main

            code = main(argv) & 0xFF
        except SystemExit as exc:
            code = _exit_code(exc)
        except KeyboardInterrupt:
            traceback.print_exc()
            killed_by = signal.SIGINT
        except BaseException:
            traceback.print_exc()
            code = 1
        threading._shutdown()  # type: ignore[attr-defined]  # (what interpreter exit does)
        atexit._run_exitfuncs()
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            code = 120  # (the interpreter's status when its last flush fails)
        sys.stderr.flush()
    except BaseException:
        traceback.print_exc()
    finally:
        if killed_by is not None:
            signal.signal(killed_by, signal.SIG_DFL)
            os.kill(os.getpid(), killed_by)
        os._exit(code)


def _status(raw: int) -> int:
    if os.WIFSIGNALED(raw):
        return -os.WTERMSIG(raw)
    return os.WEXITSTATUS(raw)


def serve(path: str) -> None:
    """Answer runs on the Unix socket at *path* until stdin closes."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(wake_read, selectors.EVENT_READ, "child")
    selector.register(sys.stdin, selectors.EVENT_READ, "stdin")
    waiting: dict[int, socket.socket] = {}
    gc.freeze()  # what is imported stays put: children share its pages
    print("ready", flush=True)
    while True:
        for key, _ in selector.select():
            if key.data == "stdin":
                if not os.read(sys.stdin.fileno(), 1024):
                    return
            elif key.data == "child":
                os.read(wake_read, 4096)
                _reap(waiting)
            else:
                connection, _ = listener.accept()
                _start(connection, listener, waiting)


def _start(
    connection: socket.socket, listener: socket.socket, waiting: dict[int, socket.socket]
) -> None:
    fds: list[int] = []
    try:
        data, fds, _, _ = socket.recv_fds(connection, 64, 3)
        head, _, body = data.partition(b"\n")
        size = int(head)
        if len(fds) != 3 or not 0 < size <= MAX_REQUEST:
            raise ValueError("not a request")
        connection.settimeout(30)
        while len(body) < size:
            chunk = connection.recv(size - len(body))
            if not chunk:
                raise ValueError("the request ended early")
            body += chunk
        request = json.loads(body)
    except (OSError, ValueError):
        for fd in fds:
            os.close(fd)
        connection.close()
        return
    connection.settimeout(None)
    pid = os.fork()
    if pid == 0:
        listener.close()
        connection.close()
        for other in waiting.values():
            other.close()
        _child(request, fds)
    for fd in fds:
        os.close(fd)
    with contextlib.suppress(OSError):
        connection.sendall(f"pid {pid}\n".encode())
    waiting[pid] = connection


def _reap(waiting: dict[int, socket.socket]) -> None:
    while True:
        try:
            pid, raw = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        connection = waiting.pop(pid, None)
        if connection is not None:
            with contextlib.suppress(OSError):
                connection.sendall(f"exit {_status(raw)}\n".encode())
            connection.close()


if __name__ == "__main__":
    serve(sys.argv[1])
