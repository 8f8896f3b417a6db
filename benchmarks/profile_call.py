"""Counted figures for one ``call_tool``: function calls per call, ours against the raw SDK.

::

    python benchmarks/profile_call.py                 # stdio echo on server-everything
    python benchmarks/profile_call.py --top 25        # and the 25 functions with most extra calls
    python benchmarks/profile_call.py --http          # over Streamable HTTP
    python benchmarks/profile_call.py --at-once 200   # 200 calls at once (parallel allowed)
    python benchmarks/profile_call.py --in-flight     # objects a call keeps alive while it waits
    python benchmarks/profile_call.py --http --cpu 3000  # and CPU time per call, 3000 calls a side

Wall-clock times on a shared machine are noise; the number of Python function calls a call
makes (cProfile's ``ncalls``) is not.  Both sides call server-everything's ``echo`` *N* times
under one profiler each; the figure is calls per ``call_tool``, split into the host's own
functions (``hermes_core``) and everything else (the SDK, anyio, asyncio, pydantic).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import cProfile
import gc
import os
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from servers.reference import EVERYTHING, node  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_host import everything_http  # noqa: E402

ARGS = {"message": "ping"}
CPU_BLOCK = 25  # calls per side per round of --cpu


Counts = tuple[float, float, dict[str, float], dict[str, float]]


def counts(profile: cProfile.Profile, n: int) -> Counts:
    """Per call_tool: calls in all, the host's own calls, and per function its calls and its
    own time in microseconds (cProfile's ``tottime``, the garbage collector paused)."""
    stats = pstats.Stats(profile)
    total = ours = 0
    per_function: dict[str, float] = {}
    own_time: dict[str, float] = {}
    for (file, line, name), (_cc, ncalls, tottime, _ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        total += ncalls
        if "hermes_core" in file:
            ours += ncalls
        short = file.split("site-packages/", 1)[-1].split("src/", 1)[-1]
        key = f"{short}:{line} {name}"
        per_function[key] = per_function.get(key, 0.0) + ncalls / n
        if name != "<method 'poll' of 'select.epoll' objects>":  # waiting, not working
            own_time[key] = own_time.get(key, 0.0) + tottime * 1e6 / n
    return total / n, ours / n, per_function, own_time


async def cpu_per_call(
    sides: tuple[tuple[str, Any], ...], n: int, block: int = CPU_BLOCK
) -> dict[str, list[float]]:
    """This process's CPU time per call (``time.process_time``), each side's blocks of
    *block* calls interleaved with the others' (the order rotating) so that a busy machine's
    drift falls on every side alike: microseconds per call for each block, the blocks of one
    round at the same index."""
    per_block: dict[str, list[float]] = {side: [] for side, _ in sides}
    for round_ in range(max(1, n // block)):
        order = sides[round_ % len(sides) :] + sides[: round_ % len(sides)]
        for side, call in order:
            started = time.process_time()
            for _ in range(block):
                await call()
            per_block[side].append((time.process_time() - started) / block * 1e6)
    return per_block


async def measure(n: int, url: str | None, at_once: int, cpu: int = 0) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamable_http_client

    from hermes_core.host.host import HostServer, MCPHost

    args = [str(EVERYTHING), "stdio"]
    parallel = at_once > 1
    if url is None:
        config = HostServer(
            "everything", command=node(), args=args, supports_parallel_tool_calls=parallel
        )
    else:
        config = HostServer(
            "everything",
            url=url,
            transport="streamable_http",
            supports_parallel_tool_calls=parallel,
        )
    async with contextlib.AsyncExitStack() as stack:
        host = MCPHost([config])
        stack.push_async_callback(host.close)
        errors = await host.start()
        assert errors["everything"] is None, errors
        if url is None:
            devnull = stack.enter_context(open(os.devnull, "w"))  # noqa: SIM115 - closed by the stack
            params = StdioServerParameters(command=node(), args=args)
            transport = stdio_client(params, errlog=devnull)
        else:
            transport = streamable_http_client(url)
        streams = await stack.enter_async_context(transport)
        session = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
        await session.initialize()
        await session.list_tools()

        async def ours() -> None:
            got = await host.call_tool("mcp_everything_echo", ARGS)
            assert got["content"][0]["text"] == "Echo: ping", got

        async def raw() -> None:
            got = await session.call_tool("echo", ARGS)
            assert got.content[0].text == "Echo: ping", got

        async def session_only() -> None:
            # The SDK's session over our transport: the host's layers left out.
            got = await host._connections["everything"].session.call_tool("echo", ARGS)
            assert got.content[0].text == "Echo: ping", got

        for _ in range(20):  # warm-up: imports, caches
            await ours()
            await raw()
        results: dict[str, Any] = {}
        sides = (("ours", ours), ("raw", raw), ("session", session_only))
        if cpu:
            results["cpu"] = await cpu_per_call(sides, cpu)
        for side, call in sides:
            profile = cProfile.Profile()
            gc.collect()
            gc.disable()  # a collection's time would fall on whichever function allocated
            profile.enable()
            for _ in range(max(1, n // at_once)):
                if at_once > 1:
                    await asyncio.gather(*(call() for _ in range(at_once)))
                else:
                    await call()
            profile.disable()
            gc.enable()
            results[side] = counts(profile, max(1, n // at_once) * at_once)
    return results


SLOW_TOOL = "trigger-long-running-operation"
SLOW_ARGS = {"duration": 1, "steps": 1}


async def in_flight(at_once: int) -> dict[str, tuple[float, collections.Counter[str]]]:
    """Objects the garbage collector tracks per call while *at_once* calls wait on the server
    (server-everything's long-running tool, 1 s): what it walks when many calls are in flight.
    """
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from hermes_core.host.host import HostServer, MCPHost

    args = [str(EVERYTHING), "stdio"]
    config = HostServer("everything", command=node(), args=args, supports_parallel_tool_calls=True)
    async with contextlib.AsyncExitStack() as stack:
        host = MCPHost([config])
        stack.push_async_callback(host.close)
        assert (await host.start())["everything"] is None
        devnull = stack.enter_context(open(os.devnull, "w"))  # noqa: SIM115 - closed by the stack
        params = StdioServerParameters(command=node(), args=args)
        streams = await stack.enter_async_context(stdio_client(params, errlog=devnull))
        session = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
        await session.initialize()
        await session.list_tools()
        ours_name = next(e.name for e in host.tools() if e.tool == SLOW_TOOL)
        sides: dict[str, Any] = {
            "ours": lambda: host.call_tool(ours_name, SLOW_ARGS),
            "raw": lambda: session.call_tool(SLOW_TOOL, SLOW_ARGS),
        }
        results = {}
        for side, call in sides.items():
            await call()  # warm-up
            gc.collect()
            gc.disable()
            try:
                before = collections.Counter(type(o).__qualname__ for o in gc.get_objects())
                tasks = [asyncio.create_task(call()) for _ in range(at_once)]
                await asyncio.sleep(0.3)  # all sent; none answered (the tool takes 1 s)
                during = collections.Counter(type(o).__qualname__ for o in gc.get_objects())
                done = await asyncio.gather(*tasks)
            finally:
                gc.enable()
            assert all("Long running operation completed" in str(d) for d in done), done[0]
            del tasks, done  # (not to be counted as gone in the next side's snapshot)
            grown = during - before
            results[side] = (sum(grown.values()) / at_once, grown)
    return results


def print_in_flight(at_once: int) -> None:
    results = asyncio.run(in_flight(at_once))
    ours, mine = results["ours"]
    raw, theirs = results["raw"]
    print(f"objects tracked by the garbage collector per call in flight ({at_once} at once)")
    print(f"  raw SDK ClientSession.call_tool: {raw:.1f}")
    print(f"  MCPHost.call_tool:               {ours:.1f}  ({ours - raw:+.1f})")
    for kind in sorted(set(mine) | set(theirs), key=lambda k: theirs[k] - mine[k])[:8]:
        more = (mine[kind] - theirs[kind]) / at_once
        if more:
            print(f"    {more:+6.2f}  {kind}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=200, help="calls per side")
    parser.add_argument("--top", type=int, default=0, help="the functions with most extra calls")
    parser.add_argument("--http", action="store_true", help="over Streamable HTTP")
    parser.add_argument("--at-once", type=int, default=1, help="calls started together")
    parser.add_argument(
        "--in-flight", action="store_true", help="objects kept alive per call while it waits"
    )
    parser.add_argument(
        "--time",
        action="store_true",
        help="rank by own time (µs per call, under the profiler) against the SDK session on "
        "our transport, i.e. where the host's layers spend theirs",
    )
    parser.add_argument(
        "--cpu", type=int, default=0, metavar="N", help="also CPU time per call over N calls a side"
    )
    parser.add_argument(
        "--compare",
        choices=("ours-raw", "session-raw", "ours-session"),
        default="ours-raw",
        help="--top's pair: the host against the raw SDK (default), our transport against "
        "the SDK's (the SDK session on each), or the host's layers (ours against the session)",
    )
    options = parser.parse_args()
    if options.in_flight:
        print_in_flight(max(options.at_once, 50))
        return 0
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(everything_http()) if options.http else None
        results = asyncio.run(measure(options.n, url, options.at_once, options.cpu))
    ours_total, ours_own, mine, mine_time = results["ours"]
    raw_total, _, theirs, _ = results["raw"]
    session_total, session_own, on_ours, session_time = results["session"]
    kind = "HTTP" if options.http else "stdio"
    together = f", {options.at_once} at once" if options.at_once > 1 else ""
    print(f"function calls per call_tool ({kind} echo, {options.n} calls each side{together})")
    print(f"  raw SDK ClientSession.call_tool: {raw_total:.1f}")
    print(f"  MCPHost.call_tool:               {ours_total:.1f}  (+{ours_total - raw_total:.1f})")
    print(f"    of which hermes_core:          {ours_own:.1f}")
    print(
        f"  the SDK session on our transport: {session_total:.1f}  "
        f"(+{session_total - raw_total:.1f}; hermes_core {session_own:.1f}): the rest of the "
        f"difference, {ours_total - session_total:+.1f}, is the host's layers"
    )
    if "cpu" in results:
        blocks = results["cpu"]
        cpu = {side: statistics.median(times) for side, times in blocks.items()}

        def paired(side: str) -> float:  # the median of the rounds' own ratios
            return statistics.median(
                a / b for a, b in zip(blocks[side], blocks["raw"], strict=True)
            )

        print(
            f"CPU time of this process per call_tool (median of {len(blocks['raw'])} rounds of "
            f"{CPU_BLOCK} calls a side, interleaved; ratio: the median of the rounds' own)"
        )
        print(f"  raw SDK ClientSession.call_tool:  {cpu['raw']:7.1f} µs")
        ours, session = cpu["ours"], cpu["session"]
        print(f"  MCPHost.call_tool:                {ours:7.1f} µs  ({paired('ours'):.3f}×)")
        print(
            f"  the SDK session on our transport: {session:7.1f} µs  "
            f"({paired('session'):.3f}×): the host's layers {ours - session:+.1f} µs, "
            f"our transport {session - cpu['raw']:+.1f} µs"
        )
    named = {"ours": mine, "raw": theirs, "session": on_ours}
    first, second = options.compare.split("-")
    mine, theirs = named[first], named[second]
    baseline = {"raw": "the raw SDK", "session": "the SDK session on our transport"}[second]
    extra = sorted(
        ((mine.get(k, 0.0) - theirs.get(k, 0.0), k) for k in set(mine) | set(theirs)),
        reverse=True,
    )
    if options.top:
        print(
            f"  the {options.top} functions called most more often by "
            f"{ {'ours': 'the host', 'session': 'the session on our transport'}[first] } "
            f"than by {baseline}:"
        )
    for more, name in extra[: options.top]:
        print(f"    {more:+7.2f}  {name}")
    if options.time:
        ours_us, session_us = sum(mine_time.values()), sum(session_time.values())
        print(
            f"own time per call under the profiler: MCPHost.call_tool {ours_us:.1f} µs, "
            f"the SDK session on our transport {session_us:.1f} µs ({ours_us - session_us:+.1f})"
        )
        spent = sorted(
            (
                (mine_time.get(k, 0.0) - session_time.get(k, 0.0), k)
                for k in set(mine_time) | set(session_time)
            ),
            reverse=True,
        )
        for more, name in spent[: options.top or 25]:
            print(f"    {more:+7.2f} µs  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
