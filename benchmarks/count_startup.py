"""Counted figures for starting N server-everything stdio servers (CPU, not wall-clock).

::

    python benchmarks/count_startup.py [N ...]     # default 8 32

For each N and each side (``ours``: ``MCPHost.start()``; ``raw``: the SDK's ``stdio_client`` +
``initialize`` + ``list_tools`` under ``asyncio.gather``, as ``bench_host.py`` does), in a fresh
child process after one untimed warm-up round, it prints:

* this process's CPU for the round (``resource.getrusage(RUSAGE_SELF)``, user + system), and
  the garbage collections that ran in it (``gc.callbacks``, with the CPU they took);
* the servers' CPU up to the moment the last one was ready (``/proc/PID/stat`` of each child,
  read before anything is closed);
* the JSON-RPC messages written to the servers and read from them, by method (counted on
  the pipes, the same way for both sides).

No timings are asserted here; docs/performance-history.md quotes its output.
"""

from __future__ import annotations

import asyncio
import collections
import gc
import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from servers.reference import EVERYTHING, node  # noqa: E402

_TICK = os.sysconf("SC_CLK_TCK")


class Counter:
    """JSON-RPC methods seen on the servers' pipes (sent: to the servers; read: from them)."""

    def __init__(self) -> None:
        self.sent: collections.Counter[str] = collections.Counter()
        self.read: collections.Counter[str] = collections.Counter()
        self.sent_bytes = 0
        self.read_bytes = 0

    def install(self) -> None:
        import anyio._backends._asyncio as backend

        counter = self
        # Every write to a child's stdin ends in asyncio's StreamWriter.write: anyio's stream
        # (the SDK's transport) calls it, and so does our transport's PipeSender directly.
        writer, reader = asyncio.StreamWriter, backend.StreamReaderWrapper
        write, receive = writer.write, reader.receive

        def counted_write(self: Any, item: bytes) -> None:
            counter.sent_bytes += len(item)
            counter._tally(counter.sent, item)
            write(self, item)

        async def counted_receive(self: Any, max_bytes: int = 65536) -> bytes:
            data: bytes = await receive(self, max_bytes)
            counter.read_bytes += len(data)
            counter._tally(counter.read, data)
            return data

        writer.write = counted_write  # type: ignore[method-assign]
        reader.receive = counted_receive  # type: ignore[method-assign]

    @staticmethod
    def _tally(into: collections.Counter[str], data: bytes) -> None:
        for line in data.split(b"\n"):
            try:
                message = json.loads(line)
            except ValueError:
                continue  # part of a longer line, or stderr
            if isinstance(message, dict):
                into[message.get("method") or ("error" if "error" in message else "result")] += 1


def _children_cpu() -> dict[int, float]:
    """CPU seconds (user + system) of each live child of this process, from /proc."""
    me = os.getpid()
    seconds: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == me:  # ppid
            seconds[int(entry)] = (int(fields[11]) + int(fields[12])) / _TICK
    return seconds


def _self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def ours(count: int) -> dict[int, float]:
    from hermes_core.host.host import HostServer, MCPHost

    host = MCPHost(
        [
            HostServer(f"everything{i}", command=node(), args=[str(EVERYTHING), "stdio"])
            for i in range(count)
        ]
    )
    try:
        errors = await host.start()
        children = _children_cpu()
    finally:
        await host.close()
    if any(errors.values()):
        raise RuntimeError(f"our host failed to start: {errors}")
    return children


async def raw(count: int) -> dict[int, float]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=node(), args=[str(EVERYTHING), "stdio"])
    stop = asyncio.Event()
    ready = [asyncio.Event() for _ in range(count)]

    async def one(event: asyncio.Event) -> None:
        with open(os.devnull, "w") as devnull:
            try:
                async with (
                    stdio_client(params, errlog=devnull) as (read, write),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
                    await session.list_tools()
                    event.set()
                    await stop.wait()
            finally:
                event.set()

    tasks = [asyncio.create_task(one(event)) for event in ready]
    await asyncio.gather(*(event.wait() for event in ready))
    children = _children_cpu()
    stop.set()
    await asyncio.gather(*tasks)
    return children


def child(side: str, count: int) -> None:
    run = ours if side == "ours" else raw
    asyncio.run(run(1))  # warm-up: imports, node's files in the page cache
    counter = Counter()
    counter.install()
    collections_run: list[int] = [0, 0, 0]
    in_gc = [0.0, 0.0]  # when the current collection started, CPU spent collecting

    def collecting(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            in_gc[0] = _self_cpu()
        else:
            collections_run[info["generation"]] += 1
            in_gc[1] += _self_cpu() - in_gc[0]

    gc.collect()  # as bench_host.py does before each timed block
    gc.callbacks.append(collecting)
    before = _self_cpu()
    children = asyncio.run(run(count))
    used = _self_cpu() - before
    gc.callbacks.remove(collecting)
    print(
        json.dumps(
            {
                "self_cpu": used,
                "servers_cpu": sum(children.values()),
                "servers": len(children),
                "gc": collections_run,
                "gc_cpu": in_gc[1],
                "sent": dict(counter.sent),
                "read": dict(counter.read),
                "sent_bytes": counter.sent_bytes,
                "read_bytes": counter.read_bytes,
            }
        )
    )


def _report(count: int, side: str, r: dict[str, Any]) -> None:
    print(
        f"N={count:<3} {side:<5} python CPU {r['self_cpu']:.3f} s "
        f"({1000 * r['self_cpu'] / count:.1f} ms/server), servers' CPU "
        f"{r['servers_cpu']:.2f} s over {r['servers']} "
        f"({1000 * r['servers_cpu'] / max(1, r['servers']):.0f} ms/server)"
    )
    print(
        f"        garbage collections by generation {r['gc']} ({1000 * r['gc_cpu']:.0f} ms of CPU)"
    )
    print(f"        sent {r['sent']} ({r['sent_bytes']} B)")
    print(f"        read {r['read']} ({r['read_bytes']} B)")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]))
        return
    args = sys.argv[1:]
    rounds = 1
    if args[:1] == ["--rounds"]:
        rounds, args = int(args[1]), args[2:]
    counts = [int(a) for a in args] or [8, 32]
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for count in counts:
        for round_ in range(rounds):
            for side in ("ours", "raw") if round_ % 2 == 0 else ("raw", "ours"):
                out = subprocess.run(
                    [sys.executable, __file__, "--child", side, str(count)],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
                _report(count, side, json.loads(out.splitlines()[-1]))
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
