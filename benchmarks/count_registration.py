"""Counted figures for one registration of a large server (no timings: they are noise here).

::

    python benchmarks/count_registration.py [COUNT]     # default 3300

Prints, for one ``MCPHost.refresh_tools`` of ``many_tools_server.py`` with every prepared tool
forgotten first (a first registration), and for one raw SDK ``ClientSession.list_tools`` of the
same server: the Python function calls cProfile counts, the garbage collections that ran
(``gc.callbacks``), and the memory allocated at the peak of the pass (``tracemalloc``, in a
second, unprofiled round).  docs/performance-history.md quotes its output.
"""

from __future__ import annotations

import asyncio
import cProfile
import gc
import pstats
import sys
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
EXCLUDE = ("admin_*", "debug_*", "*_delete_*")


def main() -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from hermes_core.host.host import HostServer, MCPHost

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 3300
    args = [str(HERE / "many_tools_server.py"), str(count)]
    collections: list[int] = []

    def counted(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(counted)

    async def peak(step: Callable[[], Awaitable[Any]]) -> float:
        """MiB allocated at the peak of *step* (what it built, the listing included)."""
        tracemalloc.start()
        try:
            await step()
            return tracemalloc.get_traced_memory()[1] / 2**20
        finally:
            tracemalloc.stop()

    async def run() -> None:
        config = HostServer(
            "many", command=sys.executable, args=args, exclude=EXCLUDE, connect_timeout=300
        )
        host = MCPHost([config])
        try:
            errors = await host.start()
            if errors["many"] is not None:
                raise SystemExit(errors["many"])
            host.forget_preparation("many")  # a first registration
            collections.clear()
            profile = cProfile.Profile()
            profile.enable()
            await host.refresh_tools("many")
            profile.disable()
            ours = pstats.Stats(profile)
            ours_gc = list(collections)
            in_sanitize = sum(
                int(v[1])
                for k, v in ours.stats.items()
                if k[0].endswith("sanitize.py")  # type: ignore[attr-defined]
            )
            registered = len(host.tools())

            async def again() -> None:
                host.forget_preparation("many")
                await host.refresh_tools("many")

            ours_peak = await peak(again)
        finally:
            await host.close()
        params = StdioServerParameters(command=sys.executable, args=args)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            collections.clear()
            profile = cProfile.Profile()
            profile.enable()
            await session.list_tools()
            profile.disable()
            raw = pstats.Stats(profile)
            raw_gc = list(collections)
            raw_peak = await peak(session.list_tools)
        print(
            f"{count} tools, {registered} registered: ours {ours.total_calls} function calls "  # type: ignore[attr-defined]
            f"({in_sanitize} in sanitize.py), {len(ours_gc)} collections "
            f"({ours_gc.count(2)} of generation 2), peak {ours_peak:.1f} MiB allocated; "
            f"raw list_tools {raw.total_calls} function calls, {len(raw_gc)} collections "  # type: ignore[attr-defined]
            f"({raw_gc.count(2)} of generation 2), peak {raw_peak:.1f} MiB allocated"
        )

    asyncio.run(run())


if __name__ == "__main__":
    main()
