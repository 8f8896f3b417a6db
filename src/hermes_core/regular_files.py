"""Reading a file Hermes did not write itself: a regular file, opened without blocking.

A FIFO (or a device) at a path Hermes reads would block ``open()`` until a writer comes, for
ever: a command that reads a cache record, a catalog manifest or a message's attachment
froze.  :func:`read_regular` opens with ``O_NONBLOCK`` (a FIFO opens at once), refuses
anything that is not a regular file, and reads at most ``max_bytes + 1`` bytes (the caller
tells a file over its bound by the length).  Standard library only: the CLI's start-up path
reads records through it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["NotRegularFileError", "read_regular"]


class NotRegularFileError(OSError):
    """The path is a FIFO, a device, a socket or a folder, not a regular file."""

    def __init__(self, path: Path) -> None:
        super().__init__(errno.EINVAL, "not a regular file", str(path))


def read_regular(path: Path, max_bytes: int, *, follow_links: bool = True) -> bytes:
    """At most ``max_bytes + 1`` bytes of the regular file *path*.  ``OSError`` when it cannot
    be opened (a symbolic link too, without *follow_links*), ``NotRegularFileError`` when
    it is no regular file; never blocks on a FIFO."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_BINARY", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFileError(path)
        return fh.read(max_bytes + 1)
