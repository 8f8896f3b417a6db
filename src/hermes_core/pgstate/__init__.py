"""The durable state on PostgreSQL (``state: {url: postgresql://…}`` in ``config.yaml``).

Several Hermes processes on several machines (a fleet of ``hermes mcp proxy --http`` replicas,
and every ``hermes`` command run with the same config) share one database: the remembered
decisions and pinned definitions (:mod:`hermes_core.host.trust.pg_store`), the audit log
(:mod:`hermes_core.host.calls.audit_pg`), the questions waiting for a person
(:mod:`hermes_core.sessions.pg_questions`) and OAuth tokens (:mod:`hermes_core.auth.pg_tokens`).
Without ``state:`` nothing here is imported and the SQLite files under ``$HERMES_HOME`` hold
it all.

The public interface is small::

    from hermes_core.pgstate import StateUnavailable, database_for

    db = database_for(loaded.config.state)     # one pool per URL and process
    with db.transaction() as conn:             # schema created/migrated on first use
        conn.execute("SELECT 1")

* :func:`database_for` — the process's :class:`Database` for a ``state:`` block (``${VAR}``
  expanded from the environment and ``$HERMES_HOME/.env``).
* :class:`Database` — a psycopg 3 connection pool (blocking: the CLI and the host's trust
  checks both use it); :meth:`Database.transaction` retries once on a broken connection
  (the server restarted), then raises :class:`StateUnavailable`.
* :meth:`Database.reachable` — one query now (what a readiness check asks);
  :meth:`Database.dedicated` — a connection of its own (a session-level advisory lock).
* :func:`state_database_of` — the database the last config read for a home named (for parts
  given a home, not a config: OAuth token storage).
* :class:`StateUnavailable` — the database cannot be used; its message names the URL with
  its credentials hidden and never holds the password.

A host finds its database through ``HostFactory.state_database()`` (``None`` without
``state:``); the stores are ``HostFactory.trust_store()``, the audit interceptor's sink,
``hermes_core.sessions.shared.session_store`` and ``hermes_core.auth.pg_tokens``.

psycopg is an optional dependency (``pip install 'hermes-core[fleet]'``); a config with
``state:`` and no psycopg is a clear error.
"""

from __future__ import annotations

from hermes_core.pgstate.database import (
    Connection,
    Database,
    database_at,
    database_for,
    remember_state,
    shown_url,
    state_database_of,
)
from hermes_core.pgstate.errors import StateUnavailable

__all__ = [
    "Connection",
    "Database",
    "StateUnavailable",
    "database_at",
    "database_for",
    "remember_state",
    "shown_url",
    "state_database_of",
]
