"""A Unix socket at a path of any length.

``sun_path`` holds about 100 bytes (108 on Linux, 104 on macOS and the BSDs), so the socket
of a ``HERMES_HOME`` with a long path cannot be bound or reached by its own name.  Such a
path is used through a short one: a fresh private directory (:func:`tempfile.mkdtemp`, mode
0700, under ``/tmp``) holding one symbolic link to the socket's directory.  The kernel follows
the link, so the socket itself is created in (or reached in) its real directory; the link is
removed as soon as the ``bind`` or ``connect`` returns.  A path that fits is used as it is.
"""

from __future__ import annotations

import contextlib
import os
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__ = ["MAX_SOCKET_PATH", "bind_unix", "connect_unix", "socket_address"]

#: The longest socket path used by its own name (bytes), with room below every system's limit.
MAX_SOCKET_PATH = 100


@contextlib.contextmanager
def socket_address(path: Path) -> Iterator[str]:
    """An address for the socket at *path* that fits ``sun_path``, valid inside the block."""
    if len(os.fsencode(path)) <= MAX_SOCKET_PATH:
        yield str(path)
        return
    base = "/tmp" if os.path.isdir("/tmp") else None  # short: $TMPDIR may itself be long
    with tempfile.TemporaryDirectory(prefix="hermes-", dir=base) as short:
        link = os.path.join(short, "d")
        os.symlink(path.parent, link)
        yield os.path.join(link, path.name)


def connect_unix(path: Path, timeout: float | None) -> socket.socket:
    """A stream socket connected to *path* (blocking, with *timeout* on every operation)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        with socket_address(path) as address:
            sock.connect(address)
    except BaseException:
        sock.close()
        raise
    return sock


def bind_unix(path: Path) -> socket.socket:
    """A stream socket bound at *path* (created with the process's umask), not yet listening."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with socket_address(path) as address:
            sock.bind(address)
    except BaseException:
        sock.close()
        raise
    return sock
