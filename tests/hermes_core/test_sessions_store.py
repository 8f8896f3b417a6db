"""The session store: schema migrations, the legacy index, reads and writes, approvals, and
several processes writing and reading one state.db at once."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_core.sessions import (
    SCHEMA_VERSION,
    ApprovalError,
    NewAttachment,
    SchemaError,
    SessionStore,
)
from hermes_core.sessions.schema import MIGRATIONS


def test_a_new_store_is_created_at_the_current_version_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "home" / "state.db"
    with SessionStore(path) as store:
        assert store.conversations() == []
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"conversations", "messages", "attachments", "approvals"} <= tables
    conn.close()


def test_a_version_1_database_is_migrated_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(MIGRATIONS[0])
    conn.execute(
        "INSERT INTO conversations (session_key, platform, chat_id, title, updated_at) "
        "VALUES ('telegram:1', 'telegram', '1', 'Ada', 100.0)"
    )
    conn.execute(
        "INSERT INTO messages (conversation_id, role, text, created_at) "
        "VALUES (1, 'user', 'hi', 99)"
    )
    conn.execute("PRAGMA user_version = 1")
    conn.close()

    with SessionStore(path) as store:
        (conversation,) = store.conversations()
        assert (conversation.title, conversation.created_at, conversation.message_count) == (
            "Ada",
            100.0,
            1,
        )
        (message,) = store.messages("telegram:1")
        assert (message.text, message.author) == ("hi", "")
        # The new tables work on the migrated file.
        added = store.record_message(
            "telegram:1", "assistant", "hello", attachments=[NewAttachment("file", data=b"x")]
        )
        assert store.attachments(added.id)[0].size == 1
        assert store.request_approval("elicitation").state == "pending"
    check = sqlite3.connect(path)
    assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    check.close()


def test_a_newer_schema_is_refused_not_downgraded(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(SchemaError, match="newer than this Hermes knows"):
        SessionStore(path)


def test_a_foreign_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (x)")
    conn.close()
    with pytest.raises(SchemaError, match="not a Hermes state database"):
        SessionStore(path)
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 0


def test_the_legacy_sessions_json_is_read_when_state_db_has_no_conversations(
    tmp_path: Path,
) -> None:
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / "sessions.json").write_text(
        json.dumps(
            {
                "_meta": {"version": 1},
                "agent:main:telegram:dm:42": {
                    "session_id": "s-42",
                    "platform": "telegram",
                    "chat_type": "dm",
                    "display_name": "Ada Lovelace",
                    "updated_at": "2026-01-02T03:04:05Z",
                },
                "agent:main:discord:group:7": {
                    "platform": "discord",
                    "chat_name": "#general",
                    "updated_at": 1_700_000_000,
                },
                "broken": "not an object",
            }
        )
    )
    with SessionStore(tmp_path / "state.db") as store:
        keys = [c.session_key for c in store.conversations()]
        assert keys == ["agent:main:telegram:dm:42", "agent:main:discord:group:7"]
        assert [c.source for c in store.conversations()] == ["sessions.json"] * 2
        (found,) = store.conversations(search="lovelace")
        assert (found.title, found.chat_id, found.chat_type) == ("Ada Lovelace", "s-42", "dm")
        assert [c.platform for c in store.conversations(platform="DISCORD")] == ["discord"]
        assert store.conversation("agent:main:discord:group:7") is not None
        # Once state.db holds a conversation, it is the only source.
        store.record_message("slack:ops", "user", "hello")
        assert [c.session_key for c in store.conversations()] == ["slack:ops"]


def test_messages_page_backwards_and_search_is_literal(tmp_path: Path) -> None:
    with SessionStore(tmp_path / "state.db") as store:
        for n in range(5):
            store.record_message("telegram:9", "user", f"m{n}", title="100% _real_")
        store.record_message("telegram:8", "user", "x", title="100 percent")
        latest = store.messages("telegram:9", limit=2)
        assert [m.text for m in latest] == ["m3", "m4"]
        earlier = store.messages("telegram:9", limit=2, before_id=latest[0].id)
        assert [m.text for m in earlier] == ["m1", "m2"]
        assert store.message_count("telegram:9") == 5
        assert [c.session_key for c in store.conversations(search="100%")] == ["telegram:9"]
        assert [c.session_key for c in store.conversations(search="_real_")] == ["telegram:9"]
        assert store.conversation("telegram:9").platform == "telegram"  # type: ignore[union-attr]


def test_tokens_accumulate_and_fields_left_out_are_kept(tmp_path: Path) -> None:
    with SessionStore(tmp_path / "state.db") as store:
        store.upsert_conversation("k", platform="slack", title="Ops", add_tokens=(10, 5))
        found = store.upsert_conversation("k", add_tokens=(1, 2))
        assert (found.title, found.platform, found.input_tokens, found.output_tokens) == (
            "Ops",
            "slack",
            11,
            7,
        )


def test_approvals_are_answered_once(tmp_path: Path) -> None:
    with SessionStore(tmp_path / "state.db") as store:
        asked = store.request_approval(
            "elicitation", server="shop", summary="Which size?", payload={"fields": []}
        )
        assert [a.id for a in store.open_approvals()] == [asked.id]
        with pytest.raises(ValueError, match=r"Invalid decision: maybe\. Must be allow-once"):
            store.resolve_approval(asked.id, "maybe")
        done = store.resolve_approval(asked.id, "allow-once", answer={"size": "M"}, by="test")
        assert (done.state, done.decision, done.answer) == ("allowed", "allow-once", {"size": "M"})
        assert store.open_approvals() == []
        with pytest.raises(ApprovalError, match="no longer open"):
            store.resolve_approval(asked.id, "deny")
        with pytest.raises(ApprovalError, match="Approval not found: 999"):
            store.resolve_approval(999, "deny")
        second = store.request_approval("sampling")
        assert store.expire_approval(second.id)
        assert store.approval(second.id).state == "expired"  # type: ignore[union-attr]
        assert not store.expire_approval(second.id)


def test_an_attachment_has_a_path_or_data(tmp_path: Path) -> None:
    with SessionStore(tmp_path / "state.db") as store:
        with pytest.raises(ValueError, match="either a path or data"):
            store.record_message("k", "user", "x", attachments=[NewAttachment("image")])
        with pytest.raises(ValueError, match="kind must be one of"):
            store.record_message(
                "k",
                "user",
                "x",
                attachments=[NewAttachment("sticker", data=b"1")],  # type: ignore[arg-type]
            )
        assert store.conversations() == []  # nothing half-written


WRITER = """
import sys
from hermes_core.sessions import SessionStore
path, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
with SessionStore(path) as store:
    for n in range(count):
        store.record_message(f"chat:{name}", "user", f"{name}-{n}", author=name)
        if n % 10 == 0:
            store.request_approval("elicitation", server=name, summary=str(n))
"""

READER = """
import sys
from hermes_core.sessions import SessionStore
path, total = sys.argv[1], int(sys.argv[2])
seen = 0
with SessionStore(path) as store:
    while seen < total:
        ids = [m.id for m in store.messages_after(0, limit=100000)]
        assert ids == sorted(set(ids)), "ids out of order or repeated"
        assert len(ids) >= seen, "a committed message disappeared"
        seen = len(ids)
print(seen)
"""


@pytest.mark.process
def test_concurrent_writers_and_readers_across_processes_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    SessionStore(path).close()
    writers, count = 4, 150
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    readers = [
        subprocess.Popen(
            [sys.executable, "-c", READER, str(path), str(writers * count)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), f"w{i}", str(count)], env=env)
        for i in range(writers)
    ]
    for proc in procs:
        assert proc.wait(timeout=300) == 0
    for reader in readers:
        out, _ = reader.communicate(timeout=300)
        assert reader.returncode == 0
        assert int(out) == writers * count
    with SessionStore(path) as store:
        for i in range(writers):
            texts = [m.text for m in store.messages(f"chat:w{i}", limit=1000)]
            assert texts == [f"w{i}-{n}" for n in range(count)]
        assert len(store.open_approvals()) == writers * (count // 10)


@pytest.mark.process
def test_ask_waits_for_an_answer_from_another_process_and_expires_on_timeout(
    tmp_path: Path,
) -> None:
    import asyncio

    from hermes_core.sessions import ask

    store = SessionStore(tmp_path / "state.db")
    answer = """
import sys
from hermes_core.sessions import SessionStore
with SessionStore(sys.argv[1]) as store:
    (pending,) = store.open_approvals()
    store.resolve_approval(pending.id, "allow-always", answer={"ok": True}, by="other")
"""

    async def scenario() -> None:
        asking = asyncio.create_task(
            ask(store, "sampling", server="llm", summary="Spend 200 tokens?")
        )
        await asyncio.sleep(0)  # ask() records the approval before its first wait
        assert [a.kind for a in store.open_approvals()] == ["sampling"]
        answering = await asyncio.create_subprocess_exec(
            sys.executable, "-c", answer, str(store.path)
        )
        done = await asking
        assert (done.state, done.decision, done.answer, done.resolved_by) == (
            "allowed",
            "allow-always",
            {"ok": True},
            "other",
        )
        assert await answering.wait() == 0
        with pytest.raises(TimeoutError):
            await ask(store, "sampling", timeout=0.3)

    asyncio.run(scenario())
    last = store.approvals(after=0)[-1]
    assert last.state == "expired" and last.resolved_by == "timeout"
    store.close()
