"""The session store ``$HERMES_HOME/state.db``: conversations, messages, attachments, approvals.

An agent or gateway records into it; ``hermes mcp serve`` reads it (see ``docs/state-db.md``)::

    from hermes_core.sessions import SessionStore

    with SessionStore() as store:                      # $HERMES_HOME/state.db
        store.record_message("telegram:123456", "user", "hello", author="Ada")

Safe for several processes at once (SQLite WAL, one short write transaction per call).
"""

from __future__ import annotations

from hermes_core.sessions.approvals import StoreElicitor, ask
from hermes_core.sessions.models import (
    APPROVAL_DECISIONS,
    Approval,
    Attachment,
    Conversation,
    Message,
    NewAttachment,
)
from hermes_core.sessions.schema import SCHEMA_VERSION, SchemaError
from hermes_core.sessions.store import ApprovalError, SessionStore, state_db_path

__all__ = [
    "APPROVAL_DECISIONS",
    "SCHEMA_VERSION",
    "Approval",
    "ApprovalError",
    "Attachment",
    "Conversation",
    "Message",
    "NewAttachment",
    "SchemaError",
    "SessionStore",
    "StoreElicitor",
    "ask",
    "state_db_path",
]
