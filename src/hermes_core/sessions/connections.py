"""The connections to ``state.db``: one per thread, short write transactions, and a probe for
other connections' commits.

Every write is one ``BEGIN IMMEDIATE`` transaction (SQLite serialises writers, waiting up to
:data:`BUSY_TIMEOUT` seconds for the lock); each thread gets its own connection.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

__all__ = ["BUSY_TIMEOUT", "ChangeProbe", "StoreConnections"]

BUSY_TIMEOUT = 30.0


class StoreConnections:
    """The SQLite file at *path* (created mode 0600 when missing) and this process's
    connections to it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._guard = threading.Lock()
        self._create()

    def _create(self) -> None:
        """The file, mode 0600 (and its folder, mode 0700), when missing."""
        if self.path.exists():
            return
        if not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, mode=0o700, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))

    def connect(self) -> sqlite3.Connection:
        """A new connection of its own (autocommit; the caller closes it)."""
        conn = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
        )
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    @contextlib.contextmanager
    def current(self) -> Iterator[sqlite3.Connection]:
        """This thread's connection (opened on first use, kept until :meth:`close`)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self.connect()
            self._local.conn = conn
            with self._guard:
                self._all.append(conn)
        yield conn

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """This thread's connection inside one ``BEGIN IMMEDIATE`` transaction."""
        with self.current() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def close(self) -> None:
        """Close every connection this store opened (in any thread)."""
        with self._guard:
            conns, self._all = self._all, []
        for conn in conns:
            with contextlib.suppress(sqlite3.Error):
                conn.close()
        self._local = threading.local()


class ChangeProbe:
    """``PRAGMA data_version`` on a connection of its own: it changes exactly when another
    connection (in this process or another) commits, and costs no table read."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._seen = self._version()

    def _version(self) -> int:
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def changed(self) -> bool:
        now = self._version()
        if now == self._seen:
            return False
        self._seen = now
        return True

    def close(self) -> None:
        self._conn.close()
