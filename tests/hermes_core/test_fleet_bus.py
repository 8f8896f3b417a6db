"""The fleet's pieces without a fleet: the ``bus:`` key, ``/healthz`` and ``/readyz`` of a
proxy without it (the embedded default), and one replica's bus on a real Redis (ownership,
notices, a fleet-wide limit, failing closed when Redis is gone)."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_core.config.errors import ConfigError
from hermes_core.config.loader import parse_config_text
from hermes_core.host.fleet.bus import FleetBus, Notice, NoticeKind, Ownership
from hermes_core.host.fleet.settings import BusSettings, load_bus_settings
from hermes_core.sampling.limiter import fleet_allows, set_fleet_limit
from hermes_core.serve.fleet.route import request_state
from hermes_core.serve.proxy.transport import TokenRouter
from support.cli import run_hermes
from support.redis_server import RedisServer, redis_server


def test_the_bus_key_takes_a_redis_url_whose_password_is_a_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert parse_config_text("mcp_servers: {}\n", "c.yaml").config.bus is None
    monkeypatch.setenv("REDIS_PW", "s3cr3t-value")
    good = parse_config_text("bus:\n  url: rediss://:${REDIS_PW}@cache:6380/0\n", "c.yaml")
    settings = load_bus_settings(good)
    assert settings is not None and settings.tls and "s3cr3t-value" in settings.url
    for shown in (repr(good.config), repr(settings), settings.shown):
        assert "s3cr3t-value" not in shown and "***@cache:6380" in shown, shown
    cases = [
        ("bus:\n  url: redis://:s3cr3t-literal@cache/0\n", "must be a ${VAR}", 2),
        ("bus:\n  url: redis://cache/0?password=s3cr3t-literal\n", "user part", 2),
        ("bus:\n  url: http://cache/0\n", "must be a redis:// URL", 2),
        ("bus:\n  url: redis://cache/0\n  channel: x\n", "unknown key", 3),
        ("bus: redis://cache/0\n", "must be a mapping", 1),
    ]
    for text, expected, line in cases:
        with pytest.raises(ConfigError) as caught:
            parse_config_text(text, "c.yaml")
        message = str(caught.value)
        assert expected in message and "s3cr3t-literal" not in message, message
        assert message.startswith(f"c.yaml:{line}: bus"), message
    unset = parse_config_text("bus:\n  url: redis://:${NOT_SET_ANYWHERE}@cache/0\n", "c.yaml")
    with pytest.raises(ConfigError, match=r"bus\.url.*NOT_SET_ANYWHERE"):
        load_bus_settings(unset)


def test_a_request_state_is_read_from_a_tools_call_only() -> None:
    call = {"jsonrpc": "2.0", "id": 4, "method": "tools/call"}
    with_state = {**call, "params": {"name": "t", "requestState": "abc"}}
    assert request_state(json.dumps(with_state).encode()) == (4, "abc")
    listing = {**with_state, "method": "tools/list"}
    for body in (json.dumps(listing).encode(), b"{not json requestState", b"[]"):
        assert request_state(body) is None


async def _asgi(app: Any, path: str, headers: list[tuple[bytes, bytes]]) -> tuple[int, Any]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": path, "headers": headers}
    await app(scope, receive, send)
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], json.loads(body)


def test_health_without_a_token_and_nothing_else_without_one() -> None:
    async def profile(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("no request without the token reaches a profile")

    router = TokenRouter({"t" * 40: profile})  # the embedded default: no state, no bus
    assert asyncio.run(_asgi(router, "/healthz", [])) == (200, {"status": "alive"})
    assert asyncio.run(_asgi(router, "/readyz", [])) == (200, {"status": "ready"})
    status, _ = asyncio.run(_asgi(router, "/mcp", []))
    assert status == 401


@pytest.fixture(scope="module")
def redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    with redis_server(tmp_path_factory.mktemp("redis")) as server:
        yield server


@pytest.mark.process
@pytest.mark.network
def test_ownership_notices_and_limits_on_a_real_redis(redis: RedisServer, tmp_path: Path) -> None:
    settings = BusSettings(redis.url, redis.url)

    async def scenario() -> None:
        one = FleetBus(settings, "127.0.0.1:1001", replica="one")
        two = FleetBus(settings, "127.0.0.1:1002", replica="two")
        heard: asyncio.Queue[Notice] = asyncio.Queue()
        two.on_notice(heard.put_nowait)
        await one.start()
        await two.start()
        try:
            while not two.listening:  # once subscribed, it re-read everything (origin "")
                await asyncio.sleep(0.01)
            while not heard.empty():
                assert heard.get_nowait().origin == ""
            await one.claim("session", "sid-1", "a", 60)
            assert (await one.owner("session", "sid-1", "a")).state is Ownership.LOCAL
            found = await two.owner("session", "sid-1", "a")
            assert found.state is Ownership.REMOTE and found.address == "127.0.0.1:1001"
            # Another profile's session is unknown: nothing learned, nothing forwarded.
            assert (await two.owner("session", "sid-1", "b")).state is Ownership.UNKNOWN
            assert (await two.owner("session", "nobody", "a")).state is Ownership.UNKNOWN
            # A change notice reaches the other replica (not its sender).
            await one.publish(NoticeKind.TRUST)
            notice = await asyncio.wait_for(heard.get(), 10)
            assert (notice.kind, notice.origin) == (NoticeKind.TRUST, "one")
            # A limit counted across replicas.
            set_fleet_limit(one.take)
            assert await fleet_allows("sampling:up", 2, 60)
            assert await two.take("sampling:up", 2, 60)
            assert not await fleet_allows("sampling:up", 2, 60)
            # A replica that stopped is gone: its sessions are not served elsewhere.
            await one.close()
            assert (await two.owner("session", "sid-1", "a")).state is Ownership.GONE
            # Redis gone: nothing is guessed, the limit fails closed, not ready.
            await asyncio.to_thread(redis.stop)
            assert (await two.owner("session", "sid-1", "a")).state is Ownership.UNREACHABLE
            assert not await two.take("sampling:other", 100, 60)
            assert not await two.reachable()
        finally:
            set_fleet_limit(None)
            await one.close()
            await two.close()
            if redis.process is None:
                await asyncio.to_thread(redis.start)

    asyncio.run(scenario())


@pytest.mark.process
@pytest.mark.cli
def test_status_names_the_bus_without_its_password(redis: RedisServer, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        f"mcp_servers: {{}}\nbus:\n  url: redis://127.0.0.1:{redis.port}/0\n"
    )
    env = {"HERMES_HOME": str(home)}
    done = run_hermes("mcp", "status", env=env)
    assert f"bus: redis://127.0.0.1:{redis.port}/0 (reachable)" in done.stdout, done.stdout
    (home / "config.yaml").write_text(
        "mcp_servers: {}\nbus:\n  url: redis://:${BUS_PW}@127.0.0.1:1/0\n"
    )
    done = run_hermes("mcp", "status", env={**env, "BUS_PW": "s3cr3t-bus-value"})
    assert "bus: redis://***@127.0.0.1:1/0 (UNREACHABLE)" in done.stdout, done.stdout
    assert "s3cr3t-bus-value" not in done.stdout + done.stderr


@pytest.mark.process
@pytest.mark.cli
def test_an_advertised_address_that_is_not_host_and_port_stops_the_replica(
    redis: RedisServer, tmp_path: Path
) -> None:
    """Other replicas forward clients' requests (their tokens too) to this address: a URL, a
    path or credentials in it are refused before the replica serves, naming the variable."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        f"mcp_servers: {{}}\nbus:\n  url: redis://127.0.0.1:{redis.port}/0\n"
    )
    with socket.socket() as probe:  # a free port (refused before anything binds it)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for bad in ("http://10.0.0.5:8101", "10.0.0.5:8101/mcp", "user@10.0.0.5", "10.0.0.5:99999"):
        done = run_hermes(
            "mcp",
            "proxy",
            "--http",
            f"127.0.0.1:{port}",
            env={"HERMES_HOME": str(home), "HERMES_ADVERTISE_ADDRESS": bad},
            timeout=120,
        )
        assert done.returncode == 2, (bad, done.stdout, done.stderr)
        assert "$HERMES_ADVERTISE_ADDRESS must be HOST or HOST:PORT" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
