"""The state database's schema: its tables, the version table and the steps between versions.

:func:`ensure_schema` runs on a process's first connection.  It takes a transaction-scoped
advisory lock first, so replicas starting at once wait for each other: the first creates
or migrates, the others then find the current version and do nothing.  Everything is
created by the connecting role in its own database (``CREATE TABLE`` in the default schema),
so a role that owns its database and is not a superuser is enough.  A database written by
a newer Hermes (a higher version) is refused rather than misread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_core.pgstate.errors import StateUnavailable

if TYPE_CHECKING:
    from hermes_core.pgstate.connection import Connection

__all__ = ["SCHEMA_LOCK", "SCHEMA_VERSION", "ensure_schema"]

#: The advisory lock key every replica takes while creating or migrating the schema.
SCHEMA_LOCK = 0x4845524D4553  # "HERMES"
SCHEMA_VERSION = 1

#: Version 1: the trust state, the audit log, the questions and OAuth tokens.
_V1 = """
CREATE TABLE trust_servers (
    server TEXT PRIMARY KEY, identity TEXT NOT NULL, first_seen DOUBLE PRECISION NOT NULL);
CREATE TABLE trust_pins (
    server TEXT NOT NULL, tool TEXT NOT NULL, digest TEXT NOT NULL, definition TEXT,
    pinned_at DOUBLE PRECISION NOT NULL, size INTEGER, PRIMARY KEY (server, tool));
CREATE TABLE trust_changes (
    server TEXT NOT NULL, tool TEXT NOT NULL, digest TEXT NOT NULL, definition TEXT,
    seen_at DOUBLE PRECISION NOT NULL, size INTEGER, PRIMARY KEY (server, tool));
CREATE TABLE trust_decisions (
    server TEXT NOT NULL, tool TEXT NOT NULL,
    decision TEXT NOT NULL CHECK (decision IN ('ask', 'always', 'never')),
    set_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (server, tool));
CREATE TABLE revisions (name TEXT PRIMARY KEY, n BIGINT NOT NULL);
INSERT INTO revisions VALUES ('trust', 0), ('questions', 0);
CREATE TABLE audit_log (
    id BIGSERIAL PRIMARY KEY, at DOUBLE PRECISION NOT NULL, server TEXT,
    record TEXT NOT NULL, source_digest TEXT UNIQUE);
CREATE INDEX audit_log_at ON audit_log (at);
CREATE TABLE approvals (
    id BIGSERIAL PRIMARY KEY, kind TEXT NOT NULL, server TEXT NOT NULL DEFAULT '',
    summary TEXT NOT NULL DEFAULT '', payload TEXT NOT NULL DEFAULT '{}',
    state TEXT NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'allowed', 'denied', 'expired')),
    decision TEXT, answer TEXT, requested_at DOUBLE PRECISION NOT NULL,
    resolved_at DOUBLE PRECISION, resolved_by TEXT);
CREATE INDEX approvals_by_state ON approvals (state, id);
CREATE TABLE oauth_tokens (
    server TEXT PRIMARY KEY, data TEXT NOT NULL, updated_at DOUBLE PRECISION NOT NULL);
"""

#: The step from each version to the next (index 0: nothing to version 1).
STEPS: tuple[str, ...] = (_V1,)


def ensure_schema(conn: Connection) -> None:
    """Create the tables or bring them to :data:`SCHEMA_VERSION`, under the advisory lock."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS hermes_schema (version INTEGER NOT NULL)")
        row = conn.execute("SELECT max(version) FROM hermes_schema").fetchone()
        version = row[0] if row is not None and row[0] is not None else 0
        if version > SCHEMA_VERSION:
            raise StateUnavailable(
                f"the state database was written by a newer Hermes (schema {version}; "
                f"this one knows {SCHEMA_VERSION}): upgrade Hermes"
            )
        for step in STEPS[version:]:
            for statement in filter(str.strip, step.split(";")):
                conn.execute(statement)
        if version < SCHEMA_VERSION:
            conn.execute("DELETE FROM hermes_schema")
            conn.execute("INSERT INTO hermes_schema VALUES (%s)", (SCHEMA_VERSION,))
