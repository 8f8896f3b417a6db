"""``state:``: the durable state on a real PostgreSQL (Debian's package, started by the
``postgres_server`` fixture) — the config key, each store, two homes sharing one database,
the schema created by replicas at once, the database restarted under a host (fail closed,
audit rows kept), ``hermes state migrate`` and the commands through the real ``hermes``.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.auth import OAuthToken

from hermes_core.auth.pg_tokens import _LOCK_SPACE as _SPACE
from hermes_core.auth.pg_tokens import PgTokenBackend
from hermes_core.auth.storage import TokenStorage
from hermes_core.config.errors import ConfigError
from hermes_core.config.loader import parse_config_text
from hermes_core.config.state import StateConfig
from hermes_core.host.calls.audit import AuditInterceptor
from hermes_core.host.calls.audit_pg import PgAuditSink, read_audit_rows
from hermes_core.host.server_spec import HostServer
from hermes_core.host.setup.factory import HostFactory
from hermes_core.host.trust.decisions import Decision
from hermes_core.host.trust.pg_store import PgTrustStore
from hermes_core.host.trust.screen import RefusalKind, TrustScreen
from hermes_core.host.trust.store import Acceptance, TrustStore, TrustStoreError
from hermes_core.offers.elicitation import ElicitationAnswer, ElicitationRequest
from hermes_core.pgstate import Database, StateUnavailable, database_at, database_for
from hermes_core.pgstate.schema import SCHEMA_VERSION
from hermes_core.sessions import ApprovalError, StoreElicitor
from hermes_core.sessions.approvals import POLL_INTERVAL
from hermes_core.sessions.shared import session_store
from support.cli import run_hermes
from support.postgres import PASSWORD, PostgresServer

SERVER = Path(__file__).resolve().parents[1] / "servers" / "shifting_server.py"
PW_ENV = {"HERMES_PG_PASSWORD": PASSWORD}


_opened: list[Database] = []


@pytest.fixture(autouse=True)
def _close_databases() -> Iterator[None]:
    yield
    while _opened:
        _opened.pop().close()


def _db(server: PostgresServer, name: str | None = None) -> Database:
    """A fresh :class:`Database` object (its own connections) on *name* (default: new),
    closed after the test."""
    url = server.url(name or server.new_database(), password=PASSWORD)
    db = Database(lambda: (url, (PASSWORD,)), "test")
    _opened.append(db)
    return db


def _tool(name: str, description: str) -> dict[str, Any]:
    return {"name": name, "description": description, "inputSchema": {"type": "object"}}


# -- the config key ---------------------------------------------------------------------------
def test_the_state_key_takes_a_postgres_url_whose_password_is_a_variable() -> None:
    good = parse_config_text("state:\n  url: postgresql://h:${PW}@db:5432/hermes\n", "c.yaml")
    assert good.config.state is not None
    assert "${PW}" not in repr(good.config) and "***@db:5432" in repr(good.config)
    cases = [
        ("state:\n  url: postgresql://h:s3cr3t-literal@db/hermes\n", "must be a ${VAR}", 2),
        ("state:\n  url: postgresql://db/hermes?password=s3cr3t-literal\n", "a ${VAR}", 2),
        ("state:\n  url: mysql://db/hermes\n", "must be a postgresql:// URL", 2),
        ("state:\n  url: postgresql://db/h\n  pool: 4\n", "unknown key", 3),
        ("state:\n  uri: postgresql://db/h\n", "unknown key", 2),
        ("state: postgresql://db/h\n", "must be a mapping", 1),
    ]
    for text, expected, line in cases:
        with pytest.raises(ConfigError) as caught:
            parse_config_text(text, "c.yaml")
        message = str(caught.value)
        assert expected in message and "s3cr3t-literal" not in message, message
        assert message.startswith(f"c.yaml:{line}: state"), message


def test_without_state_the_files_under_the_home_hold_everything(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("mcp_servers: {}\n")
    factory = HostFactory()
    loaded = factory.load_config(tmp_path / "config.yaml")
    assert factory.state_database(loaded) is None
    assert isinstance(factory.trust_store(), TrustStore)
    after = factory.interceptor_table(loaded, env={"HERMES_HOME": str(tmp_path)})["audit"].after
    audit = getattr(after, "__self__", None)
    assert isinstance(audit, AuditInterceptor) and audit.sink is None


# -- the stores on PostgreSQL -------------------------------------------------------------------
@pytest.mark.network
def test_two_hosts_share_decisions_pins_and_changes(postgres_server: PostgresServer) -> None:
    name = postgres_server.new_database()
    one, two = PgTrustStore(_db(postgres_server, name)), PgTrustStore(_db(postgres_server, name))
    assert two.changed() is False  # the first look
    one.decide("files", "read-file", Decision.NEVER)
    assert two.changed() is True and two.changed() is False
    assert two.decisions() == {"files": {"read-file": Decision.NEVER}}
    two.decide("files", "read_file", Decision.ALWAYS)  # the same name as the agent sees it
    assert one.decisions("files") == {"files": {"read_file": Decision.ALWAYS}}
    assert one.reset("files") == 1 and two.decisions() == {}

    one.pin("files", "id-1", [("read", "a" * 64, _tool("read", "Read."))])
    two.pin("files", "id-1", [("read", "b" * 64, _tool("read", "Other."))])  # the first wins
    assert two.digests("files") == {"read": "a" * 64}
    assert one.pins("files")["read"].definition == _tool("read", "Read.")
    two.record_changes("files", [("read", "c" * 64, _tool("read", "Changed."))])
    assert set(one.changes()["files"]) == {"read"} and one.waiting("files") == {"read"}
    assert one.accept("files", "read", "d" * 12) is Acceptance.CHANGED_AGAIN
    assert one.accept("files", "read", "c" * 12) is Acceptance.ACCEPTED
    assert two.digests("files") == {"read": "c" * 64} and two.waiting("files") == set()
    two.pin("files", "id-2", [("write", "e" * 64, _tool("write", "W."))])  # elsewhere now
    assert one.identity("files") == "id-2" and one.digests("files") == {"write": "e" * 64}
    assert "hermes:" not in repr(one) and PASSWORD not in repr(one)


@pytest.mark.network
def test_replicas_starting_at_once_create_the_schema_once(
    postgres_server: PostgresServer,
) -> None:
    name = postgres_server.new_database()
    barrier = threading.Barrier(6)
    failures: list[BaseException] = []

    def start() -> None:
        db = _db(postgres_server, name)
        barrier.wait(timeout=60)
        try:
            db.run(lambda conn: conn.execute("SELECT count(*) FROM trust_pins").fetchone())
        except BaseException as exc:
            failures.append(exc)
        finally:
            db.close()

    threads = [threading.Thread(target=start) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert failures == []
    versions = postgres_server.admin("SELECT version FROM hermes_schema", database=name)
    assert versions == str(SCHEMA_VERSION)
    owner = postgres_server.admin(
        "SELECT tableowner FROM pg_tables WHERE tablename = 'audit_log'", database=name
    )
    assert owner == "hermes"  # created by the plain role that owns the database


@pytest.mark.network
def test_audit_rows_are_batched_and_a_full_buffer_is_counted(
    postgres_server: PostgresServer,
) -> None:
    db = _db(postgres_server)
    sink = PgAuditSink(db)
    for index in range(1200):
        sink.add({"time": "2026-12-06T00:00:00.000Z", "server": "s", "tool": f"t{index}"})
    assert sink.flush(60)
    rows = list(read_audit_rows(db, server="s"))
    assert [row["tool"] for row in rows] == [f"t{index}" for index in range(1200)]
    sink.close()

    nowhere = database_at(f"postgresql://hermes:x@127.0.0.1:{_closed_port()}/none")
    full = PgAuditSink(nowhere, max_buffered=3)
    for index in range(5):
        full.add({"server": "s", "tool": f"t{index}"})
    assert full.dropped == 2 and full.waiting == 3
    assert full.flush(0.2) is False
    full.close(0.2)


def test_the_rows_of_a_write_in_progress_count_against_the_bound() -> None:
    """A database that takes the connection and never answers holds the writer in its write
    (up to the connect timeout): the row it took still counts, so the bound holds."""
    import socket
    import time

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        nowhere = database_at(f"postgresql://hermes:x@127.0.0.1:{port}/none")
        held = PgAuditSink(nowhere, max_buffered=3)
        held.add({"server": "s", "tool": "first"})
        deadline = time.monotonic() + 10
        while held._writing != 1:  # the writer took it and waits for the database
            assert time.monotonic() < deadline, "the writer never took the row"
            time.sleep(0.01)
        for index in range(4):
            held.add({"server": "s", "tool": f"t{index}"})
        assert (held.dropped, held.waiting) == (2, 3)
        held.close(0.2)


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.network
def test_a_question_asked_in_one_home_is_answered_from_another(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    name = postgres_server.new_database()
    asking = session_store(_db(postgres_server, name), tmp_path / "one.db")
    answering = session_store(_db(postgres_server, name), tmp_path / "two.db")
    request = ElicitationRequest("files", "May write run?", (), {}, kind="approval", remember=True)

    async def scenario() -> ElicitationAnswer:
        probe = answering.change_probe()
        asked = asyncio.create_task(StoreElicitor(asking)(request))
        while not (waiting := answering.open_approvals()):  # each look waits for a write
            while not probe.changed():
                await asyncio.sleep(POLL_INTERVAL)
        assert [q.summary for q in waiting] == ["May write run?"]
        answering.resolve_approval(waiting[0].id, "allow-always", by="other replica")
        with pytest.raises(ApprovalError, match="no longer open"):
            answering.resolve_approval(waiting[0].id, "deny")  # answered once, never twice
        return await asyncio.wait_for(asked, 60)

    answer = asyncio.run(scenario())
    assert answer.action == "accept" and answer.content == {"remember": "always"}
    assert answering.open_approvals() == [] and not (tmp_path / "two.db").read_bytes().count(
        b"May write run?"
    )
    asking.close()
    answering.close()


@pytest.mark.network
def test_oauth_tokens_are_shared_and_refreshed_by_one_replica_at_a_time(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    name = postgres_server.new_database()
    url = "https://mcp.example.com/mcp"
    one = TokenStorage(
        tmp_path / "one", "remote", server_url=url,
        backend=PgTokenBackend(_db(postgres_server, name), "remote"),
    )  # fmt: skip
    two = TokenStorage(
        tmp_path / "two", "remote", server_url=url,
        backend=PgTokenBackend(_db(postgres_server, name), "remote"),
    )  # fmt: skip
    order: list[str] = []
    probe = _db(postgres_server, name)
    key = zlib.crc32(b"remote")

    def taken_elsewhere() -> bool:
        """Whether a third connection finds the refresh lock held (it takes it if free)."""
        row = probe.run(
            lambda c: c.execute("SELECT pg_try_advisory_lock(%s, %s)", (_SPACE, key)).fetchone()
        )
        if row is not None and row[0]:
            probe.run(lambda c: c.execute("SELECT pg_advisory_unlock(%s, %s)", (_SPACE, key)))
            return False
        return True

    async def refresh(storage: TokenStorage, who: str, token: str) -> None:
        async with storage.refresh_lock():
            order.append(f"{who} in")
            storage.reload_if_changed()
            await storage.set_tokens(OAuthToken(access_token=token, expires_in=3600))
            assert await asyncio.to_thread(taken_elsewhere)
            order.append(f"{who} out")

    async def scenario() -> None:
        await asyncio.gather(refresh(one, "one", "access-1"), refresh(two, "two", "access-2"))

    asyncio.run(scenario())
    assert order in (["one in", "one out", "two in", "two out"],
                     ["two in", "two out", "one in", "one out"])  # fmt: skip
    last = "access-2" if order[-1] == "two out" else "access-1"
    for storage in (one, two):
        storage.reload_if_changed()
        assert storage.has_tokens
        assert asyncio.run(storage.get_tokens()).access_token == last  # type: ignore[union-attr]
    assert not taken_elsewhere()  # released
    assert not (tmp_path / "one" / "mcp-tokens").exists()  # nothing in the files
    assert "access" not in repr(one) and PASSWORD not in repr(one)


# -- the commands, two homes, one database -----------------------------------------------------
def _home(path: Path, url: str, *, state: bool = True) -> dict[str, str]:
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.yaml").write_text(
        "mcp_servers:\n  shift:\n"
        f"    command: {json.dumps(sys.executable)}\n    args: [{json.dumps(str(SERVER))}]\n"
        + (f"state:\n  url: {url}\n" if state else "")
    )
    (path / ".env").write_text(f"HERMES_PG_PASSWORD={PASSWORD}\n")
    return {"HERMES_HOME": str(path), "HERMES_WARM": "0"}


@pytest.mark.process
@pytest.mark.network
@pytest.mark.cli
@pytest.mark.slow
def test_every_command_of_two_homes_reads_and_writes_the_shared_state(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    url = postgres_server.url(postgres_server.new_database())
    one, two = _home(tmp_path / "one", url), _home(tmp_path / "two", url)

    def hermes(env: dict[str, str], *args: str) -> Any:
        done = run_hermes(*args, env=env)
        assert PASSWORD not in done.stdout + done.stderr
        return done

    for env in (one, two):
        ran = hermes(env, "mcp", "call", "--json", "mcp_shift_look", "--args", "{}")
        assert ran.returncode == 0, ran.stderr
    decided = hermes(one, "mcp", "approvals", "set", "shift", "look", "never")
    assert decided.returncode == 0, decided.stderr
    listed = hermes(two, "mcp", "approvals", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert "never" in listed.stdout and "look" in listed.stdout
    blocked = hermes(two, "mcp", "call", "--json", "mcp_shift_look", "--args", "{}")
    assert blocked.returncode == 1 and json.loads(blocked.stdout)["state"] == "blocked"
    status = hermes(two, "mcp", "status")
    assert f"state: postgresql://***@127.0.0.1:{postgres_server.port}/" in status.stdout
    assert "(reachable)" in status.stdout, status.stdout
    audit = hermes(one, "mcp", "audit", "--json")
    outcomes = [json.loads(line)["outcome"] for line in audit.stdout.splitlines()]
    assert outcomes == ["ok", "ok"], audit.stdout  # one home's call and the other's, one log
    # No file under either home holds the trust state or the audit log.
    for home in (tmp_path / "one", tmp_path / "two"):
        assert not (home / "trust.db").exists() and not (home / "logs" / "audit.jsonl").exists()

    (tmp_path / "one" / ".env").write_text("")  # the variable gone: a clear error, no secret
    broken = hermes(one, "mcp", "approvals", "list")
    assert broken.returncode == 1 and "HERMES_PG_PASSWORD" in broken.stderr, broken.stderr
    assert "Traceback" not in broken.stderr


@pytest.mark.process
@pytest.mark.network
@pytest.mark.cli
def test_migrate_copies_a_home_once(postgres_server: PostgresServer, tmp_path: Path) -> None:
    name = postgres_server.new_database()
    env = _home(tmp_path / "old", "", state=False)
    store = TrustStore.at_home(tmp_path / "old")
    store.decide("shift", "write", Decision.ALWAYS)
    store.pin("shift", "id", [("look", "f" * 64, _tool("look", "Read."))])
    store.close()
    logs = tmp_path / "old" / "logs"
    logs.mkdir()
    records = [{"time": f"2026-12-0{i}T00:00:00.000Z", "server": "shift"} for i in (1, 2)]
    (logs / "audit.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    target = postgres_server.url(name)  # ${HERMES_PG_PASSWORD}, from .env

    first = run_hermes("state", "migrate", "--to", target, "--json", env=env)
    assert first.returncode == 0, first.stderr
    added = json.loads(first.stdout)["added"]
    assert added["decisions"] == 1 and added["pins"] == 1 and added["audit"] == 2
    again = run_hermes("state", "migrate", "--to", target, "--json", env=env)
    assert not any(json.loads(again.stdout)["added"].values()), again.stdout
    assert PASSWORD not in first.stdout + again.stdout

    shared = PgTrustStore(_db(postgres_server, name))
    assert shared.decisions() == {"shift": {"write": Decision.ALWAYS}}
    assert shared.digests("shift") == {"look": "f" * 64}
    unreachable = run_hermes(
        "state", "migrate", "--to", f"postgresql://hermes:{PASSWORD}@127.0.0.1:1/x", env=env
    )
    assert unreachable.returncode == 1 and "unreachable" in unreachable.stderr
    assert PASSWORD not in unreachable.stderr and "Traceback" not in unreachable.stderr


# -- the database restarted under a host (last: it stops the session's server) ----------------
@pytest.mark.network
@pytest.mark.slow
def test_a_restart_fails_closed_while_down_and_loses_no_audit_row(
    postgres_server: PostgresServer,
) -> None:
    name = postgres_server.new_database()
    db = database_for(StateConfig(url=postgres_server.url(name)), env=PW_ENV, dotenv={})
    store = PgTrustStore(db)
    screen = TrustScreen(store)
    config = HostServer(name="files", command="x")
    tools = [_tool("read", "Read.")]
    store.decide("files", "write", Decision.NEVER)
    assert screen.screen(config, tools, live=True) == {}
    assert store.changed() is False or store.changed() is False
    sink = PgAuditSink(db)
    sink.add({"server": "files", "tool": "before"})
    assert sink.flush(30)

    postgres_server.stop()
    try:
        assert store.changed() is True  # gone: the host screens again ...
        screen.reload()
        held = screen.screen(config, tools, live=True)
        assert held["read"].kind is RefusalKind.UNREADABLE  # ... and offers nothing
        assert "when the state database answers again" in held["read"].reason
        assert PASSWORD not in held["read"].reason
        with pytest.raises(TrustStoreError) as caught:
            store.decisions()
        assert PASSWORD not in str(caught.value) and "127.0.0.1" in str(caught.value)
        assert store.changed() is False  # still down: no new change
        for index in range(3):
            sink.add({"server": "files", "tool": f"while-down-{index}"})
        assert sink.flush(0.5) is False and sink.waiting == 3
    finally:
        postgres_server.start()

    assert _until(store.changed)  # back: the host screens again and offers the tools
    screen.reload()
    assert screen.screen(config, tools, live=True) == {}
    assert store.decisions() == {"files": {"write": Decision.NEVER}}
    assert sink.flush(60)
    tools_logged = [row["tool"] for row in read_audit_rows(db)]
    assert tools_logged == ["before", "while-down-0", "while-down-1", "while-down-2"]
    assert sink.dropped == 0
    sink.close()
    with pytest.raises(StateUnavailable):
        database_at(f"postgresql://hermes:{PASSWORD}@127.0.0.1:1/x").run(lambda c: None)


def _until(check: Any) -> bool:
    """*check()* true within a bounded number of tries (each a real reconnect attempt, which
    the database's back-off spaces out)."""
    event = threading.Event()
    for _ in range(200):
        if check():
            return True
        event.wait(0.05)
    return False
