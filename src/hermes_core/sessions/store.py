"""The session store: ``$HERMES_HOME/state.db`` (SQLite in WAL mode).

Safe across processes: every write is one short ``BEGIN IMMEDIATE`` transaction (SQLite
serialises writers, waiting up to :data:`BUSY_TIMEOUT` seconds for the lock), and readers never
block writers nor see half a write (WAL).  Within a process, each thread gets its own
connection.  The file is created with mode 0600 (it holds people's messages).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from hermes_core.home import hermes_home
from hermes_core.pgstate import StateUnavailable
from hermes_core.regular_files import read_regular
from hermes_core.sessions.connections import BUSY_TIMEOUT, ChangeProbe, StoreConnections
from hermes_core.sessions.legacy import legacy_index_path, read_legacy_index
from hermes_core.sessions.models import (
    APPROVAL_DECISIONS,
    Approval,
    Attachment,
    Conversation,
    Message,
    NewAttachment,
)
from hermes_core.sessions.pg_questions import PgChangeProbe, PgQuestions, QuestionsError
from hermes_core.sessions.rows import approval_of, conversation_of, file_size, message_of
from hermes_core.sessions.schema import SchemaError, migrate

__all__ = [
    "BUSY_TIMEOUT",
    "ApprovalError",
    "ChangeProbe",
    "SchemaError",
    "SessionStore",
    "state_db_path",
]

_ATTACHMENT_KINDS = ("image", "video", "audio", "file")


def state_db_path(home: Path | None = None) -> Path:
    """``$HERMES_HOME/state.db``."""
    if home is None:
        home = hermes_home()
    return home / "state.db"


class ApprovalError(LookupError):
    """An approval that does not exist, or was already answered (the message says which)."""


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class SessionStore:
    """Conversations, messages, attachments and approval requests in one SQLite file.

    ``SessionStore()`` opens ``$HERMES_HOME/state.db``, creating it (and ``$HERMES_HOME``)
    when missing and migrating an older schema.  ``SchemaError`` when the file belongs to a
    newer Hermes or is not a Hermes database.
    """

    def __init__(
        self, path: str | os.PathLike[str] | None = None, *, questions: PgQuestions | None = None
    ) -> None:
        """*questions*: where the approvals live instead of ``state.db`` (the state database,
        with ``state:``: see :func:`~hermes_core.sessions.shared.session_store`)."""
        self.path = Path(path) if path is not None else state_db_path()
        self.questions = questions
        self._db = StoreConnections(self.path)
        with self._db.current() as conn:
            conn.execute("PRAGMA journal_mode = WAL")
            migrate(conn, label=str(self.path))

    def __repr__(self) -> str:
        return f"SessionStore({str(self.path)!r})"

    def connect(self) -> sqlite3.Connection:
        """A new connection of its own (autocommit; the caller closes it)."""
        return self._db.connect()

    def close(self) -> None:
        """Close every connection this store opened (in any thread)."""
        self._db.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing --------------------------------------------------------------------------
    def upsert_conversation(
        self,
        session_key: str,
        *,
        platform: str | None = None,
        chat_id: str | None = None,
        chat_type: str | None = None,
        title: str | None = None,
        user_name: str | None = None,
        add_tokens: tuple[int, int] = (0, 0),
        at: float | None = None,
    ) -> Conversation:
        """Create or update a conversation; fields left ``None`` keep their value."""
        with self._db.write() as conn:
            self._upsert(
                conn,
                session_key,
                platform=platform,
                chat_id=chat_id,
                chat_type=chat_type,
                title=title,
                user_name=user_name,
                add_tokens=add_tokens,
                at=time.time() if at is None else at,
            )
        found = self.conversation(session_key)
        assert found is not None
        return found

    def _upsert(
        self,
        conn: sqlite3.Connection,
        session_key: str,
        *,
        platform: str | None,
        chat_id: str | None,
        chat_type: str | None,
        title: str | None,
        user_name: str | None,
        add_tokens: tuple[int, int],
        at: float,
    ) -> int:
        if not session_key:
            raise ValueError("a conversation needs a session key")
        if platform is None and chat_id is None and ":" in session_key:
            platform, _, chat_id = session_key.partition(":")
        conn.execute(
            "INSERT INTO conversations (session_key, platform, chat_id, chat_type, title, "
            "user_name, created_at, updated_at, input_tokens, output_tokens) "
            "VALUES (?, coalesce(?, ''), coalesce(?, ''), coalesce(?, ''), coalesce(?, ''), "
            "coalesce(?, ''), ?, ?, ?, ?) "
            "ON CONFLICT(session_key) DO UPDATE SET "
            "platform = coalesce(?, platform), chat_id = coalesce(?, chat_id), "
            "chat_type = coalesce(?, chat_type), title = coalesce(?, title), "
            "user_name = coalesce(?, user_name), updated_at = max(updated_at, ?), "
            "input_tokens = input_tokens + ?, output_tokens = output_tokens + ?",
            (
                session_key,
                platform,
                chat_id,
                chat_type,
                title,
                user_name,
                at,
                at,
                add_tokens[0],
                add_tokens[1],
                platform,
                chat_id,
                chat_type,
                title,
                user_name,
                at,
                add_tokens[0],
                add_tokens[1],
            ),
        )
        row = conn.execute(
            "SELECT id FROM conversations WHERE session_key = ?", (session_key,)
        ).fetchone()
        return int(row["id"])

    def record_message(
        self,
        session_key: str,
        role: str,
        text: str,
        *,
        author: str = "",
        attachments: Iterable[NewAttachment] = (),
        platform: str | None = None,
        chat_id: str | None = None,
        chat_type: str | None = None,
        title: str | None = None,
        user_name: str | None = None,
        at: float | None = None,
    ) -> Message:
        """Append a message (and its attachments) to a conversation, creating it if new.

        A session key of the form ``platform:chat_id`` fills those two fields when they are
        not given.
        """
        if not role:
            raise ValueError("a message needs a role (user, assistant, system, tool)")
        items = list(attachments)
        for item in items:
            if item.kind not in _ATTACHMENT_KINDS:
                raise ValueError(f"attachment kind must be one of {', '.join(_ATTACHMENT_KINDS)}")
            if (item.path is None) == (item.data is None):
                raise ValueError("an attachment has either a path or data, not both or neither")
        stamp = time.time() if at is None else at
        with self._db.write() as conn:
            conversation_id = self._upsert(
                conn,
                session_key,
                platform=platform,
                chat_id=chat_id,
                chat_type=chat_type,
                title=title,
                user_name=user_name,
                add_tokens=(0, 0),
                at=stamp,
            )
            cursor = conn.execute(
                "INSERT INTO messages (conversation_id, role, text, author, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (conversation_id, role, text, author, stamp),
            )
            message_id = int(cursor.lastrowid or 0)
            for item in items:
                size = len(item.data) if item.data is not None else file_size(item.path)
                conn.execute(
                    "INSERT INTO attachments (message_id, kind, mime, name, path, data, size) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (message_id, item.kind, item.mime, item.name, item.path, item.data, size),
                )
        return Message(message_id, session_key, role, text, author, stamp, len(items))

    # -- reading conversations and messages ------------------------------------------------
    _CONVERSATION = (
        "SELECT c.*, (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id) AS n "
        "FROM conversations c"
    )

    def conversations(
        self, *, platform: str | None = None, search: str | None = None, limit: int = 50
    ) -> list[Conversation]:
        """Conversations, most recently updated first; ``search`` matches the title, the
        user name, the chat id or the session key (case-insensitive).

        When ``state.db`` holds no conversation at all, the legacy ``sessions.json`` index is
        read instead.
        """
        where, params = [], []
        if platform:
            where.append("lower(c.platform) = lower(?)")
            params.append(platform)
        if search:
            where.append(
                "(c.title LIKE ? ESCAPE '\\' OR c.user_name LIKE ? ESCAPE '\\' "
                "OR c.session_key LIKE ? ESCAPE '\\' OR c.chat_id LIKE ? ESCAPE '\\')"
            )
            params.extend([_like(search)] * 4)
        sql = self._CONVERSATION + (" WHERE " + " AND ".join(where) if where else "")
        sql += " ORDER BY c.updated_at DESC, c.id DESC LIMIT ?"
        with self._db.current() as conn:
            rows = conn.execute(sql, (*params, limit)).fetchall()
            if not rows and not self._has_conversations(conn):
                return self._legacy(platform, search, limit)
        return [conversation_of(row) for row in rows]

    def _has_conversations(self, conn: sqlite3.Connection) -> bool:
        return conn.execute("SELECT 1 FROM conversations LIMIT 1").fetchone() is not None

    def _legacy(self, platform: str | None, search: str | None, limit: int) -> list[Conversation]:
        found = read_legacy_index(legacy_index_path(self.path.parent))
        if platform:
            found = [c for c in found if c.platform.lower() == platform.lower()]
        if search:
            needle = search.lower()
            found = [
                c
                for c in found
                if any(
                    needle in v.lower() for v in (c.title, c.user_name, c.session_key, c.chat_id)
                )
            ]
        return found[:limit]

    def conversation(self, session_key: str) -> Conversation | None:
        with self._db.current() as conn:
            row = conn.execute(
                self._CONVERSATION + " WHERE c.session_key = ?", (session_key,)
            ).fetchone()
            if row is None and not self._has_conversations(conn):
                legacy = self._legacy(None, None, 1_000_000)
                return next((c for c in legacy if c.session_key == session_key), None)
        return conversation_of(row) if row is not None else None

    def messages(
        self, session_key: str, *, limit: int = 50, before_id: int | None = None
    ) -> list[Message]:
        """The latest *limit* messages (before message *before_id* when given), oldest first."""
        sql = (
            "SELECT m.*, c.session_key, "
            "(SELECT count(*) FROM attachments a WHERE a.message_id = m.id) AS n "
            "FROM messages m JOIN conversations c ON c.id = m.conversation_id "
            "WHERE c.session_key = ?"
        )
        params: list[object] = [session_key]
        if before_id is not None:
            sql += " AND m.id < ?"
            params.append(before_id)
        sql += " ORDER BY m.id DESC LIMIT ?"
        with self._db.current() as conn:
            rows = conn.execute(sql, (*params, limit)).fetchall()
        return [message_of(row) for row in reversed(rows)]

    def message_count(self, session_key: str) -> int:
        with self._db.current() as conn:
            row = conn.execute(
                "SELECT count(*) FROM messages m JOIN conversations c ON c.id = m.conversation_id "
                "WHERE c.session_key = ?",
                (session_key,),
            ).fetchone()
        return int(row[0])

    def message(self, message_id: int) -> Message | None:
        with self._db.current() as conn:
            row = conn.execute(
                "SELECT m.*, c.session_key, "
                "(SELECT count(*) FROM attachments a WHERE a.message_id = m.id) AS n "
                "FROM messages m JOIN conversations c ON c.id = m.conversation_id "
                "WHERE m.id = ?",
                (message_id,),
            ).fetchone()
        return message_of(row) if row is not None else None

    def messages_after(self, message_id: int, *, limit: int = 500) -> list[Message]:
        """Messages of every conversation with an id above *message_id*, oldest first."""
        with self._db.current() as conn:
            rows = conn.execute(
                "SELECT m.*, c.session_key, "
                "(SELECT count(*) FROM attachments a WHERE a.message_id = m.id) AS n "
                "FROM messages m JOIN conversations c ON c.id = m.conversation_id "
                "WHERE m.id > ? ORDER BY m.id LIMIT ?",
                (message_id, limit),
            ).fetchall()
        return [message_of(row) for row in rows]

    def last_ids(self) -> tuple[int, int]:
        """The highest message id and the highest approval id (0 when none)."""
        with self._db.current() as conn:
            row = conn.execute(
                "SELECT (SELECT coalesce(max(id), 0) FROM messages), "
                "(SELECT coalesce(max(id), 0) FROM approvals)"
            ).fetchone()
        return int(row[0]), int(row[1])

    # -- attachments ----------------------------------------------------------------------
    def attachments(self, message_id: int) -> list[Attachment]:
        with self._db.current() as conn:
            rows = conn.execute(
                "SELECT id, message_id, kind, mime, name, path, size, data IS NOT NULL AS inline "
                "FROM attachments WHERE message_id = ? ORDER BY id",
                (message_id,),
            ).fetchall()
        return [
            Attachment(
                id=int(r["id"]),
                message_id=int(r["message_id"]),
                kind=str(r["kind"]),
                mime=str(r["mime"]),
                name=str(r["name"]),
                path=r["path"],
                size=r["size"],
                stored_inline=bool(r["inline"]),
            )
            for r in rows
        ]

    def attachment_data(self, attachment: Attachment, *, max_bytes: int) -> bytes:
        """The bytes of *attachment*; ``ValueError`` when above *max_bytes* or unreadable."""
        if attachment.stored_inline:
            with self._db.current() as conn:
                row = conn.execute(
                    "SELECT length(data) AS size FROM attachments WHERE id = ?", (attachment.id,)
                ).fetchone()
                if row is None:
                    raise ValueError("the attachment is gone")
                if int(row["size"]) > max_bytes:
                    raise ValueError(f"{row['size']} bytes, above the {max_bytes}-byte limit")
                data = conn.execute(
                    "SELECT data FROM attachments WHERE id = ?", (attachment.id,)
                ).fetchone()["data"]
            return bytes(data)
        path = Path(attachment.path or "")
        try:  # a FIFO or a device is refused at once (it would block the read for ever)
            data = read_regular(path, max_bytes)
        except OSError as exc:
            raise ValueError(f"cannot read {path.name}: {exc.strerror or 'error'}") from None
        if len(data) > max_bytes:
            size = file_size(str(path)) or len(data)
            raise ValueError(f"{size} bytes, above the {max_bytes}-byte limit")
        return data

    # -- noticing changes -------------------------------------------------------------------
    def change_probe(self) -> ChangeProbe | PgChangeProbe:
        """A cheap way to ask "did any other connection commit since I last asked?" (of the
        approvals, where the state database holds them)."""
        if self.questions is not None:
            return self.questions.change_probe()
        return ChangeProbe(self.connect())

    # -- approvals ------------------------------------------------------------------------
    def request_approval(
        self,
        kind: str,
        *,
        server: str = "",
        summary: str = "",
        payload: Mapping[str, object] | None = None,
    ) -> Approval:
        """Record a pending question for a person; its answer arrives through
        :meth:`resolve_approval` (possibly from another process)."""
        if self.questions is not None:
            return self.questions.request_approval(
                kind, server=server, summary=summary, payload=payload
            )
        stamp = time.time()
        with self._db.write() as conn:
            _prune_approvals(conn, stamp)
            cursor = conn.execute(
                "INSERT INTO approvals (kind, server, summary, payload, requested_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (kind, server, summary, json.dumps(dict(payload or {})), stamp),
            )
            approval_id = int(cursor.lastrowid or 0)
        found = self.approval(approval_id)
        assert found is not None
        return found

    def approval(self, approval_id: int) -> Approval | None:
        if self.questions is not None:
            return self.questions.approval(approval_id)
        with self._db.current() as conn:
            row = conn.execute("SELECT * FROM approvals WHERE id = ?", (approval_id,)).fetchone()
        return approval_of(row) if row is not None else None

    def approvals(self, ids: Sequence[int] = (), *, after: int | None = None) -> list[Approval]:
        """The approvals with the given ids, or every one with an id above *after*."""
        if self.questions is not None:
            return self.questions.approvals(ids, after=after)
        with self._db.current() as conn:
            if after is not None:
                rows = conn.execute(
                    "SELECT * FROM approvals WHERE id > ? ORDER BY id", (after,)
                ).fetchall()
            else:
                marks = ",".join("?" * len(ids))
                rows = conn.execute(
                    f"SELECT * FROM approvals WHERE id IN ({marks}) ORDER BY id", tuple(ids)
                ).fetchall()
        return [approval_of(row) for row in rows]

    def open_approvals(self) -> list[Approval]:
        if self.questions is not None:
            return self.questions.open_approvals()
        with self._db.current() as conn:
            rows = conn.execute(
                "SELECT * FROM approvals WHERE state = 'pending' ORDER BY id"
            ).fetchall()
        return [approval_of(row) for row in rows]

    def resolve_approval(
        self,
        approval_id: int,
        decision: str,
        *,
        answer: Mapping[str, object] | None = None,
        by: str = "",
    ) -> Approval:
        """Answer a pending approval: ``allow-once``, ``allow-always`` or ``deny``.

        ``ValueError`` for another decision; :class:`ApprovalError` when the approval does not
        exist or is no longer pending (answered, or expired because the asker gave up).
        """
        if decision not in APPROVAL_DECISIONS:
            raise ValueError(
                f"Invalid decision: {decision}. Must be allow-once, allow-always, or deny"
            )
        if self.questions is not None:
            try:
                return self.questions.resolve_approval(approval_id, decision, answer=answer, by=by)
            except (QuestionsError, StateUnavailable) as exc:
                raise ApprovalError(str(exc)) from None
        state = "denied" if decision == "deny" else "allowed"
        with self._db.write() as conn:
            row = conn.execute(
                "SELECT state FROM approvals WHERE id = ?", (approval_id,)
            ).fetchone()
            if row is None:
                raise ApprovalError(f"Approval not found: {approval_id}")
            if row["state"] != "pending":
                raise ApprovalError(f"Approval {approval_id} is no longer open ({row['state']})")
            conn.execute(
                "UPDATE approvals SET state = ?, decision = ?, answer = ?, resolved_at = ?, "
                "resolved_by = ? WHERE id = ?",
                (
                    state,
                    decision,
                    json.dumps(dict(answer)) if answer is not None else None,
                    time.time(),
                    by,
                    approval_id,
                ),
            )
        found = self.approval(approval_id)
        assert found is not None
        return found

    def expire_approval(self, approval_id: int, *, by: str = "timeout") -> bool:
        """Mark a still-pending approval expired (the asker stopped waiting)."""
        if self.questions is not None:
            return self.questions.expire_approval(approval_id, by=by)
        with self._db.write() as conn:
            cursor = conn.execute(
                "UPDATE approvals SET state = 'expired', resolved_at = ?, resolved_by = ? "
                "WHERE id = ? AND state = 'pending'",
                (time.time(), by, approval_id),
            )
        return cursor.rowcount > 0


APPROVALS_KEPT = 1000
"""How many answered or expired approvals ``state.db`` keeps (the newest)."""
APPROVAL_KEEP_SECONDS = 7 * 86400
"""How long an answered or expired approval is kept."""
STALE_PENDING_SECONDS = 86400
"""A question still pending after this long has no one waiting for it: it expires."""


def _prune_approvals(conn: sqlite3.Connection, now: float) -> None:
    """Bound the approvals table before a question is added: stale pending questions
    expire, and answered or expired ones go past :data:`APPROVAL_KEEP_SECONDS` or beyond the
    newest :data:`APPROVALS_KEPT`."""
    conn.execute(
        "UPDATE approvals SET state = 'expired', resolved_at = ?, resolved_by = 'stale' "
        "WHERE state = 'pending' AND requested_at < ?",
        (now, now - STALE_PENDING_SECONDS),
    )
    conn.execute(
        "DELETE FROM approvals WHERE state != 'pending' AND (resolved_at < ? OR id NOT IN "
        "(SELECT id FROM approvals WHERE state != 'pending' ORDER BY id DESC LIMIT ?))",
        (now - APPROVAL_KEEP_SECONDS, APPROVALS_KEPT),
    )
