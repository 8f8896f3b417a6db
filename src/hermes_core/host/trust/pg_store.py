"""The trust state on PostgreSQL (``state:`` in ``config.yaml``): pinned definitions, changes
waiting and remembered decisions shared by every process that uses the same database.

:class:`PgTrustStore` has the methods of :class:`~hermes_core.host.trust.store.TrustStore`
(the :class:`~hermes_core.host.trust.state.TrustState` protocol) with the same meaning; what
differs is underneath:

* every write is one transaction that first bumps the ``trust`` row of ``revisions`` — that
  row lock serialises the writers as SQLite's ``BEGIN IMMEDIATE`` does, and the counter is
  what :meth:`PgTrustStore.changed` compares (one indexed read before each call);
* a database that cannot be reached is a :class:`TrustStoreError`, so a host fails closed
  exactly as with an unreadable ``trust.db``: :meth:`changed` reports the moment it became
  unreachable as a change, the host screens again, every tool of a server the trust state
  governs is held back, and the tools come back when :meth:`changed` sees the database again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeVar

from hermes_core.host.trust.decisions import Decision
from hermes_core.host.trust.definitions import (
    SHOWN_DIGEST,
    DigestedTool,
    stored_definition,
    stored_form,
)
from hermes_core.host.trust.identity import name_key
from hermes_core.host.trust.store import (
    MAX_CHANGES_PER_SERVER,
    Acceptance,
    Pin,
    TrustStoreError,
)
from hermes_core.pgstate import Database, StateUnavailable

if TYPE_CHECKING:
    from collections.abc import Callable

    import psycopg
    from psycopg.rows import TupleRow

    from hermes_core.host.fleet.follow import ChangeFollower

__all__ = ["PgTrustStore"]

T = TypeVar("T")


class PgTrustStore:
    """The trust state in the state database *db*."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._local = threading.local()
        self.on_write: list[Callable[[], None]] = []
        """Called after each write (a fleet announces the change on its bus)."""
        self.follower: ChangeFollower | None = None
        """In a fleet replica: the notices say whether the state changed (no read per call)."""

    def __repr__(self) -> str:
        return f"PgTrustStore({self.db.shown!r})"

    @property
    def where(self) -> str:
        """What holds the trust state, as it may be shown."""
        return self.db.shown

    # -- access ---------------------------------------------------------------------------
    def _read(self, sql: str, args: tuple[object, ...] = ()) -> list[TupleRow]:
        try:
            return self.db.run(lambda conn: conn.execute(sql, args).fetchall())
        except StateUnavailable as exc:
            raise TrustStoreError(str(exc)) from None

    def _write(self, work: Callable[[psycopg.Connection[TupleRow]], T]) -> T:
        def bumped(conn: psycopg.Connection[TupleRow]) -> T:
            conn.execute("UPDATE revisions SET n = n + 1 WHERE name = 'trust'")
            return work(conn)

        try:
            result = self.db.run(bumped, write=True)
        except StateUnavailable as exc:
            raise TrustStoreError(str(exc)) from None
        for announce in self.on_write:
            announce()
        return result

    def changed(self) -> bool:
        """Whether the trust state changed since this thread's last look (a write anywhere,
        or the database becoming unreachable or reachable again)."""
        if self.follower is not None:
            told = self.follower.changed()
            if told is not None:
                return told
        local = self._local
        try:
            rows = self.db.run(
                lambda conn: conn.execute("SELECT n FROM revisions WHERE name = 'trust'").fetchall()
            )
        except StateUnavailable:
            was_down = getattr(local, "down", False)
            local.down = True
            return not was_down
        revision = rows[0][0] if rows else 0
        before = getattr(local, "revision", None)
        local.revision = revision
        if getattr(local, "down", False):
            local.down = False
            return True
        return before is not None and before != revision

    def close(self) -> None:
        """Nothing of its own to close (the database's connections are the process's)."""

    # -- pins -----------------------------------------------------------------------------
    def identity(self, server: str) -> str | None:
        rows = self._read("SELECT identity FROM trust_servers WHERE server = %s", (server,))
        return rows[0][0] if rows else None

    def pins(self, server: str) -> dict[str, Pin]:
        rows = self._read(
            "SELECT tool, digest, definition, pinned_at, size FROM trust_pins WHERE server = %s",
            (server,),
        )
        return {
            row[0]: Pin(row[0], row[1], stored_definition(row[2]), row[3], row[4]) for row in rows
        }

    def digests(self, server: str) -> dict[str, str]:
        rows = self._read("SELECT tool, digest FROM trust_pins WHERE server = %s", (server,))
        return {row[0]: row[1] for row in rows}

    def pin(self, server: str, identity: str, tools: Iterable[DigestedTool]) -> None:
        """As :meth:`TrustStore.pin`: only names not pinned yet; another identity starts
        afresh."""
        listed = list(tools)
        now = time.time()

        def work(conn: psycopg.Connection[TupleRow]) -> None:
            row = conn.execute(
                "SELECT identity FROM trust_servers WHERE server = %s", (server,)
            ).fetchone()
            if row is not None and row[0] != identity:
                _forget(conn, server)
                row = None
            if row is None:
                conn.execute(
                    "INSERT INTO trust_servers VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                    (server, identity, now),
                )
            taken = {
                name_key(name)
                for (name,) in conn.execute(
                    "SELECT tool FROM trust_pins WHERE server = %s", (server,)
                ).fetchall()
            }
            rows = []
            for tool, digest, definition in listed:
                if name_key(tool) in taken:
                    continue
                text, size = stored_form(definition)
                rows.append((server, tool, digest, text, now, size))
            if rows:
                with conn.cursor() as cursor:
                    cursor.executemany(
                        "INSERT INTO trust_pins VALUES (%s, %s, %s, %s, %s, %s) "
                        "ON CONFLICT DO NOTHING",
                        rows,
                    )

        self._write(work)

    def record_changes(self, server: str, tools: Iterable[DigestedTool]) -> None:
        listed = list(tools)
        now = time.time()

        def work(conn: psycopg.Connection[TupleRow]) -> None:
            known: dict[str, str] = dict(
                conn.execute(
                    "SELECT tool, digest FROM trust_changes WHERE server = %s", (server,)
                ).fetchall()
            )
            room = MAX_CHANGES_PER_SERVER - len(known)
            for tool, digest, definition in listed:
                if known.get(tool) == digest:
                    continue
                if tool not in known:
                    if room <= 0:
                        continue
                    room -= 1
                text, size = stored_form(definition)
                conn.execute(
                    "INSERT INTO trust_changes VALUES (%s, %s, %s, %s, %s, %s) "
                    "ON CONFLICT (server, tool) DO UPDATE SET digest = EXCLUDED.digest, "
                    "definition = EXCLUDED.definition, seen_at = EXCLUDED.seen_at, "
                    "size = EXCLUDED.size",
                    (server, tool, digest, text, now, size),
                )
                known[tool] = digest

        if listed:
            self._write(work)

    def clear_changes(self, server: str, tools: Iterable[str]) -> None:
        names = list(tools)
        if names:
            self._write(
                lambda conn: conn.execute(
                    "DELETE FROM trust_changes WHERE server = %s AND tool = ANY(%s)",
                    (server, names),
                )
            )

    def changes(self, server: str | None = None) -> dict[str, dict[str, Pin]]:
        sql = "SELECT server, tool, digest, definition, seen_at, size FROM trust_changes"
        rows = self._read(sql + " WHERE server = %s", (server,)) if server else self._read(sql)
        found: dict[str, dict[str, Pin]] = {}
        for name, tool, digest, definition, at, size in sorted(rows):
            found.setdefault(name, {})[tool] = Pin(
                tool, digest, stored_definition(definition), at, size
            )
        return found

    def waiting(self, server: str) -> set[str]:
        rows = self._read("SELECT tool FROM trust_changes WHERE server = %s", (server,))
        return {row[0] for row in rows}

    def accept(self, server: str, tool: str, digest: str) -> Acceptance:
        """As :meth:`TrustStore.accept`: exactly the definition shown, or nothing."""
        digest = digest.strip().lower()
        if len(digest) < SHOWN_DIGEST or any(c not in "0123456789abcdef" for c in digest):
            raise ValueError(
                f"a digest is at least {SHOWN_DIGEST} hex digits (as shown), not {digest!r}"
            )

        def work(conn: psycopg.Connection[TupleRow]) -> Acceptance:
            row = conn.execute(
                "SELECT digest, definition, size FROM trust_changes "
                "WHERE server = %s AND tool = %s",
                (server, tool),
            ).fetchone()
            if row is None:
                return Acceptance.NOT_WAITING
            if not row[0].startswith(digest):
                return Acceptance.CHANGED_AGAIN
            key = name_key(tool)
            pinned = conn.execute(
                "SELECT tool FROM trust_pins WHERE server = %s", (server,)
            ).fetchall()
            others = [name for (name,) in pinned if name != tool and name_key(name) == key]
            if others:
                conn.execute(
                    "DELETE FROM trust_pins WHERE server = %s AND tool = ANY(%s)",
                    (server, others),
                )
            conn.execute(
                "INSERT INTO trust_pins VALUES (%s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (server, tool) DO UPDATE SET digest = EXCLUDED.digest, "
                "definition = EXCLUDED.definition, pinned_at = EXCLUDED.pinned_at, "
                "size = EXCLUDED.size",
                (server, tool, row[0], row[1], time.time(), row[2]),
            )
            conn.execute(
                "DELETE FROM trust_changes WHERE server = %s AND tool = %s", (server, tool)
            )
            return Acceptance.ACCEPTED

        return self._write(work)

    def forget(self, server: str) -> None:
        self._write(lambda conn: _forget(conn, server))

    # -- decisions ----------------------------------------------------------------------
    def decisions(self, server: str | None = None) -> dict[str, dict[str, Decision]]:
        sql = "SELECT server, tool, decision FROM trust_decisions"
        rows = self._read(sql + " WHERE server = %s", (server,)) if server else self._read(sql)
        found: dict[str, dict[str, Decision]] = {}
        for name, tool, decision in sorted(rows):
            found.setdefault(name, {})[tool] = Decision(decision)
        return found

    def decide(self, server: str, tool: str, decision: Decision) -> None:
        def work(conn: psycopg.Connection[TupleRow]) -> None:
            _undecide(conn, server, tool)
            conn.execute(
                "INSERT INTO trust_decisions VALUES (%s, %s, %s, %s)",
                (server, tool, decision.value, time.time()),
            )

        self._write(work)

    def reset(self, server: str, tool: str | None = None) -> int:
        def work(conn: psycopg.Connection[TupleRow]) -> int:
            if tool is None:
                done = conn.execute("DELETE FROM trust_decisions WHERE server = %s", (server,))
                return done.rowcount
            return _undecide(conn, server, tool)

        return self._write(work)


def _forget(conn: psycopg.Connection[TupleRow], server: str) -> None:
    for table in ("trust_servers", "trust_pins", "trust_changes"):
        conn.execute(f"DELETE FROM {table} WHERE server = %s", (server,))


def _undecide(conn: psycopg.Connection[TupleRow], server: str, tool: str) -> int:
    key = name_key(tool)
    rows = conn.execute("SELECT tool FROM trust_decisions WHERE server = %s", (server,))
    same = [name for (name,) in rows.fetchall() if name_key(name) == key]
    if same:
        conn.execute(
            "DELETE FROM trust_decisions WHERE server = %s AND tool = ANY(%s)", (server, same)
        )
    return len(same)
