"""The versioned schema of ``$HERMES_HOME/state.db`` and the migrations between versions.

The version lives in SQLite's ``PRAGMA user_version``.  A database at version *n* is brought
to :data:`SCHEMA_VERSION` by running the steps ``n+1 … SCHEMA_VERSION`` in one write
transaction, so a crash half-way leaves it at *n*.  A database written by a newer Hermes
(version above ours) is refused, never "downgraded".  ``docs/state-db.md`` describes every
table; keep the two in step.
"""

from __future__ import annotations

import sqlite3

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "SchemaError", "migrate", "schema_version"]


class SchemaError(RuntimeError):
    """The database cannot be used by this version of Hermes (the message says why)."""


# Version 1: the first layout (conversations and their messages).
_V1 = """
CREATE TABLE conversations (
    id          INTEGER PRIMARY KEY,
    session_key TEXT NOT NULL UNIQUE,
    platform    TEXT NOT NULL DEFAULT '',
    chat_id     TEXT NOT NULL DEFAULT '',
    title       TEXT NOT NULL DEFAULT '',
    updated_at  REAL NOT NULL
);
CREATE TABLE messages (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    role            TEXT NOT NULL,
    text            TEXT NOT NULL DEFAULT '',
    created_at      REAL NOT NULL
);
CREATE INDEX messages_by_conversation ON messages(conversation_id, id);
"""

# Version 2: who wrote a message, chat metadata and token counts, attachments, approvals.
_V2 = """
ALTER TABLE conversations ADD COLUMN chat_type TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN user_name TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN created_at REAL;
ALTER TABLE conversations ADD COLUMN input_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversations ADD COLUMN output_tokens INTEGER NOT NULL DEFAULT 0;
UPDATE conversations SET created_at = updated_at WHERE created_at IS NULL;
CREATE INDEX conversations_by_update ON conversations(updated_at DESC);
ALTER TABLE messages ADD COLUMN author TEXT NOT NULL DEFAULT '';
CREATE TABLE attachments (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    mime       TEXT NOT NULL DEFAULT 'application/octet-stream',
    name       TEXT NOT NULL DEFAULT '',
    path       TEXT,
    data       BLOB,
    size       INTEGER,
    CHECK (path IS NOT NULL OR data IS NOT NULL)
);
CREATE INDEX attachments_by_message ON attachments(message_id);
CREATE TABLE approvals (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    kind         TEXT NOT NULL,
    server       TEXT NOT NULL DEFAULT '',
    summary      TEXT NOT NULL DEFAULT '',
    payload      TEXT NOT NULL DEFAULT '{}',
    state        TEXT NOT NULL DEFAULT 'pending'
                 CHECK (state IN ('pending', 'allowed', 'denied', 'expired')),
    decision     TEXT,
    answer       TEXT,
    requested_at REAL NOT NULL,
    resolved_at  REAL,
    resolved_by  TEXT
);
CREATE INDEX approvals_by_state ON approvals(state, id);
"""

#: The steps, in order: ``MIGRATIONS[n - 1]`` takes a database from version n-1 to n.
MIGRATIONS: tuple[str, ...] = (_V1, _V2)
SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(conn: sqlite3.Connection) -> int:
    """The version recorded in the database (0 for a new, empty file)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, *, label: str = "state.db") -> int:
    """Bring the database to :data:`SCHEMA_VERSION`; returns the version it was at.

    *conn* must be in autocommit mode (``isolation_level=None``).  ``SchemaError`` when the
    file was written by a newer Hermes or is not a Hermes state database.
    """
    found = schema_version(conn)
    if found == SCHEMA_VERSION:
        _check_tables(conn, found, label)
        return found
    if found > SCHEMA_VERSION:
        raise SchemaError(
            f"{label} has schema version {found}, newer than this Hermes knows "
            f"({SCHEMA_VERSION}); upgrade hermes-core to read it"
        )
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Another process may have migrated while we waited for the write lock.
        found = schema_version(conn)
        if found == 0 and _has_foreign_tables(conn):
            raise SchemaError(
                f"{label} holds tables but no Hermes schema version; it is not a Hermes "
                "state database (move it away and Hermes creates a new one)"
            )
        if found > 0:
            _check_tables(conn, found, label)
        for version in range(found + 1, SCHEMA_VERSION + 1):
            for statement in _statements(MIGRATIONS[version - 1]):
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return found


_TABLES = {1: ("conversations", "messages"), 2: ("attachments", "approvals")}
"""The tables each schema version made."""


def _check_tables(conn: sqlite3.Connection, version: int, label: str) -> None:
    """``SchemaError`` when a database that says it has a Hermes schema lacks its tables
    (its ``user_version`` set by hand, or a damaged file): it is not used, and not changed."""
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    have = {str(r[0]) for r in rows}
    wanted = [t for v in range(1, version + 1) for t in _TABLES.get(v, ())]
    missing = [t for t in wanted if t not in have]
    if missing:
        raise SchemaError(
            f"{label} says it has Hermes schema version {version} but lacks the tables "
            f"{', '.join(missing)}; it is not a usable Hermes state database (move it away "
            "and Hermes creates a new one)"
        )


def _has_foreign_tables(conn: sqlite3.Connection) -> bool:
    row = conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).fetchone()
    return bool(row[0])


def _statements(script: str) -> list[str]:
    # executescript() would commit our transaction; run one statement at a time instead.
    return [part.strip() for part in script.split(";") if part.strip()]
