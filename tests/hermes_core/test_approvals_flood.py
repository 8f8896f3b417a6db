"""A server flooding ``state.db`` with questions (issue 27, item 7).

One tool call asked 100 questions of 200 KB at once under ``--approvals store``: 100 rows and
40 MB, and answered or expired rows were never removed.  Now a question past the size bound
is declined without a row, at most a few of one server's questions wait at once, and old
answered rows are deleted as new questions come.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from hermes_core.sessions import SessionStore
from hermes_core.sessions.approvals import MAX_PENDING_PER_SERVER
from hermes_core.sessions.store import APPROVAL_KEEP_SECONDS, APPROVALS_KEPT
from support.cli import run_hermes

ASKING = str(Path(__file__).parents[1] / "servers" / "asking_server.py")


def flood(home: Path, count: int, size: int) -> dict[str, int]:
    (home / "config.yaml").write_text(
        f"mcp_servers:\n  asking:\n    command: {json.dumps(sys.executable)}\n"
        f"    args: [{json.dumps(ASKING)}]\n    elicitation: {{timeout: 3}}\n"
    )
    done = run_hermes(
        "mcp",
        "call",
        "--json",
        "mcp_asking_flood",
        "--args",
        json.dumps({"count": count, "size": size}),
        "--approvals",
        "store",
        env={"HERMES_HOME": str(home)},
    )
    assert done.returncode == 0, done.stderr
    return json.loads(json.loads(done.stdout)["content"][0]["text"])  # type: ignore[no-any-return]


def rows(home: Path) -> list[tuple[str, int]]:
    conn = sqlite3.connect(home / "state.db")
    try:
        return conn.execute(
            "SELECT state, length(payload) + length(summary) FROM approvals"
        ).fetchall()
    finally:
        conn.close()


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_a_flood_of_large_questions_stores_nothing(tmp_path: Path) -> None:
    actions = flood(tmp_path, 100, 200_000)
    assert actions == {"decline": 100}
    assert rows(tmp_path) == []
    assert (tmp_path / "state.db").stat().st_size < 1024 * 1024


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_a_flood_of_small_questions_waits_a_few_at_a_time(tmp_path: Path) -> None:
    actions = flood(tmp_path, 100, 100)
    # The first few wait (and time out, nobody answers); the rest are declined at once.
    assert actions.get("cancel", 0) == MAX_PENDING_PER_SERVER
    assert actions.get("decline", 0) == 100 - MAX_PENDING_PER_SERVER
    stored = rows(tmp_path)
    assert len(stored) == MAX_PENDING_PER_SERVER
    assert {state for state, _ in stored} == {"expired"}


def test_old_and_surplus_answered_approvals_are_deleted(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state.db")
    try:
        old = store.request_approval("elicitation", server="s", summary="old")
        store.resolve_approval(old.id, "deny")
        conn = sqlite3.connect(tmp_path / "state.db")
        conn.execute(
            "UPDATE approvals SET resolved_at = ? WHERE id = ?",
            (time.time() - APPROVAL_KEEP_SECONDS - 60, old.id),
        )
        conn.commit()
        stale = store.request_approval("elicitation", server="s", summary="forgotten")
        conn.execute(  # pending for two days: its asker is long gone
            "UPDATE approvals SET requested_at = ? WHERE id = ?",
            (time.time() - 2 * 86400, stale.id),
        )
        conn.commit()
        conn.close()
        for n in range(APPROVALS_KEPT + 5):
            asked = store.request_approval("elicitation", server="s", summary=f"q{n}")
            store.resolve_approval(asked.id, "deny")
        store.request_approval("elicitation", server="s", summary="last")  # prunes first
        kept = store.approvals(after=0)
        assert store.approval(old.id) is None
        assert store.approval(stale.id) is None or store.approval(stale.id).state == "expired"  # type: ignore[union-attr]
        answered = [a for a in kept if a.state != "pending"]
        assert len(answered) <= APPROVALS_KEPT
        assert [a.summary for a in kept if a.state == "pending"] == ["last"]
    finally:
        store.close()
