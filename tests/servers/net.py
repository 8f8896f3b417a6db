"""Loopback helpers for tests that start servers: a free port, and waiting for it to listen."""

from __future__ import annotations

import socket
import time


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
