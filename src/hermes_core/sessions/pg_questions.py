"""Questions waiting for a person, and their answers, in the state database (``state:``).

With ``state:`` in ``config.yaml`` a :class:`~hermes_core.sessions.store.SessionStore` keeps
its approvals — an MCP server's elicitation form, the host's own "may this tool run?",
sampling with ``approval: ask`` — here instead of in ``state.db``, so a question asked by one
process (one replica) is listed and answered by any other (``hermes mcp serve``'s
``permissions_respond``, the dashboard) on any machine.  Conversations and messages stay in
``state.db`` (they belong to one machine's agent).

:class:`PgQuestions` has the approval methods of ``SessionStore`` with the same meaning and
the same bounds (stale questions expire, old answers are pruned).  Every write bumps the
``questions`` row of ``revisions``; :class:`PgChangeProbe` compares it, so a waiting asker
reads its row only when something changed.  While the database cannot be reached each method
raises :class:`~hermes_core.pgstate.StateUnavailable`: the asker stops waiting and the
question counts as unanswered (the call is not approved) — it fails closed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

from hermes_core.pgstate import Connection, Database, StateUnavailable
from hermes_core.sessions.models import APPROVAL_DECISIONS, Approval

if TYPE_CHECKING:
    from psycopg.rows import TupleRow

__all__ = ["PgChangeProbe", "PgQuestions", "QuestionsError"]

_T = TypeVar("_T")

APPROVALS_KEPT = 1000
APPROVAL_KEEP_SECONDS = 7 * 86400
STALE_PENDING_SECONDS = 86400
_COLUMNS = (
    "id, kind, server, summary, payload, state, decision, answer, requested_at, "
    "resolved_at, resolved_by"
)


class QuestionsError(LookupError):
    """No such question, or it is no longer open (the message says which)."""


class PgChangeProbe:
    """Did any process write a question or an answer since the last look?"""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._seen = self._revision()

    def _revision(self) -> int:
        rows = self.db.run(
            lambda conn: conn.execute("SELECT n FROM revisions WHERE name = 'questions'").fetchall()
        )
        return int(rows[0][0]) if rows else 0

    def changed(self) -> bool:
        now = self._revision()
        if now == self._seen:
            return False
        self._seen = now
        return True

    def close(self) -> None:
        """Nothing of its own to close (the connection is the database's)."""


class PgQuestions:
    """The approvals of a session store, in *db*."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def __repr__(self) -> str:
        return f"PgQuestions({self.db.shown!r})"

    @property
    def where(self) -> str:
        return self.db.shown

    def _write(self, work: Callable[[Connection], _T]) -> _T:
        def bumped(conn: Connection) -> _T:
            conn.execute("UPDATE revisions SET n = n + 1 WHERE name = 'questions'")
            return work(conn)

        return self.db.run(bumped, write=True)

    def change_probe(self) -> PgChangeProbe:
        return PgChangeProbe(self.db)

    def request_approval(
        self,
        kind: str,
        *,
        server: str = "",
        summary: str = "",
        payload: Mapping[str, object] | None = None,
    ) -> Approval:
        stamp = time.time()

        def work(conn: Connection) -> int:
            _prune(conn, stamp)
            row = conn.execute(
                "INSERT INTO approvals (kind, server, summary, payload, requested_at) "
                "VALUES (%s, %s, %s, %s, %s) RETURNING id",
                (kind, server, summary, json.dumps(dict(payload or {})), stamp),
            ).fetchone()
            return int(row[0]) if row is not None else 0

        found = self.approval(self._write(work))
        if found is None:
            raise StateUnavailable(f"the state database {self.db.shown} lost a question")
        return found

    def approval(self, approval_id: int) -> Approval | None:
        rows = self.db.run(
            lambda conn: conn.execute(
                f"SELECT {_COLUMNS} FROM approvals WHERE id = %s", (approval_id,)
            ).fetchall()
        )
        return _approval(rows[0]) if rows else None

    def approvals(self, ids: Sequence[int] = (), *, after: int | None = None) -> list[Approval]:
        if after is not None:
            sql, args = f"SELECT {_COLUMNS} FROM approvals WHERE id > %s ORDER BY id", (after,)
        else:
            sql = f"SELECT {_COLUMNS} FROM approvals WHERE id = ANY(%s) ORDER BY id"
            args = (list(ids),)  # type: ignore[assignment]
        rows = self.db.run(lambda conn: conn.execute(sql, args).fetchall())
        return [_approval(row) for row in rows]

    def open_approvals(self) -> list[Approval]:
        rows = self.db.run(
            lambda conn: conn.execute(
                f"SELECT {_COLUMNS} FROM approvals WHERE state = 'pending' ORDER BY id"
            ).fetchall()
        )
        return [_approval(row) for row in rows]

    def resolve_approval(
        self,
        approval_id: int,
        decision: str,
        *,
        answer: Mapping[str, object] | None = None,
        by: str = "",
    ) -> Approval:
        """As ``SessionStore.resolve_approval``: only a pending question is answered, once
        (the row is locked, so two answers at once on two replicas cannot both win)."""
        if decision not in APPROVAL_DECISIONS:
            raise ValueError(
                f"Invalid decision: {decision}. Must be allow-once, allow-always, or deny"
            )
        state = "denied" if decision == "deny" else "allowed"

        def work(conn: Connection) -> str | None:
            row = conn.execute(
                "SELECT state FROM approvals WHERE id = %s FOR UPDATE", (approval_id,)
            ).fetchone()
            if row is None:
                return None
            if row[0] != "pending":
                return str(row[0])
            conn.execute(
                "UPDATE approvals SET state = %s, decision = %s, answer = %s, "
                "resolved_at = %s, resolved_by = %s WHERE id = %s",
                (
                    state,
                    decision,
                    json.dumps(dict(answer)) if answer is not None else None,
                    time.time(),
                    by,
                    approval_id,
                ),
            )
            return "pending"

        before = self._write(work)
        if before is None:
            raise QuestionsError(f"Approval not found: {approval_id}")
        if before != "pending":
            raise QuestionsError(f"Approval {approval_id} is no longer open ({before})")
        found = self.approval(approval_id)
        if found is None:
            raise QuestionsError(f"Approval not found: {approval_id}")
        return found

    def expire_approval(self, approval_id: int, *, by: str = "timeout") -> bool:
        def work(conn: Connection) -> bool:
            done = conn.execute(
                "UPDATE approvals SET state = 'expired', resolved_at = %s, resolved_by = %s "
                "WHERE id = %s AND state = 'pending'",
                (time.time(), by, approval_id),
            )
            return done.rowcount > 0

        expired: bool = self._write(work)
        return expired


def _prune(conn: Connection, now: float) -> None:
    conn.execute(
        "UPDATE approvals SET state = 'expired', resolved_at = %s, resolved_by = 'stale' "
        "WHERE state = 'pending' AND requested_at < %s",
        (now, now - STALE_PENDING_SECONDS),
    )
    conn.execute(
        "DELETE FROM approvals WHERE state != 'pending' AND (resolved_at < %s OR id NOT IN "
        "(SELECT id FROM approvals WHERE state != 'pending' ORDER BY id DESC LIMIT %s))",
        (now - APPROVAL_KEEP_SECONDS, APPROVALS_KEPT),
    )


def _loads(text: object) -> object:
    if not isinstance(text, str):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _approval(row: TupleRow) -> Approval:
    payload = _loads(row[4])
    answer = _loads(row[7])
    return Approval(
        id=int(row[0]),
        kind=str(row[1]),
        server=str(row[2]),
        summary=str(row[3]),
        payload=payload if isinstance(payload, dict) else {},
        state=row[5],
        decision=row[6],
        answer=answer if isinstance(answer, dict) else None,
        requested_at=float(row[8]),
        resolved_at=row[9],
        resolved_by=row[10],
    )
