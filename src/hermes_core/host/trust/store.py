"""``$HERMES_HOME/trust.db``: the pinned tool definitions, the changes waiting for the user's
acceptance and the remembered decisions (one SQLite file, 0600, WAL; see docs/trust.md).

Any number of processes may use it at once: each write is one short transaction, a pin is
inserted only where none is (the first listing anywhere wins, later ones are compared to it).
A file that is not ours, unreadable or damaged is an error (:class:`TrustStoreError`): the
host then offers no tool of a pinned server (it fails closed) and says why.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import threading
import time
import urllib.parse
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from hermes_core.host.change_feed import ChangeFeed
from hermes_core.host.trust.decisions import Decision
from hermes_core.host.trust.definitions import (
    SHOWN_DIGEST,
    DigestedTool,
    Stored,
    stored_definition,
    stored_form,
)
from hermes_core.host.trust.identity import name_key

__all__ = ["Acceptance", "Pin", "TrustStore", "TrustStoreError"]

#: 2: the size of each kept definition (a definition too large to keep is shown by its size).
VERSION = 2
#: How long a writer waits for another process's transaction.
BUSY_SECONDS = 10.0
#: Changes kept waiting per server at most (a listing of more changed tools keeps the first).
MAX_CHANGES_PER_SERVER = 1000
#: How often (seconds) a host tries again to open a file it could not open.
CHECK_EVERY = 1.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS servers (
    server TEXT PRIMARY KEY, identity TEXT NOT NULL, first_seen REAL NOT NULL);
CREATE TABLE IF NOT EXISTS pins (
    server TEXT NOT NULL, tool TEXT NOT NULL, digest TEXT NOT NULL, definition TEXT,
    pinned_at REAL NOT NULL, size INTEGER, PRIMARY KEY (server, tool));
CREATE TABLE IF NOT EXISTS changes (
    server TEXT NOT NULL, tool TEXT NOT NULL, digest TEXT NOT NULL, definition TEXT,
    seen_at REAL NOT NULL, size INTEGER, PRIMARY KEY (server, tool));
CREATE TABLE IF NOT EXISTS decisions (
    server TEXT NOT NULL, tool TEXT NOT NULL,
    decision TEXT NOT NULL CHECK (decision IN ('ask', 'always', 'never')),
    set_at REAL NOT NULL, PRIMARY KEY (server, tool));
"""
#: From version 1: the sizes (a definition kept whole has its length; one not kept, unknown).
_TO_2 = """
ALTER TABLE pins ADD COLUMN size INTEGER;
ALTER TABLE changes ADD COLUMN size INTEGER;
UPDATE pins SET size = length(CAST(definition AS BLOB)) WHERE definition IS NOT NULL;
UPDATE changes SET size = length(CAST(definition AS BLOB)) WHERE definition IS NOT NULL;
"""


class TrustStoreError(Exception):
    """trust.db cannot be used (named with its path and what is wrong)."""


class Acceptance(StrEnum):
    """What became of accepting a changed definition (:meth:`TrustStore.accept`)."""

    ACCEPTED = "accepted"
    CHANGED_AGAIN = "changed_again"
    """The definition waiting is not the one shown (its digest differs): review it again."""
    NOT_WAITING = "not_waiting"


@dataclass(frozen=True)
class Pin:
    """A pinned (or a changed, waiting) definition of one tool."""

    tool: str
    digest: str
    definition: Mapping[str, object] | None
    """The definition itself (``None``: too large, kept as its digest alone)."""
    at: float
    size: int | None = None
    """The canonical definition's size in bytes (``None``: unknown, an old row)."""

    @property
    def stored(self) -> Stored:
        return Stored(self.definition, self.size)


class TrustStore:
    """The trust state of one Hermes home (thread-safe: one connection per thread)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._checked = 0.0

    @classmethod
    def at_home(cls, home: Path) -> TrustStore:
        return cls(home / "trust.db")

    # -- the file -----------------------------------------------------------------------
    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._open()
            try:
                # What changed() compares with: everything read from here on is current.
                version = connection.execute("PRAGMA data_version").fetchone()[0]
            except sqlite3.Error as exc:
                connection.close()
                raise TrustStoreError(f"{self.path}: {exc}") from None
            self._local.connection = connection
            self._local.version = version
        return connection

    def _open(self) -> sqlite3.Connection:
        where = str(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _prepare(self.path)
        except OSError as exc:
            raise TrustStoreError(f"{where}: cannot be opened: {exc.strerror or exc}") from None
        try:
            # nofollow: a symbolic link put there since the look is refused by SQLite itself.
            uri = f"file:{urllib.parse.quote(where)}?nofollow=1"
            connection = sqlite3.connect(uri, timeout=BUSY_SECONDS, isolation_level=None, uri=True)
            connection.execute("PRAGMA journal_mode=WAL")
            # WAL with NORMAL: never corrupt; a power cut may lose the last pin, re-pinned.
            connection.execute("PRAGMA synchronous=NORMAL")
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            if version > VERSION:
                raise TrustStoreError(f"{where}: written by a newer Hermes (version {version})")
            if version < VERSION:
                _upgrade(connection, where)
        except sqlite3.Error as exc:
            raise TrustStoreError(f"{where}: {exc}") from None
        return connection

    def _query(self, sql: str, args: Iterable[object] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._connection().execute(sql, tuple(args)).fetchall()
        except sqlite3.Error as exc:
            raise TrustStoreError(f"{self.path}: {exc}") from None

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        connection = self._connection()
        try:
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
        except sqlite3.Error as exc:
            raise TrustStoreError(f"{self.path}: {exc}") from None

    def changed(self) -> bool:
        """Whether another connection (another process, or another thread of this one)
        committed to the file since this thread's last look: SQLite's ``data_version``, one
        cheap query, so a host can look before every call.  The first look compares with the
        version seen when this thread opened the file (what it read since is current).  While
        the file cannot be opened, it is tried again at most once per :data:`CHECK_EVERY`,
        and its becoming readable again counts as a change.  From a thread's second look on,
        the query runs only once inotify named the file or its journal
        (:mod:`hermes_core.host.change_feed`)."""
        local = self._local
        feed = getattr(local, "feed", None)
        if feed is not None:
            if not feed.maybe_changed() and not getattr(local, "failed", False):
                return False  # (no event named the file or its journal: one poll, no query)
        elif getattr(local, "looked", False):  # this thread looks often: it follows events
            where = str(self.path)
            local.feed = ChangeFeed([where, f"{where}-wal", f"{where}-journal"])
        else:
            local.looked = True
        if getattr(local, "connection", None) is None:
            now = time.monotonic()
            if getattr(local, "failed", False) and now - self._checked < CHECK_EVERY:
                return False
            self._checked = now
        try:
            version = self._connection().execute("PRAGMA data_version").fetchone()[0]
        except (TrustStoreError, sqlite3.Error):
            local.failed = True
            return False
        before = getattr(local, "version", None)
        local.version = version
        if getattr(local, "failed", False):
            local.failed = False
            return True
        return before is not None and before != version

    def close(self) -> None:
        feed = getattr(self._local, "feed", None)
        if feed is not None:
            feed.close()
            self._local.feed = None
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None

    # -- pins -----------------------------------------------------------------------------
    def identity(self, server: str) -> str | None:
        rows = self._query("SELECT identity FROM servers WHERE server = ?", (server,))
        return rows[0][0] if rows else None

    def pins(self, server: str) -> dict[str, Pin]:
        rows = self._query(
            "SELECT tool, digest, definition, pinned_at, size FROM pins WHERE server = ?",
            (server,),
        )
        return {
            row[0]: Pin(row[0], row[1], stored_definition(row[2]), row[3], row[4]) for row in rows
        }

    def digests(self, server: str) -> dict[str, str]:
        """Tool -> its pinned digest (no definitions read: what a listing is checked with)."""
        rows = self._query("SELECT tool, digest FROM pins WHERE server = ?", (server,))
        return {row[0]: row[1] for row in rows}

    def pin(self, server: str, identity: str, tools: Iterable[DigestedTool]) -> None:
        """Pin each (tool, digest, listed tool) whose name the agent sees is not pinned yet
        (another process may have pinned it meanwhile, perhaps as another tool: that one stays);
        a server pinned for another *identity* (its config points elsewhere now) starts afresh."""
        now = time.time()
        with self._write() as db:
            row = db.execute("SELECT identity FROM servers WHERE server = ?", (server,)).fetchone()
            if row is not None and row[0] != identity:
                self._forget(db, server)
                row = None
            if row is None:
                db.execute("INSERT INTO servers VALUES (?, ?, ?)", (server, identity, now))
            taken = {
                name_key(name)
                for (name,) in db.execute("SELECT tool FROM pins WHERE server = ?", (server,))
            }
            rows = []
            for tool, digest, listed in tools:
                if name_key(tool) in taken:
                    continue
                text, size = stored_form(listed)
                rows.append((server, tool, digest, text, now, size))
            db.executemany("INSERT OR IGNORE INTO pins VALUES (?, ?, ?, ?, ?, ?)", rows)

    def record_changes(self, server: str, tools: Iterable[DigestedTool]) -> None:
        """Keep each (tool, digest, listed tool) that differs from its pin, for
        ``hermes mcp trust`` to show and accept."""
        now = time.time()
        with self._write() as db:
            count = db.execute("SELECT count(*) FROM changes WHERE server = ?", (server,))
            room = MAX_CHANGES_PER_SERVER - count.fetchone()[0]
            for tool, digest, listed in tools:
                known = db.execute(
                    "SELECT digest FROM changes WHERE server = ? AND tool = ?", (server, tool)
                ).fetchone()
                if known is not None and known[0] == digest:
                    continue
                if known is None:
                    if room <= 0:
                        continue
                    room -= 1
                text, size = stored_form(listed)
                db.execute(
                    "INSERT OR REPLACE INTO changes VALUES (?, ?, ?, ?, ?, ?)",
                    (server, tool, digest, text, now, size),
                )

    def clear_changes(self, server: str, tools: Iterable[str]) -> None:
        names = list(tools)
        if names:
            with self._write() as db:
                db.executemany(
                    "DELETE FROM changes WHERE server = ? AND tool = ?",
                    [(server, tool) for tool in names],
                )

    def changes(self, server: str | None = None) -> dict[str, dict[str, Pin]]:
        """Server -> tool -> the changed definition waiting (one server's, or all)."""
        sql = "SELECT server, tool, digest, definition, seen_at, size FROM changes"
        rows = self._query(sql + " WHERE server = ?", (server,)) if server else self._query(sql)
        found: dict[str, dict[str, Pin]] = {}
        for name, tool, digest, definition, at, size in sorted(rows):
            found.setdefault(name, {})[tool] = Pin(
                tool, digest, stored_definition(definition), at, size
            )
        return found

    def waiting(self, server: str) -> set[str]:
        """The tools of *server* with a change waiting (names only)."""
        return {
            row[0] for row in self._query("SELECT tool FROM changes WHERE server = ?", (server,))
        }

    def accept(self, server: str, tool: str, digest: str) -> Acceptance:
        """Make the waiting definition of *tool* its pin — only when it is the one shown:
        *digest* is that definition's digest (or its first :data:`SHOWN_DIGEST` or more hex
        digits); another one waiting (the server changed it again meanwhile) is not accepted.

        The tool then holds the name the agent sees: a pinned tool of another name that maps
        to the same one (``read_file`` for an accepted ``read-file``) loses its pin."""
        digest = digest.strip().lower()
        if len(digest) < SHOWN_DIGEST or any(c not in "0123456789abcdef" for c in digest):
            raise ValueError(
                f"a digest is at least {SHOWN_DIGEST} hex digits (as shown), not {digest!r}"
            )
        with self._write() as db:
            row = db.execute(
                "SELECT digest, definition, size FROM changes WHERE server = ? AND tool = ?",
                (server, tool),
            ).fetchone()
            if row is None:
                return Acceptance.NOT_WAITING
            if not row[0].startswith(digest):
                return Acceptance.CHANGED_AGAIN
            key = name_key(tool)
            others = [
                (server, name)
                for (name,) in db.execute("SELECT tool FROM pins WHERE server = ?", (server,))
                if name != tool and name_key(name) == key
            ]
            db.executemany("DELETE FROM pins WHERE server = ? AND tool = ?", others)
            db.execute(
                "INSERT OR REPLACE INTO pins VALUES (?, ?, ?, ?, ?, ?)",
                (server, tool, row[0], row[1], time.time(), row[2]),
            )
            db.execute("DELETE FROM changes WHERE server = ? AND tool = ?", (server, tool))
        return Acceptance.ACCEPTED

    def forget(self, server: str) -> None:
        """Drop *server*'s pins and waiting changes (its next listing is pinned afresh)."""
        with self._write() as db:
            self._forget(db, server)

    @staticmethod
    def _forget(db: sqlite3.Connection, server: str) -> None:
        for table in ("servers", "pins", "changes"):
            db.execute(f"DELETE FROM {table} WHERE server = ?", (server,))

    # -- decisions ----------------------------------------------------------------------
    def decisions(self, server: str | None = None) -> dict[str, dict[str, Decision]]:
        """Server -> tool -> the remembered decision (one server's, or all)."""
        sql = "SELECT server, tool, decision FROM decisions"
        rows = self._query(sql + " WHERE server = ?", (server,)) if server else self._query(sql)
        found: dict[str, dict[str, Decision]] = {}
        for name, tool, decision in sorted(rows):
            found.setdefault(name, {})[tool] = Decision(decision)
        return found

    def decide(self, server: str, tool: str, decision: Decision) -> None:
        """Remember *decision* for the tool the agent sees as *tool*: it replaces a decision
        for another spelling of that name (``read-file`` for ``read_file``)."""
        with self._write() as db:
            self._undecide(db, server, tool)
            db.execute(
                "INSERT OR REPLACE INTO decisions VALUES (?, ?, ?, ?)",
                (server, tool, decision.value, time.time()),
            )

    def reset(self, server: str, tool: str | None = None) -> int:
        """Forget the decisions of *server* (or of its *tool*); how many were forgotten."""
        with self._write() as db:
            if tool is None:
                return db.execute("DELETE FROM decisions WHERE server = ?", (server,)).rowcount
            return self._undecide(db, server, tool)

    @staticmethod
    def _undecide(db: sqlite3.Connection, server: str, tool: str) -> int:
        """Forget the decisions for the name the agent sees as *tool*; how many."""
        key = name_key(tool)
        rows = db.execute("SELECT tool FROM decisions WHERE server = ?", (server,))
        same = [(server, name) for (name,) in rows if name_key(name) == key]
        db.executemany("DELETE FROM decisions WHERE server = ? AND tool = ?", same)
        return len(same)


def _prepare(path: Path) -> None:
    """Create trust.db (0600) when it is missing; refuse a link or a special file; tighten a
    looser mode.  The file is looked at, never opened, once it exists: closing a descriptor of
    it would drop this process's SQLite locks on it (POSIX locks are per process), and another
    process could then take our open database for unused and remove its write-ahead log."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        with contextlib.suppress(FileExistsError):  # another process made it: looked at below
            os.close(os.open(path, flags, 0o600))
        info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise TrustStoreError(f"{path}: a symbolic link, not a regular file")
    if not stat.S_ISREG(info.st_mode):
        raise TrustStoreError(f"{path}: not a regular file")
    if info.st_mode & 0o077:
        os.chmod(path, 0o600)  # it holds what the user trusts: theirs alone


def _upgrade(connection: sqlite3.Connection, where: str) -> None:
    """Create the tables (a new file) or bring an older file to :data:`VERSION`, in one
    transaction (another process may be doing the same: the version is read again in it)."""
    with _transaction(connection):
        connection.execute("BEGIN IMMEDIATE")
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:
            tables = connection.execute(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
            ).fetchone()[0]
            if tables:
                raise TrustStoreError(f"{where}: not a Hermes trust file (no version)")
            script = _SCHEMA
        else:
            script = _TO_2 if version == 1 else ""
        for statement in filter(str.strip, script.split(";")):
            connection.execute(statement)
        connection.execute(f"PRAGMA user_version = {VERSION}")
        connection.execute("COMMIT")


@contextlib.contextmanager
def _transaction(connection: sqlite3.Connection) -> Iterator[None]:
    try:
        yield
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
