"""A fleet of ``hermes mcp proxy --http`` replicas, measured in one run.

::

    python benchmarks/bench_fleet.py            # full run
    python benchmarks/bench_fleet.py --quick    # fewer calls, for a smoke check

Everything is real and started here on loopback: PostgreSQL (``state:``), Redis (``bus:``),
HAProxy (round-robin, no sticky sessions) and the replicas, each with its own
``HERMES_HOME`` and the same config.yaml (tests/support has the fixtures).

* **Through HAProxy with 1, 2 and 3 replicas**: C raw-SDK 2025-11-25 clients, each its own
  session, calling a read-only tool of a Python MCP server K times: calls/s, p50 and p99.
  On a machine with fewer cores than replicas the replicas share the cores: the figure then
  says what forwarding costs, not what more machines would give.
* **CPU per call**: one replica's own CPU time (its process, not its servers) per call, with
  ``state:`` + ``bus:`` against the same replica with the embedded default (SQLite files under
  ``$HERMES_HOME``); goal ≤ 1.15×.

Every figure comes from this run; the table says PASS/MISS per goal and the run exits 0
either way (benchmarks report, tests assert).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.fleet import Replica  # noqa: E402
from support.haproxy import haproxy  # noqa: E402
from support.postgres import PASSWORD, PostgresServer  # noqa: E402
from support.proxy import http_session  # noqa: E402
from support.redis_server import redis_server  # noqa: E402

TOOL = "mcp_up_peek"
GOAL_CPU = 1.15


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process *pid* (not its children)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def drive(url: str, token: str, clients: int, calls: int) -> tuple[float, list[float]]:
    """*clients* sessions on *url* (opened first, not timed), *calls* calls each, all at
    once: (seconds, each call's latency)."""
    latencies: list[float] = []

    async def client(session: Any) -> None:
        for _ in range(calls):
            started = time.perf_counter()
            result = await session.call_tool(TOOL, {})
            latencies.append(time.perf_counter() - started)
            if result.is_error:
                raise RuntimeError(f"a call failed: {result.content}")

    async with contextlib.AsyncExitStack() as stack:
        sessions = [
            await stack.enter_async_context(http_session(url, token)) for _ in range(clients)
        ]
        for session in sessions:
            await session.call_tool(TOOL, {})  # warm: each session's first call
        started = time.perf_counter()
        await asyncio.gather(*(client(s) for s in sessions))
        return time.perf_counter() - started, latencies


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@contextlib.contextmanager
def replicas(root: Path, count: int, extra: str, token: str) -> Iterator[list[Replica]]:
    env = {"HERMES_PG_PASSWORD": PASSWORD}
    started = [Replica(root / f"r{i}", token, extra, env) for i in range(count)]
    try:
        for replica in started:
            replica.start()
        for replica in started:
            replica.wait_ready()
        yield started
    finally:
        for replica in started:
            replica.stop()


def cpu_per_call(replica: Replica, token: str, calls: int) -> float:
    assert replica.process is not None
    asyncio.run(drive(replica.url, token, 4, 5))  # warm up
    before = cpu_seconds(replica.process.pid)
    asyncio.run(drive(replica.url, token, 4, calls // 4))
    return (cpu_seconds(replica.process.pid) - before) / calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls")
    args = parser.parse_args()
    clients, calls, cpu_calls = (8, 10, 200) if args.quick else (16, 40, 1200)
    token = secrets.token_urlsafe(32)
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="hbf") as tmp:
        root = Path(tmp)
        pg_folder = Path(tempfile.mkdtemp(prefix="hbfpg"))  # its own: chowned to postgres
        postgres = PostgresServer(pg_folder)
        postgres.init()
        postgres.start()
        try:
            postgres.create_role()
            with redis_server(root / "redis") as redis:
                fleet = (
                    f"state:\n  url: {postgres.url(postgres.new_database())}\n"
                    f"bus:\n  url: {redis.url}\n"
                )
                with replicas(root / "fleet", 3, fleet, token) as started:
                    for count in (1, 2, 3):
                        backends = [r.address for r in started[:count]]
                        with haproxy(root / f"lb{count}", backends) as url:
                            seconds, lat = asyncio.run(drive(url, token, clients, calls))
                        rows.append(
                            (
                                f"{count} replica(s) through HAProxy",
                                f"{len(lat) / seconds:.0f} calls/s, p50 "
                                f"{percentile(lat, 0.5) * 1000:.1f} ms, p99 "
                                f"{percentile(lat, 0.99) * 1000:.1f} ms",
                                "",
                            )
                        )
                    shared = cpu_per_call(started[0], token, cpu_calls)
                with replicas(root / "alone", 1, "", token) as (alone,):
                    embedded = cpu_per_call(alone, token, cpu_calls)
        finally:
            postgres.stop()
            shutil.rmtree(pg_folder, ignore_errors=True)
    ratio = shared / embedded
    rows.append(
        (
            "CPU per call, state:+bus: vs embedded",
            f"{shared * 1e3:.2f} ms vs {embedded * 1e3:.2f} ms = {ratio:.2f}x",
            "PASS" if ratio <= GOAL_CPU else "MISS",
        )
    )
    print(f"bench_fleet ({os.cpu_count()} CPUs, {clients} clients x {calls} calls)")
    for name, figure, verdict in rows:
        print(f"  {name:<40} {figure:<52} {verdict}")
    print(f"  (goal: CPU ratio <= {GOAL_CPU}x; p50/p99 per call through the balancer)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
