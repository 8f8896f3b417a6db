"""A fleet: three ``hermes mcp proxy --http`` replicas behind a real HAProxy (round-robin, no
sticky sessions), coordinated on a real Redis (``bus:``).  Each replica has its own
``HERMES_HOME`` (as separate machines would), the same config.yaml and the same proxy token.

What is proven: 2025-11-25 sessions served whichever replica a request lands on (30 raw-SDK
clients x 20 calls, no error); a list change heard through another replica; a 2026-07-28 held
approval answered on another replica, and never by another profile; ``kill -9`` of a replica
under load (its in-flight calls fail clearly, new calls succeed within 5 s, its held question
is never approved, an audit row for every call that returned); PostgreSQL and Redis each
restarted under load (fail closed while down, reconnect, the sessions found again); a decision
set on one replica enforced on all within 1 s; ``/healthz`` and ``/readyz`` without a token.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from support.cli import run_hermes
from support.fleet import Replica, initialize, rpc
from support.haproxy import haproxy
from support.postgres import PASSWORD, PostgresServer
from support.proxy import http_session, text_of
from support.redis_server import RedisServer, redis_server

pytestmark = [pytest.mark.process, pytest.mark.network, pytest.mark.slow]

PEEK = {"name": "mcp_up_peek", "arguments": {}}


@dataclass
class Fleet:
    redis: RedisServer
    replicas: list[Replica]
    url: str
    """HAProxy's /mcp."""
    token: str
    b_token: str
    postgres: PostgresServer
    database: str

    def audit_rows(self, tool: str) -> int:
        """Rows of *tool*'s calls in the shared audit log."""
        sql = f"SELECT count(*) FROM audit_log WHERE record LIKE '%\"{tool}\"%'"
        return int(self.postgres.admin(sql, database=self.database))


@pytest.fixture(scope="module")
def fleet(
    tmp_path_factory: pytest.TempPathFactory, postgres_server: PostgresServer
) -> Iterator[Fleet]:
    root = tmp_path_factory.mktemp("fleet")
    token, b_token = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    database = postgres_server.new_database()
    with redis_server(root / "redis") as redis:
        extra = (
            f"state:\n  url: {postgres_server.url(database)}\n"
            f"bus:\n  url: {redis.url}\n"
            "proxy:\n  profiles:\n    b:\n      servers: [up]\n      token: ${B_TOKEN}\n"
        )
        env = {"B_TOKEN": b_token, "HERMES_PG_PASSWORD": PASSWORD}
        replicas = [Replica(root / f"r{i}", token, extra, env) for i in range(3)]
        try:
            for replica in replicas:
                replica.start()
            for replica in replicas:
                replica.wait_ready()
            with haproxy(root / "lb", [r.address for r in replicas]) as url:
                yield Fleet(redis, replicas, url, token, b_token, postgres_server, database)
        finally:
            for replica in replicas:
                replica.stop()


def _get(url: str) -> tuple[int, Any]:
    import httpx2

    response = httpx2.get(url, trust_env=False, timeout=30)
    return response.status_code, response.json()


def _until(check: Any, seconds: float) -> Any:
    """*check()* until it is truthy (its value), within *seconds*; else its last value."""
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


def _call(id_: int, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": params}


def test_sessions_are_served_on_any_replica(fleet: Fleet) -> None:
    # Deterministic: a session opened on one replica, its requests sent to the others.
    r0, r1, r2 = fleet.replicas
    session = initialize(r0.url, fleet.token)
    for replica in (r1, r2, r0):
        status, _, body = rpc(replica.url, fleet.token, _call(2, PEEK), session=session)
        assert status == 200 and body["result"]["content"][0]["text"] == "peeked"
    # Health without a token, on the port of /mcp.
    assert _get(f"http://{r1.address}/healthz") == (200, {"status": "alive"})
    ready = {"status": "ready", "state": "ok", "bus": "ok"}
    assert _get(f"http://{r1.address}/readyz") == (200, ready)

    # 30 raw-SDK clients x 20 calls through HAProxy (round-robin, no stickiness): no error.
    async def client(n: int) -> int:
        async with http_session(fleet.url, fleet.token) as sdk:
            done = 0
            for _ in range(20):
                result = await sdk.call_tool("mcp_up_peek", {})
                assert not result.is_error and text_of(result) == "peeked"
                done += 1
            return done

    async def all_clients() -> list[int]:
        return await asyncio.gather(*(client(n) for n in range(30)))

    assert asyncio.run(all_clients()) == [20] * 30


def test_a_list_change_is_heard_through_another_replica(fleet: Fleet) -> None:
    r0, r1, _ = fleet.replicas
    heard = asyncio.Event()

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/tools/list_changed":
            heard.set()

    async def scenario() -> None:
        async with http_session(r0.url, fleet.token, message_handler=on_message) as listener:
            await listener.list_tools()
            async with http_session(r1.url, fleet.token) as other:
                assert text_of(await other.call_tool("mcp_modern_grow", {})) == "added"
                await asyncio.wait_for(heard.wait(), 30)

    asyncio.run(scenario())


def test_a_decision_set_on_one_replica_is_enforced_on_all_within_a_second(fleet: Fleet) -> None:
    chatter = {"name": "mcp_up_chatter", "arguments": {}}
    sessions = [(r, initialize(r.url, fleet.token)) for r in fleet.replicas]

    def refused(replica: Replica, session: str) -> bool:
        status, _, body = rpc(replica.url, fleet.token, _call(7, chatter), session=session)
        return status == 200 and body["result"].get("isError") is True

    first = [rpc(r.url, fleet.token, _call(6, chatter), session=s)[2] for r, s in sessions]
    assert not any(b["result"].get("isError") for b in first), first
    env = {**fleet.replicas[0].env, "HERMES_HOME": str(fleet.replicas[0].home)}
    try:
        done = run_hermes("mcp", "approvals", "set", "up", "chatter", "never", env=env)
        assert done.returncode == 0, done.stderr
        decided = time.monotonic()

        def enforced(replica: Replica, session: str) -> float:
            """Seconds from the decision until *replica* refused the tool (∞: not in 1 s)."""
            seen = _until(lambda: refused(replica, session), 1.0)
            return time.monotonic() - decided if seen else float("inf")

        with concurrent.futures.ThreadPoolExecutor(len(sessions)) as pool:
            delays = list(pool.map(lambda pair: enforced(*pair), sessions))
        assert max(delays) < 1.0, delays
    finally:
        done = run_hermes("mcp", "approvals", "reset", "up", "chatter", env=env)
        assert done.returncode == 0, done.stderr
    for replica, session in sessions:
        assert _until(lambda r=replica, s=session: not refused(r, s), 5.0)


@contextlib.asynccontextmanager
async def _modern(url: str, token: str) -> Any:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def decline(context: Any, params: Any) -> Any:
        raise AssertionError("the test answers by hand")

    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, trust_env=False, timeout=60) as http,
        Client(streamable_http_client(url, http_client=http), elicitation_callback=decline) as c,
    ):
        yield c.session


async def _held_note(url: str, token: str, text: str) -> tuple[str, str]:
    """A write of the untrusted server, held for its approval: ``(requestState, key)``."""
    from mcp import types

    async with _modern(url, token) as session:
        first = await session.call_tool("mcp_up_note", {"text": text}, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult) and first.request_state
        (key,) = first.input_requests
        return first.request_state, key


async def _retry(url: str, token: str, text: str, state: str, key: str) -> Any:
    """The retry's result, or the error it was answered (an ``MCPError``, returned)."""
    from mcp import types
    from mcp.shared.exceptions import MCPError

    async with _modern(url, token) as session:
        try:
            return await session.call_tool(
                "mcp_up_note",
                {"text": text},
                input_responses={key: types.ElicitResult(action="accept", content={})},
                request_state=state,
                allow_input_required=True,
            )
        except MCPError as exc:
            return exc


def test_a_held_approval_is_answered_on_another_replica_never_by_another_profile(
    fleet: Fleet,
) -> None:
    from mcp.shared.exceptions import MCPError

    r0, r1, r2 = fleet.replicas

    async def scenario() -> None:
        state, key = await _held_note(r0.url, fleet.token, "fleet")
        # Profile b (which offers the same tool) cannot answer it, on any replica.
        for replica in (r1, r0):
            refused = await _retry(replica.url, fleet.b_token, "fleet", state, key)
            assert isinstance(refused, MCPError)
            assert "unknown or expired requestState" in str(refused)
        result = await _retry(r2.url, fleet.token, "fleet", state, key)
        assert text_of(result) == "noted fleet"

    asyncio.run(scenario())
    # A 2025-11-25 session of one profile is not found under another's token.
    session = initialize(r0.url, fleet.token)
    status, _, body = rpc(r1.url, fleet.b_token, _call(3, PEEK), session=session)
    assert status == 404 and "not found" in body["error"]["message"].lower()


@dataclass
class Load:
    """Clients opening sessions through HAProxy and calling, until stopped."""

    url: str
    token: str
    ok: list[float] = field(default_factory=list)
    errors: list[tuple[float, str]] = field(default_factory=list)
    running: bool = True

    async def worker(self) -> None:
        while self.running:
            try:
                async with http_session(self.url, self.token) as sdk:
                    for _ in range(5):
                        result = await asyncio.wait_for(sdk.call_tool("mcp_up_peek", {}), 60)
                        assert text_of(result) == "peeked", text_of(result)
                        self.ok.append(time.monotonic())
            except Exception as exc:  # what the client saw: it must say what happened
                self.errors.append((time.monotonic(), _leaf(exc)))

    def since(self, moment: float) -> int:
        return sum(1 for t in self.ok if t > moment)


def _leaf(exc: BaseException) -> str:
    """The error under the task groups' wrapping, as the client's code meets it."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"


async def _wait(check: Any, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


def test_kill_9_of_a_replica_under_load(fleet: Fleet) -> None:
    from mcp.shared.exceptions import MCPError

    r0, _, victim = fleet.replicas
    load = Load(fleet.url, fleet.token)

    rows_before = fleet.audit_rows("peek")

    async def scenario() -> float:
        state, key = await _held_note(victim.url, fleet.token, "lost")
        workers = [asyncio.ensure_future(load.worker()) for _ in range(6)]
        await _wait(lambda: len(load.ok) >= 30, 120)
        killed = time.monotonic()
        await asyncio.to_thread(victim.kill)
        # New calls succeed on the others within 5 s, and go on succeeding.
        await _wait(lambda: load.since(killed + 5) >= 30, 120)
        load.running = False
        await asyncio.gather(*workers)
        # The question the dead replica held is never approved: its retry is an error.
        refused = await _retry(r0.url, fleet.token, "lost", state, key)
        assert isinstance(refused, MCPError), refused
        assert "gone: the call was not completed" in str(refused)
        return killed

    try:
        killed = asyncio.run(scenario())
        late = [text for at, text in load.errors if at > killed + 5]
        assert not late, late
        # In-flight calls failed with a clear error (the owner gone, the balancer's 502), never
        # by hanging until a timeout.
        for _, text in load.errors:
            assert not text.startswith("TimeoutError") and len(text) > 20, text
        # A row in the shared audit log for every call that returned its result.
        returned = len(load.ok)
        assert _until(lambda: fleet.audit_rows("peek") - rows_before >= returned, 10), (
            fleet.audit_rows("peek") - rows_before,
            returned,
        )
    finally:
        victim.start()
        victim.wait_ready()
        _until(lambda: _get(f"http://{victim.address}/readyz")[0] == 200, 30)


def test_redis_restarted_under_load_fails_closed_and_reconnects(fleet: Fleet) -> None:
    r0, r1, _ = fleet.replicas
    session = initialize(r0.url, fleet.token)
    load = Load(fleet.url, fleet.token)

    async def scenario() -> None:
        workers = [asyncio.ensure_future(load.worker()) for _ in range(3)]
        await _wait(lambda: len(load.ok) >= 10, 120)
        await asyncio.to_thread(fleet.redis.stop)
        # While the bus is down: not ready, and a session owned elsewhere is not guessed at.
        down = await asyncio.to_thread(
            _until, lambda: _get(f"http://{r1.address}/readyz")[0] == 503, 30
        )
        assert down
        status, _, body = await asyncio.to_thread(
            rpc, r1.url, fleet.token, _call(4, PEEK), session=session
        )
        assert status == 503 and "bus is unreachable" in body["error"]["message"]
        await asyncio.to_thread(fleet.redis.start)
        back = time.monotonic()
        ready = await asyncio.to_thread(
            _until, lambda: _get(f"http://{r1.address}/readyz")[0] == 200, 30
        )
        assert ready
        await _wait(lambda: load.since(back + 5) >= 10, 120)
        load.running = False
        await asyncio.gather(*workers)

    asyncio.run(scenario())
    # The sessions were claimed again when the bus came back: found on another replica.
    served = _until(lambda: rpc(r1.url, fleet.token, _call(5, PEEK), session=session)[0] == 200, 10)
    assert served


def test_postgres_restarted_under_load_fails_closed_and_reconnects(fleet: Fleet) -> None:
    r0 = fleet.replicas[0]
    session = initialize(r0.url, fleet.token)
    rows_before = fleet.audit_rows("peek")
    load = Load(fleet.url, fleet.token)

    def peek() -> dict[str, Any]:
        return rpc(r0.url, fleet.token, _call(8, PEEK), session=session)[2]["result"]

    async def scenario() -> None:
        workers = [asyncio.ensure_future(load.worker()) for _ in range(3)]
        await _wait(lambda: len(load.ok) >= 10, 120)
        await asyncio.to_thread(fleet.postgres.stop)
        try:
            # While the store is down: the untrusted server's tools are held back (no pin or
            # decision can be read, so none is skipped), and the replica is not ready.
            closed = await asyncio.to_thread(_until, lambda: peek().get("isError"), 15)
            assert closed and "trust state cannot be read" in str(peek()), peek()
            status, body = _get(f"http://{r0.address}/readyz")
            assert status == 503 and body["state"] == "unreachable", body
        finally:
            await asyncio.to_thread(fleet.postgres.start)
        back = time.monotonic()
        reopened = await asyncio.to_thread(_until, lambda: not peek().get("isError"), 30)
        assert reopened, peek()
        await _wait(lambda: load.since(back + 5) >= 10, 120)
        load.running = False
        await asyncio.gather(*workers)

    asyncio.run(scenario())
    # The rows of the calls that returned while it was down were written once it came back.
    returned = len(load.ok)
    assert _until(lambda: fleet.audit_rows("peek") - rows_before >= returned, 15)


def test_state_without_a_bus_says_sessions_need_sticky_routing(
    fleet: Fleet, tmp_path: Path
) -> None:
    extra = f"state:\n  url: {fleet.postgres.url(fleet.database)}\n"
    alone = Replica(tmp_path / "alone", fleet.token, extra, {"HERMES_PG_PASSWORD": PASSWORD})
    alone.start()
    try:
        alone.wait_ready()
        assert _until(lambda: "sticky routing" in alone.stderr(), 30), alone.stderr()
        assert "fleet bus" not in alone.stderr()
        assert _get(f"http://{alone.address}/readyz") == (200, {"status": "ready", "state": "ok"})
    finally:
        alone.stop()
