"""SQLite rows of ``state.db`` as the session models."""

from __future__ import annotations

import json
import os
import sqlite3

from hermes_core.sessions.models import Approval, Conversation, Message

__all__ = ["approval_of", "conversation_of", "file_size", "message_of"]


def file_size(path: str | None) -> int | None:
    try:
        return os.stat(path or "").st_size
    except OSError:
        return None


def conversation_of(row: sqlite3.Row) -> Conversation:
    return Conversation(
        session_key=str(row["session_key"]),
        platform=str(row["platform"]),
        chat_id=str(row["chat_id"]),
        chat_type=str(row["chat_type"]),
        title=str(row["title"]),
        user_name=str(row["user_name"]),
        created_at=float(row["created_at"] or row["updated_at"]),
        updated_at=float(row["updated_at"]),
        input_tokens=int(row["input_tokens"]),
        output_tokens=int(row["output_tokens"]),
        message_count=int(row["n"]),
    )


def message_of(row: sqlite3.Row) -> Message:
    return Message(
        id=int(row["id"]),
        session_key=str(row["session_key"]),
        role=str(row["role"]),
        text=str(row["text"]),
        author=str(row["author"]),
        created_at=float(row["created_at"]),
        attachment_count=int(row["n"]),
    )


def _loads(text: str | None) -> dict[str, object] | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def approval_of(row: sqlite3.Row) -> Approval:
    return Approval(
        id=int(row["id"]),
        kind=str(row["kind"]),
        server=str(row["server"]),
        summary=str(row["summary"]),
        payload=_loads(row["payload"]) or {},
        state=row["state"],
        decision=row["decision"],
        answer=_loads(row["answer"]),
        requested_at=float(row["requested_at"]),
        resolved_at=row["resolved_at"],
        resolved_by=row["resolved_by"],
    )
