"""The session store a command opens: ``state.db``, with its approvals in the state database
when ``config.yaml`` has ``state:`` (one place, so every door — ``hermes mcp call --approvals
store``, ``hermes mcp serve``, the dashboard — asks and answers in the same store)."""

from __future__ import annotations

import os

from hermes_core.pgstate import Database
from hermes_core.sessions.pg_questions import PgQuestions
from hermes_core.sessions.store import SessionStore

__all__ = ["session_store"]


def session_store(
    state: Database | None, path: str | os.PathLike[str] | None = None
) -> SessionStore:
    """``SessionStore(path)`` (default ``$HERMES_HOME/state.db``) whose approvals live in
    *state* when it is given (``HostFactory.state_database()``)."""
    return SessionStore(path, questions=PgQuestions(state) if state is not None else None)
