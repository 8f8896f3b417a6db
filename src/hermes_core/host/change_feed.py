"""Whether any of a few files may have changed since the last look, in one system call.

Every tool call first looks whether the config, ``.env``, the policy files or ``trust.db``
changed (an edit binds the next call, in every door).  Looking means a ``stat`` per file and
a query on ``trust.db``: about a tenth of what the proxy spends on a call.  A
:class:`ChangeFeed` makes the usual answer ("nothing changed") cost one ``poll``: on Linux it
watches the files' directories with inotify, and :meth:`ChangeFeed.maybe_changed` is true only
once an event named one of the files (written, replaced, created, removed, its mode changed)
since the last look; the caller then does its exact check.  The kernel queues the event
before the writing process's call returns, so an edit finished before a request was sent is
seen by that request, as with a ``stat``.

It answers "maybe" (the caller checks as before) on its first look, wherever inotify is not
available (another system, no free inotify instance, a directory that does not exist), after
the kernel's queue overflowed (that look only), and for good once a watched directory is
removed or moved.  A file reached through a symbolic link is watched in the link's directory
and in its target's, and a symbolic link among the folders on its way in the link's parent
(pointed elsewhere, it names another file).  Network file systems do not report other
machines' writes to inotify: there, as with ``stat`` and its attribute cache, a change made
elsewhere is seen late.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import struct
import sys
from collections.abc import Iterable

__all__ = ["ChangeFeed"]

_IN_MODIFY = 0x002
_IN_ATTRIB = 0x004
_IN_CLOSE_WRITE = 0x008
_IN_MOVED_FROM = 0x040
_IN_MOVED_TO = 0x080
_IN_CREATE = 0x100
_IN_DELETE = 0x200
_IN_DELETE_SELF = 0x400
_IN_MOVE_SELF = 0x800
_IN_Q_OVERFLOW = 0x4000
_IN_IGNORED = 0x8000
_IN_ONLYDIR = 0x01000000
_IN_NONBLOCK = os.O_NONBLOCK
_IN_CLOEXEC = 0o2000000
_MASK = (
    _IN_MODIFY
    | _IN_ATTRIB
    | _IN_CLOSE_WRITE
    | _IN_MOVED_FROM
    | _IN_MOVED_TO
    | _IN_CREATE
    | _IN_DELETE
    | _IN_DELETE_SELF
    | _IN_MOVE_SELF
    | _IN_ONLYDIR
)
#: The watched directory itself went away: its files can no longer be followed.
_GONE = _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_IGNORED
_EVENT = struct.Struct("iIII")
#: Attempts to watch a folder that keeps appearing and going before the feed gives up.
_MAX_TRIES = 64
#: How much one read takes of the queue, and how many reads one look makes at most (a queue
#: that keeps filling faster is answered "maybe": the exact check runs, the rest is read later).
_READ_BYTES = 64 * 1024
_MAX_READS = 16


def _links_on_the_way(path: str) -> list[str]:
    """*path* and every symbolic link among the folders on its way (a link pointed elsewhere
    changes what *path* names without touching the file)."""
    found, place = [path], os.path.dirname(path)
    while True:
        if os.path.islink(place):
            found.append(place)
        parent = os.path.dirname(place)
        if parent == place:
            return found
        place = parent


def _errno() -> int:
    import ctypes

    return ctypes.get_errno()


def _inotify_init() -> tuple[int, object] | None:
    """An inotify descriptor and the C library that made it (``None``: not available)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # (only where the host runs calls long enough to ask twice)

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fd = int(libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC))
    except (OSError, AttributeError):
        return None
    return (fd, libc) if fd >= 0 else None


class ChangeFeed:
    """inotify on *paths*' directories (see the module's docstring)."""

    def __init__(self, paths: Iterable[str | os.PathLike[str]]) -> None:
        self._fd: int | None = None
        self._libc: object = None
        self._poll: select.poll | None = None
        # watch descriptor -> name in its directory -> the folders to watch anew once that
        # name appears (empty: the name is a watched file)
        self._names: dict[int, dict[bytes, tuple[str, ...]]] = {}
        self._first = True
        self._wanted: dict[str, set[bytes]] = {}
        for path in paths:
            for place in {*_links_on_the_way(os.path.abspath(path)), os.path.realpath(path)}:
                folder, name = os.path.split(place)
                self._wanted.setdefault(folder, set()).add(os.fsencode(name))
        made = _inotify_init()
        if made is None:
            return
        self._fd, self._libc = made
        try:
            for folder in self._wanted:
                self._arm(folder)
        except OSError:
            self.close()
            return
        self._poll = select.poll()
        self._poll.register(self._fd, select.POLLIN)

    def _arm(self, folder: str) -> None:
        """Watch *folder* for its files; while it does not exist, its nearest existing
        ancestor for the next folder on the way (watched in turn once it appears)."""
        place, below = folder, ""
        for _ in range(_MAX_TRIES):
            wd = int(self._libc.inotify_add_watch(self._fd, os.fsencode(place), _MASK))  # type: ignore[attr-defined]
            if wd >= 0:
                names = self._names.setdefault(wd, {})
                if not below:
                    names.update(dict.fromkeys(self._wanted[folder], ()))
                    return
                name = os.fsencode(os.path.basename(below))
                names[name] = (*names.get(name, ()), folder)
                if not os.path.isdir(below):
                    return
                place, below = folder, ""  # it appeared meanwhile: start again from the top
                continue
            parent = os.path.dirname(place)
            if parent == place or _errno() not in (errno.ENOENT, errno.ENOTDIR):
                raise OSError(f"cannot watch {place}")
            place, below = parent, place
        raise OSError(f"{folder} keeps appearing and going")

    @property
    def watching(self) -> bool:
        """Whether the feed follows the files (``False``: every look answers "maybe")."""
        return self._fd is not None

    def maybe_changed(self) -> bool:
        """Whether one of the files may have changed since the last look."""
        if self._first:
            self._first = False
            self._drain()
            return True
        poll = self._poll
        if poll is None:
            return True
        if not poll.poll(0):
            return False
        return self._drain()

    def _drain(self) -> bool:
        """Read what is queued; whether an event named a watched file (or was lost)."""
        fd = self._fd
        if fd is None:
            return True
        changed = False
        for _ in range(_MAX_READS):
            try:
                data = os.read(fd, _READ_BYTES)
            except BlockingIOError:
                return changed
            except OSError:
                self.close()
                return True
            offset = 0
            while offset + _EVENT.size <= len(data):
                wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
                start = offset + _EVENT.size
                offset = start + length
                if mask & _IN_Q_OVERFLOW:
                    changed = True
                elif mask & _GONE:
                    self.close()  # the directory is gone: from now on, always "maybe"
                    return True
                else:
                    appeared = self._names.get(wd, {}).get(data[start:offset].rstrip(b"\0"))
                    if appeared is not None:
                        changed = True
                        for folder in appeared:  # a folder on the way was made: go deeper
                            try:
                                self._arm(folder)
                            except OSError:
                                self.close()
                                return True
        return True

    def close(self) -> None:
        fd, self._fd, self._poll = self._fd, None, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # (at interpreter exit, os may be gone)
            self.close()
