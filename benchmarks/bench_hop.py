"""The proxy's hop, measured side by side in one run against the raw SDK and fastmcp's proxy.

::

    python benchmarks/bench_hop.py                 # full run
    python benchmarks/bench_hop.py --quick         # fewer calls, for a smoke check
    python benchmarks/bench_hop.py --fastmcp-python .cache/py-servers/bin/python

* **stdio hop**: the raw ``mcp`` SDK client calling server-everything's ``echo`` directly
  (``direct``), through ``hermes mcp proxy`` (``hermes``) and, where an interpreter with
  fastmcp is given, through ``FastMCP.as_proxy`` (``fastmcp``), in alternating blocks whose
  order rotates; the figure is each side's median seconds per call over the direct call's.
  Beside them: the proxy on asyncio's own loop (``hermes-asyncio``; the default is uvloop
  where installed), the floor of any extra hop (``relay``: two threads copying bytes), of
  one on an event loop (``relay-uvloop``: uvloop protocols handing bytes across) and of a
  Python proxy that parses and writes anew what it forwards (``parse-relay``: no check at all).
  Goal: hermes ≤ 1.35×.  The proxies' own CPU time per call is reported beside it, and the
  client's (this process's thread): a proxy that shares the machine's CPUs with its client
  slows the client down too.
* **HTTP, 32 clients at once**: 32 raw SDK clients, each with its own session, call ``echo``
  through ``hermes mcp proxy --http`` and through fastmcp's proxy over Streamable HTTP, the
  two proxies taking turns; the figure is each proxy process's CPU time (from
  ``/proc/PID/schedstat``; its server's process not counted) per call, and every call's
  latency (p50, p99).
  Goal: hermes ≤ 0.5× fastmcp, no error.

The machine's load average is printed before and after: compare only ratios of one run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_proxy import ECHO, env_for, sdk_stdio, write_home  # noqa: E402

from servers.net import free_port, wait_for_port  # noqa: E402
from servers.reference import EVERYTHING, node  # noqa: E402

FASTMCP_PROXY = """
import sys
from fastmcp import FastMCP
config = {"mcpServers": {"everything": {"command": sys.argv[1], "args": [sys.argv[2], "stdio"]}}}
if hasattr(FastMCP, "as_proxy"):
    proxy = FastMCP.as_proxy(config, name="proxy")
else:
    from fastmcp.server import create_proxy
    proxy = create_proxy(config, name="proxy")
if len(sys.argv) > 3:
    proxy.run(transport="http", host="127.0.0.1", port=int(sys.argv[3]), show_banner=False,
              log_level="warning")
else:
    proxy.run(show_banner=False)
"""
CLIENTS = 32
#: The two relays' start: the server as a child, and the two pipes they write to.
_PIPES = """
async def pipes():
    loop = asyncio.get_running_loop()
    child = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    out, _ = await loop.connect_write_pipe(asyncio.Protocol, os.fdopen(1, "wb", buffering=0))
    into, _ = await loop.connect_write_pipe(asyncio.Protocol, child.stdin)
    return loop, child, out, into
"""
#: The floor of one extra hop on an event loop: uvloop protocols handing each piece read on one
#: side to the other side's transport (no parsing, no task): what any proxy that waits on an
#: event loop costs at least (``relay`` below is the floor of any process at all).
LOOP_RELAY = (
    """
import asyncio, os, subprocess, sys, uvloop
class Forward(asyncio.Protocol):
    def __init__(self, target): self.target = target
    def data_received(self, data): self.target.write(data)
    def eof_received(self): os._exit(0)
"""
    + _PIPES
    + """
async def main():
    loop, child, out, into = await pipes()
    await loop.connect_read_pipe(lambda: Forward(out), child.stdout)
    await loop.connect_read_pipe(lambda: Forward(into), os.fdopen(0, "rb", buffering=0))
    await asyncio.Event().wait()
uvloop.run(main())
"""
)
#: The floor of a Python proxy that reads what it forwards: every message parsed and written
#: anew with pydantic-core (a request's id replaced by one of the proxy's own and put back on
#: its answer, as a proxy must), on uvloop protocols, with no check at all.  What is between it
#: and ``relay-uvloop`` is parsing; between it and ``hermes``, ours (the lane and the pipeline).
PARSE_RELAY = (
    """
import asyncio, itertools, os, subprocess, sys, uvloop
from pydantic_core import from_json, to_json
class Lines(asyncio.Protocol):
    def __init__(self, handle): self.handle, self.rest = handle, b""
    def data_received(self, data):
        *lines, self.rest = (self.rest + data).split(b"\\n")
        for line in lines: self.handle(from_json(line))
    def eof_received(self): os._exit(0)
"""
    + _PIPES
    + """
async def main():
    loop, child, out, into = await pipes()
    ours, theirs = itertools.count(), {}
    def down(message):
        if "method" in message and "id" in message:
            key = f"p{next(ours)}"
            theirs[key], message["id"] = message["id"], key
        into.write(to_json(message) + b"\\n")
    def up(message):
        if "method" not in message and message.get("id") in theirs:
            message["id"] = theirs.pop(message["id"])
        out.write(to_json(message) + b"\\n")
    await loop.connect_read_pipe(lambda: Lines(up), child.stdout)
    await loop.connect_read_pipe(lambda: Lines(down), os.fdopen(0, "rb", buffering=0))
    await asyncio.Event().wait()
uvloop.run(main())
"""
)
#: The floor of one extra hop: a relay that copies bytes both ways with blocking reads and
#: writes in two threads (no parsing, no event loop): what any proxy process costs at least.
RELAY = """
import os, subprocess, sys, threading
child = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
def pump(source, target):
    while chunk := os.read(source, 65536):
        os.write(target, chunk)
    os.close(target)
threading.Thread(target=pump, args=(child.stdout.fileno(), 1), daemon=True).start()
pump(0, child.stdin.fileno())
child.wait()
"""


def cpu_seconds(pid: int) -> float:
    """CPU seconds process *pid*'s threads have run (``/proc/PID/schedstat``, nanoseconds;
    its children not counted)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            total += int((task / "schedstat").read_text().split()[0])
    return total / 1e9


def child_pid(marker: str, *, besides: tuple[int, ...] = ()) -> int:
    """This process's child whose command line contains *marker* (not one of *besides*)."""
    me = str(os.getpid())
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in besides:
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[1] == me and marker in cmdline:
            return int(entry.name)
    raise RuntimeError(f"no child running {marker!r}")


class Side(NamedTuple):
    """One side's figures: median seconds per call over the blocks, its proxy's CPU seconds per
    call (0 without one) and this process's, the client's, CPU seconds per call."""

    seconds: float
    proxy_cpu: float
    client_cpu: float


async def timed_blocks(
    sides: dict[str, Callable[[], Awaitable[Any]]],
    pids: dict[str, int],
    rounds: int,
    block: int,
) -> dict[str, Side]:
    """Each side's :class:`Side` over alternating blocks (who goes first rotates)."""
    for call in sides.values():
        for _ in range(block):
            await call()
    medians: dict[str, list[float]] = {side: [] for side in sides}
    cpu: dict[str, float] = dict.fromkeys(sides, 0.0)
    client: dict[str, float] = dict.fromkeys(sides, 0.0)
    names = list(sides)
    for r in range(rounds):
        for side in names[r % len(names) :] + names[: r % len(names)]:
            pid = pids.get(side)
            before = cpu_seconds(pid) if pid else 0.0
            times = []
            mine = time.thread_time()
            for _ in range(block):
                t0 = time.perf_counter()
                await sides[side]()
                times.append(time.perf_counter() - t0)
            client[side] += time.thread_time() - mine
            cpu[side] += (cpu_seconds(pid) - before) if pid else 0.0
            medians[side].append(statistics.median(times))
    calls = rounds * block
    return {
        side: Side(statistics.median(medians[side]), cpu[side] / calls, client[side] / calls)
        for side in sides
    }


async def stdio_hop(
    home: Path, fastmcp_python: str | None, rounds: int, block: int
) -> dict[str, Side]:
    env = env_for(home)
    plain = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    async with contextlib.AsyncExitStack() as stack:
        direct = await stack.enter_async_context(
            sdk_stdio(node(), [str(EVERYTHING), "stdio"], plain)
        )
        hermes = await stack.enter_async_context(
            sdk_stdio(sys.executable, ["-m", "hermes_core", "mcp", "proxy"], env)
        )

        async def call_direct() -> Any:
            return await direct.call_tool("echo", ECHO)

        async def call_hermes() -> Any:
            got = await hermes.call_tool("mcp_everything_echo", ECHO)
            assert got.content[0].text == "Echo: ping", got

        sides: dict[str, Callable[[], Awaitable[Any]]] = {
            "direct": call_direct,
            "hermes": call_hermes,
        }
        pids = {"hermes": child_pid("hermes_core mcp proxy")}
        # The same proxy on asyncio's own loop (the default is uvloop where installed).
        on_asyncio = await stack.enter_async_context(
            sdk_stdio(
                sys.executable,
                ["-m", "hermes_core", "mcp", "proxy"],
                {**env, "HERMES_EVENT_LOOP": "asyncio"},
            )
        )

        async def call_on_asyncio() -> Any:
            got = await on_asyncio.call_tool("mcp_everything_echo", ECHO)
            assert got.content[0].text == "Echo: ping", got

        sides["hermes-asyncio"] = call_on_asyncio
        pids["hermes-asyncio"] = child_pid("hermes_core mcp proxy", besides=(pids["hermes"],))
        for side, script, marker in (
            ("relay", RELAY, "import os, subprocess, sys, threading"),
            ("relay-uvloop", LOOP_RELAY, "import asyncio, os, subprocess, sys, uvloop"),
            ("parse-relay", PARSE_RELAY, "import asyncio, itertools, os, subprocess"),
        ):
            relay = await stack.enter_async_context(
                sdk_stdio(sys.executable, ["-c", script, node(), str(EVERYTHING), "stdio"], plain)
            )
            sides[side] = functools.partial(relay.call_tool, "echo", ECHO)
            pids[side] = child_pid(marker)
        if fastmcp_python:
            fast = await stack.enter_async_context(
                sdk_stdio(fastmcp_python, ["-c", FASTMCP_PROXY, node(), str(EVERYTHING)], plain)
            )
            names = {t.name for t in (await fast.list_tools()).tools}
            tool = "echo" if "echo" in names else next(n for n in names if n.endswith("echo"))

            async def call_fastmcp() -> Any:
                return await fast.call_tool(tool, ECHO)

            sides["fastmcp"] = call_fastmcp
            pids["fastmcp"] = child_pid("from fastmcp import FastMCP")
        return await timed_blocks(sides, pids, rounds, block)


@contextlib.asynccontextmanager
async def http_sessions(url: str, token: str | None, count: int) -> AsyncIterator[list[Any]]:
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with contextlib.AsyncExitStack() as stack:
        sessions = []
        for _ in range(count):
            http = await stack.enter_async_context(
                httpx2.AsyncClient(headers=headers, trust_env=False, timeout=120)
            )
            read, write = await stack.enter_async_context(
                streamable_http_client(url, http_client=http)
            )
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            sessions.append(session)
        yield sessions


async def burst(sessions: list[Any], tool: str, calls: int, latencies: list[float]) -> int:
    """Every session makes *calls* calls one after another, all sessions at once; errors."""

    async def client(session: Any) -> int:
        errors = 0
        for _ in range(calls):
            t0 = time.perf_counter()
            try:
                got = await session.call_tool(tool, ECHO)
                ok = not got.is_error and "Echo: ping" in got.content[0].text
            except Exception:  # noqa: BLE001 - counted
                ok = False
            latencies.append(time.perf_counter() - t0)
            errors += not ok
        return errors

    return sum(await asyncio.gather(*(client(s) for s in sessions)))


async def http_crowd(
    home: Path, fastmcp_python: str | None, rounds: int, calls: int
) -> dict[str, dict[str, float]]:
    procs: list[subprocess.Popen[bytes]] = []
    try:
        port = free_port()
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "hermes_core", "mcp", "proxy", "--http", str(port)],
                env=env_for(home),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        wait_for_port(port, 120)
        token = (home / "proxy-token").read_text().strip()
        targets = {"hermes": (procs[0].pid, f"http://127.0.0.1:{port}/mcp", token)}
        if fastmcp_python:
            fport = free_port()
            plain = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            argv = [fastmcp_python, "-c", FASTMCP_PROXY, node(), str(EVERYTHING), str(fport)]
            procs.append(
                subprocess.Popen(
                    argv, env=plain, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                )
            )
            wait_for_port(fport, 120)
            targets["fastmcp"] = (procs[1].pid, f"http://127.0.0.1:{fport}/mcp", None)
        async with contextlib.AsyncExitStack() as stack:
            crowds = {}
            for side, (_pid, url, tok) in targets.items():
                sessions = await stack.enter_async_context(http_sessions(url, tok, CLIENTS))
                names = {t.name for t in (await sessions[0].list_tools()).tools}
                tool = next(n for n in sorted(names) if n.endswith("echo"))
                await burst(sessions, tool, 2, [])  # warm-up
                crowds[side] = (sessions, tool)
            cpu = dict.fromkeys(targets, 0.0)
            errors = dict.fromkeys(targets, 0)
            latencies: dict[str, list[float]] = {side: [] for side in targets}
            names = list(targets)
            for r in range(rounds):
                for side in names[r % len(names) :] + names[: r % len(names)]:
                    pid = targets[side][0]
                    sessions, tool = crowds[side]
                    before = cpu_seconds(pid)
                    errors[side] += await burst(sessions, tool, calls, latencies[side])
                    cpu[side] += cpu_seconds(pid) - before
        total = rounds * calls * CLIENTS
        out = {}
        for side in targets:
            ordered = sorted(latencies[side])
            out[side] = {
                "cpu": cpu[side] / total,
                "errors": errors[side],
                "p50": ordered[len(ordered) // 2],
                "p99": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
            }
        return out
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--fastmcp-python", default=None, help="an interpreter with fastmcp")
    parser.add_argument("--only", choices=("stdio", "http"), default=None)
    args = parser.parse_args()
    rounds, block, http_rounds, http_calls = (4, 25, 2, 5) if args.quick else (12, 50, 6, 10)
    with tempfile.TemporaryDirectory(prefix="hermes-bench-hop-") as tmp:
        home = Path(tmp) / "home"
        write_home(home)
        print(f"load average before: {os.getloadavg()}", flush=True)
        hop = crowd = None
        if args.only != "http":
            hop = asyncio.run(stdio_hop(home, args.fastmcp_python, rounds, block))
        if args.only != "stdio":
            crowd = asyncio.run(http_crowd(home, args.fastmcp_python, http_rounds, http_calls))
        print(f"load average after:  {os.getloadavg()}")
    if hop is not None:
        base = hop["direct"].seconds
        for side, (seconds, cpu, client) in hop.items():
            extra = f", proxy CPU {cpu * 1e3:.3f} ms a call" if cpu else ""
            extra += f", client CPU {client * 1e3:.3f} ms a call"
            goal = ""
            if side == "hermes":
                goal = "  goal <= 1.35x  " + ("PASS" if seconds / base <= 1.35 else "MISS")
            print(
                f"stdio {side:<14} {seconds * 1e3:.3f} ms a call = {seconds / base:.2f}x "
                f"direct{extra}{goal}"
            )
    if crowd is not None:
        for side, figures in crowd.items():
            print(
                f"HTTP {CLIENTS} clients, {side:<8} CPU {figures['cpu'] * 1e3:.3f} ms a call, "
                f"p50 {figures['p50'] * 1e3:.1f} ms, p99 {figures['p99'] * 1e3:.1f} ms, "
                f"{figures['errors']} errors"
            )
        if "fastmcp" in crowd:
            ratio = crowd["hermes"]["cpu"] / crowd["fastmcp"]["cpu"]
            ok = ratio <= 0.5 and crowd["hermes"]["errors"] == 0
            print(
                f"HTTP CPU a call, hermes / fastmcp = {ratio:.2f}x  goal <= 0.5x  "
                + ("PASS" if ok else "MISS")
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
