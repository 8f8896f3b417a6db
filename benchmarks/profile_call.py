"""Counted figures for one ``call_tool``: function calls per call, ours against the raw SDK.

::

    python benchmarks/profile_call.py             # stdio echo on server-everything
    python benchmarks/profile_call.py --top 25    # and the 25 functions of ours called most

Wall-clock times on a shared machine are noise; the number of Python function calls a call
makes (cProfile's ``ncalls``) is not.  Both sides call server-everything's ``echo`` *N* times
under one profiler each; the figure is calls per ``call_tool``, split into the host's own
functions (``hermes_core``) and everything else (the SDK, anyio, asyncio, pydantic).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import os
import pstats
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from servers.reference import EVERYTHING, node  # noqa: E402

ARGS = {"message": "ping"}


def counts(profile: cProfile.Profile, n: int) -> tuple[float, float, dict[str, float]]:
    """Calls per call_tool: all, the host's own, and per function."""
    stats = pstats.Stats(profile)
    total = ours = 0
    per_function: dict[str, float] = {}
    for (file, line, name), (_cc, ncalls, _tt, _ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        total += ncalls
        if "hermes_core" in file:
            ours += ncalls
        short = file.split("site-packages/", 1)[-1].split("src/", 1)[-1]
        key = f"{short}:{line} {name}"
        per_function[key] = per_function.get(key, 0.0) + ncalls / n
    return total / n, ours / n, per_function


async def measure(n: int) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from hermes_core.host.host import HostServer, MCPHost

    config = HostServer("everything", command=node(), args=[str(EVERYTHING), "stdio"])
    params = StdioServerParameters(command=node(), args=[str(EVERYTHING), "stdio"])
    async with contextlib.AsyncExitStack() as stack:
        host = MCPHost([config])
        stack.push_async_callback(host.close)
        errors = await host.start()
        assert errors["everything"] is None, errors
        devnull = stack.enter_context(open(os.devnull, "w"))  # noqa: SIM115 - the exit stack closes it
        read, write = await stack.enter_async_context(stdio_client(params, errlog=devnull))
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        await session.list_tools()
        for _ in range(20):  # warm-up: imports, caches
            await host.call_tool("mcp_everything_echo", ARGS)
            await session.call_tool("echo", ARGS)
        results = {}
        for side in ("ours", "raw"):
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(n):
                if side == "ours":
                    got = await host.call_tool("mcp_everything_echo", ARGS)
                    assert got["content"][0]["text"] == "Echo: ping", got
                else:
                    raw = await session.call_tool("echo", ARGS)
                    assert raw.content[0].text == "Echo: ping", raw
            profile.disable()
            results[side] = counts(profile, n)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=200, help="calls per side")
    parser.add_argument("--top", type=int, default=0, help="the functions with most extra calls")
    options = parser.parse_args()
    results = asyncio.run(measure(options.n))
    ours_total, ours_own, mine = results["ours"]
    raw_total, _, theirs = results["raw"]
    print(f"function calls per call_tool (stdio echo, {options.n} calls each side)")
    print(f"  raw SDK ClientSession.call_tool: {raw_total:.1f}")
    print(f"  MCPHost.call_tool:               {ours_total:.1f}  (+{ours_total - raw_total:.1f})")
    print(f"    of which hermes_core:          {ours_own:.1f}")
    extra = sorted(
        ((mine.get(k, 0.0) - theirs.get(k, 0.0), k) for k in set(mine) | set(theirs)),
        reverse=True,
    )
    if options.top:
        print(f"  the {options.top} functions called most more often than by the raw SDK:")
    for more, name in extra[: options.top]:
        print(f"    {more:+7.2f}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
