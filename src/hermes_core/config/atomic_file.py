"""Replacing a file safely: a temporary file next to it with the original's mode (and owner),
``fsync``, ``os.replace``; an exclusive advisory lock on ``<file>.lock`` while an edit is
checked and written; folders made private (0700) when they are created."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from hermes_core.config.errors import ConfigError

__all__ = ["LOCK_TIMEOUT", "atomic_write", "ensure_dir", "locked", "mode_of"]

LOCK_TIMEOUT = 10.0


def mode_of(target: Path) -> int:
    """The permission bits *target* has (0600 for a file not made yet)."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        return 0o600  # a new config.yaml may hold secrets


def ensure_dir(directory: Path) -> None:
    """Make *directory* (0700, its parents as usual) unless it exists."""
    if directory.is_dir():
        return
    directory.parent.mkdir(parents=True, exist_ok=True)
    try:
        directory.mkdir(mode=0o700)
    except FileExistsError:
        return
    os.chmod(directory, 0o700)


def atomic_write(target: Path, data: bytes, mode: int) -> None:
    """Write *data* to a temporary file next to *target*, then ``os.replace`` it."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        _keep_owner(target, tmp)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(target.parent)


def _keep_owner(target: Path, tmp: str) -> None:
    if not hasattr(os, "chown"):
        return
    try:
        st = target.stat()
    except FileNotFoundError:
        return
    if (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
        with contextlib.suppress(OSError):
            os.chown(tmp, st.st_uid, st.st_gid)


def _fsync_dir(directory: Path) -> None:
    if sys.platform == "win32":
        return
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def locked(target: Path, label: str) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``<config>.lock`` (waits up to LOCK_TIMEOUT s)."""
    lock_path = target.with_name(target.name + ".lock")
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + LOCK_TIMEOUT
        while not _try_lock(fd):
            if time.monotonic() > deadline:
                raise ConfigError(
                    f"another program holds {lock_path.name}; nothing was written (try again)",
                    path=label,
                )
            time.sleep(0.02)
        try:
            yield
        finally:
            _unlock(fd)
    finally:
        os.close(fd)


if sys.platform == "win32":
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        with contextlib.suppress(OSError):
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
