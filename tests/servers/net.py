"""Loopback helpers for tests that start servers: a free port, waiting for it to listen, and an
HTTP server process run for the length of a ``with`` block."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Protocol

PORT = "{port}"
"""In :func:`http_server`'s argv: where the port number goes."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, seconds: float = 30.0) -> None:
    """Return once 127.0.0.1:*port* accepts connections; ``RuntimeError`` after *seconds*."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {seconds:g} s")


class Stoppable(Protocol):
    """What :func:`stop` needs of a process (a ``Popen``, or one the suite's launcher forked)."""

    def terminate(self) -> None: ...
    def kill(self) -> None: ...
    def wait(self, timeout: float | None = None) -> int: ...


def stop(process: Stoppable) -> None:
    """End *process*: terminate, then kill what is still there after 10 s."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


@contextlib.contextmanager
def http_server(
    argv: Sequence[str], *, env: Mapping[str, str] | None = None, path: str = "/mcp"
) -> Iterator[str]:
    """Run an HTTP server on a free port of 127.0.0.1 and yield its URL; stopped on exit.

    Each ``PORT`` item of *argv* is replaced by the port number."""
    port = free_port()
    command = [str(port) if arg == PORT else arg for arg in argv]
    process = subprocess.Popen(
        command,
        env=dict(os.environ if env is None else env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        stop(process)
