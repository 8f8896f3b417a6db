"""``hermes mcp proxy`` and the warm host, measured in one run (``nox -s bench``, which
``python3 dev.py bench`` runs).

::

    python benchmarks/bench_proxy.py            # full run
    python benchmarks/bench_proxy.py --quick    # fewer calls, for a smoke check

* **Per call through the proxy**: the raw ``mcp`` SDK client calling server-everything's
  ``echo`` through ``hermes mcp proxy`` (a subprocess, stdio) against ``MCPHost.call_tool``
  on the same server directly (the host the proxy runs, built from the same config.yaml), in
  alternating blocks; goal: ≤ 1.3×.  Beside it, where
  fastmcp is installed (``nox -s bench`` installs it), the same figure for
  ``FastMCP.as_proxy`` in front of the same server (raw SDK client through it, against the raw
  SDK client on the server directly).
* **Warm vs cold CLI call**: ``hermes mcp call mcp_everything_echo`` while ``hermes mcp up``
  runs against the same command cold (it starts the server); goal: ≥ 5× faster (median).
* **50 HTTP clients at once**: 50 raw SDK clients open sessions on ``hermes mcp proxy --http``
  and call ``echo`` at once; failures counted (goal: none) and the proxy's resident set
  reported.

Every figure comes from this run; the table says PASS/MISS per goal and the run exits 0
either way (benchmarks report, tests assert).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from servers.net import free_port, wait_for_port  # noqa: E402
from servers.reference import EVERYTHING, node  # noqa: E402

ECHO = {"message": "ping"}
#: What a host's child needs of the bench's environment to run ``hermes mcp proxy``.
PASSED = ("HERMES_HOME", "PYTHONPATH")


def write_home(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(
        "mcp_servers:\n  everything:\n"
        f"    command: {node()!r}\n    args: [{str(EVERYTHING)!r}, stdio]\n"
    )


def env_for(home: Path) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    src = str(ROOT / "src")
    path = f"{src}{os.pathsep}{base['PYTHONPATH']}" if base.get("PYTHONPATH") else src
    return {**base, "HERMES_HOME": str(home), "PYTHONPATH": path}


@contextlib.asynccontextmanager
async def sdk_stdio(command: str, args: list[str], env: dict[str, str]) -> AsyncIterator[Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command, args=args, env=env)
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


async def blocks(
    sides: dict[str, Callable[[], Awaitable[Any]]], rounds: int, block: int
) -> dict[str, float]:
    """Median seconds per call of each side, over alternating blocks (who goes first rotates)."""
    for call in sides.values():
        for _ in range(block):
            await call()
    medians: dict[str, list[float]] = {side: [] for side in sides}
    names = list(sides)
    for r in range(rounds):
        for side in names[r % len(names) :] + names[: r % len(names)]:
            times = []
            for _ in range(block):
                t0 = time.perf_counter()
                await sides[side]()
                times.append(time.perf_counter() - t0)
            medians[side].append(statistics.median(times))
    return {side: statistics.median(values) for side, values in medians.items()}


def config_host(home: Path) -> Any:
    """The host ``hermes mcp proxy`` runs, built the same way from *home*'s config.yaml (the
    same call pipeline: audit log, interceptors, gates), in this process."""
    from hermes_core.cli.loading import factory_for, load

    previous = os.environ.get("HERMES_HOME")
    os.environ["HERMES_HOME"] = str(home)
    try:
        factory = factory_for(None)
        return factory.host(factory.servers(load(factory)))
    finally:
        if previous is None:
            os.environ.pop("HERMES_HOME", None)
        else:
            os.environ["HERMES_HOME"] = previous


async def per_call(home: Path, rounds: int, block: int) -> dict[str, float]:
    """Seconds per call: ``direct`` (MCPHost), ``proxy`` (the raw SDK client through the
    proxy) and, for information, ``host_proxy`` (an MCPHost whose one server is the proxy:
    the same client on both sides, so the difference is the proxy's hop alone)."""
    from hermes_core.host.host import HostServer, MCPHost

    host = config_host(home)
    await host.start()
    argv = ["-m", "hermes_core", "mcp", "proxy"]
    env = env_for(home)
    client_host = MCPHost(
        [HostServer("p", command=sys.executable, args=argv, env={k: env[k] for k in PASSED})]
    )
    await client_host.start()
    try:
        async with sdk_stdio(sys.executable, argv, env) as proxied:

            async def direct() -> Any:
                result = await host.call_tool("mcp_everything_echo", ECHO)
                assert result["content"][0]["text"] == "Echo: ping", result

            async def through() -> Any:
                result = await proxied.call_tool("mcp_everything_echo", ECHO)
                assert result.content[0].text == "Echo: ping", result

            async def host_through() -> Any:
                result = await client_host.call_tool("mcp_p_mcp_everything_echo", ECHO)
                assert result["content"][0]["text"] == "Echo: ping", result

            sides = {"direct": direct, "proxy": through, "host_proxy": host_through}
            return await blocks(sides, rounds, block)
    finally:
        await client_host.close()
        await host.close()


FASTMCP_PROXY = """
import sys
from fastmcp import FastMCP
config = {"mcpServers": {"everything": {"command": sys.argv[1], "args": [sys.argv[2], "stdio"]}}}
if hasattr(FastMCP, "as_proxy"):
    proxy = FastMCP.as_proxy(config, name="proxy")
else:  # fastmcp 3+: as_proxy became fastmcp.server.create_proxy
    from fastmcp.server import create_proxy
    proxy = create_proxy(config, name="proxy")
proxy.run(show_banner=False)
"""


def has_fastmcp(python: str) -> bool:
    done = subprocess.run([python, "-c", "import fastmcp"], capture_output=True)
    return done.returncode == 0


async def fastmcp_per_call(python: str, rounds: int, block: int) -> dict[str, float] | None:
    """*python* runs ``FastMCP.as_proxy`` (an interpreter with fastmcp; none: skipped)."""
    if not has_fastmcp(python):
        return None
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    async with (
        sdk_stdio(node(), [str(EVERYTHING), "stdio"], env) as direct_session,
        sdk_stdio(python, ["-c", FASTMCP_PROXY, node(), str(EVERYTHING)], env) as prox,
    ):
        names = {t.name for t in (await prox.list_tools()).tools}
        tool = "echo" if "echo" in names else next(n for n in names if n.endswith("echo"))

        async def direct() -> Any:
            return await direct_session.call_tool("echo", ECHO)

        async def through() -> Any:
            return await prox.call_tool(tool, ECHO)

        return await blocks({"direct": direct, "proxy": through}, rounds, block)


def cli_call(env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "hermes_core",
            "mcp",
            "call",
            "mcp_everything_echo",
            "--args",
            '{"message": "ping"}',
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    elapsed = time.perf_counter() - t0
    if done.returncode != 0 or "Echo: ping" not in done.stdout:
        raise RuntimeError(f"hermes mcp call failed: {done.stderr[-500:]}")
    return elapsed


def warm_vs_cold(home: Path, repeats: int) -> dict[str, float]:
    env = env_for(home)
    cold = [cli_call({**env, "HERMES_WARM": "0"}) for _ in range(repeats)]
    up = subprocess.run(
        [sys.executable, "-m", "hermes_core", "mcp", "up"], env=env, capture_output=True, text=True
    )
    if up.returncode != 0:
        raise RuntimeError(f"hermes mcp up failed: {up.stderr}")
    try:
        warm = [cli_call(env) for _ in range(repeats)]
    finally:
        subprocess.run(
            [sys.executable, "-m", "hermes_core", "mcp", "down"], env=env, capture_output=True
        )
    return {"cold": statistics.median(cold), "warm": statistics.median(warm)}


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def http_clients(home: Path, count: int) -> dict[str, Any]:
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hermes_core", "mcp", "proxy", "--http", str(port)],
        env=env_for(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, 120)
        token = (home / "proxy-token").read_text().strip()
        url = f"http://127.0.0.1:{port}/mcp"

        async def one() -> bool:
            try:
                headers = {"Authorization": f"Bearer {token}"}
                async with (
                    httpx2.AsyncClient(headers=headers, trust_env=False, timeout=120) as http,
                    streamable_http_client(url, http_client=http) as (read, write),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
                    result = await session.call_tool("mcp_everything_echo", ECHO)
                    return result.content[0].text == "Echo: ping"
            except Exception:  # noqa: BLE001 - a failure is counted
                return False

        t0 = time.perf_counter()
        outcomes = await asyncio.gather(*(one() for _ in range(count)))
        elapsed = time.perf_counter() - t0
        rss = _rss_kib(proc.pid)
        return {"failures": outcomes.count(False), "seconds": elapsed, "rss_mib": rss / 1024}
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--fastmcp-python",
        default=sys.executable,
        help="the interpreter that runs FastMCP.as_proxy (default: this one)",
    )
    args = parser.parse_args()
    rounds, block, repeats = (4, 20, 2) if args.quick else (10, 50, 5)
    with tempfile.TemporaryDirectory(prefix="hermes-bench-proxy-") as tmp:
        home = Path(tmp) / "home"
        write_home(home)
        print(f"load average before: {os.getloadavg()}", flush=True)
        ours = asyncio.run(per_call(home, rounds, block))
        theirs = asyncio.run(fastmcp_per_call(args.fastmcp_python, rounds, block))
        warm = warm_vs_cold(home, repeats)
        crowd = asyncio.run(http_clients(home, 50))
        print(f"load average after:  {os.getloadavg()}")
    ratio = ours["proxy"] / ours["direct"]
    hop = ours["host_proxy"] / ours["direct"]
    speedup = warm["cold"] / warm["warm"]
    rows = [
        (
            "per call, proxy vs MCPHost (stdio echo)",
            f"{ours['proxy'] * 1e3:.3f} ms vs {ours['direct'] * 1e3:.3f} ms = {ratio:.2f}x",
            "<= 1.3x",
            ratio <= 1.3,
        ),
        (
            "per call, MCPHost through the proxy vs MCPHost",
            f"{ours['host_proxy'] * 1e3:.3f} ms vs {ours['direct'] * 1e3:.3f} ms = {hop:.2f}x",
            "(the hop alone)",
            None,
        ),
    ]
    if theirs is not None:
        fast = theirs["proxy"] / theirs["direct"]
        rows.append(
            (
                "per call, FastMCP.as_proxy vs raw SDK",
                f"{theirs['proxy'] * 1e3:.3f} ms vs {theirs['direct'] * 1e3:.3f} ms = {fast:.2f}x",
                "(side by side)",
                None,
            )
        )
    else:
        rows.append(("per call, FastMCP.as_proxy", "fastmcp not installed", "(side by side)", None))
    rows += [
        (
            "hermes mcp call, warm vs cold",
            f"{warm['warm']:.3f} s vs {warm['cold']:.3f} s = {speedup:.1f}x faster",
            ">= 5x",
            speedup >= 5,
        ),
        (
            "50 HTTP clients at once",
            f"{crowd['failures']} failures in {crowd['seconds']:.2f} s; "
            f"proxy RSS {crowd['rss_mib']:.0f} MiB",
            "no failure",
            crowd["failures"] == 0,
        ),
    ]
    width = max(len(r[0]) for r in rows)
    for what, figure, goal, ok in rows:
        verdict = "" if ok is None else ("PASS" if ok else "MISS")
        print(f"{what:<{width}}  {figure}  goal {goal}  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
