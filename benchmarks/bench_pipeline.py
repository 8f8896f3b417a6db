"""The call pipeline's overhead per call: no interceptor, two no-op interceptors, and
OpenTelemetry exporting to an in-memory exporter, each against the raw ``mcp`` SDK in the same
run (``python benchmarks/bench_pipeline.py [--quick] [--json FILE]``; ``nox -s bench`` runs it).

Four clients of server-everything over stdio, each with a server process of its own, call
``echo`` in alternating blocks (who goes first rotates; the collector is emptied before each
block, as in bench_host.py), in segments with fresh processes: the raw SDK ``ClientSession``
(the yardstick), ``MCPHost`` with no interceptor (the usual host: no ``intercept`` step in
its chains), ``MCPHost`` whose server selects two no-op interceptors (a ``before`` and an
``after`` each), and ``MCPHost`` with the ``telemetry`` step and the SDK's tracer and meter
providers (a ``SimpleSpanProcessor`` into an ``InMemorySpanExporter``, an
``InMemoryMetricReader``).  The goals (docs/performance.md): no interceptor no slower than
bench_host.py's per-call figure (≤ 1.05 of raw); two no-op interceptors ≤ 1.10 of raw.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_host import (
    ECHO_ARGS,
    EVERYTHING,
    Row,
    everything_stdio_params,
    judge,
    log,
    node,
    print_table,
    raw_stdio,
    segmented,
    server_command,
    settle,
    spread,
)

LIMITS = {"no interceptor": 1.05, "two no-op interceptors": 1.10, "OpenTelemetry (in memory)": None}


def _noop_before(call: Any) -> None:
    return None


def _noop_after(call: Any, result: Any) -> None:
    return None


def _telemetry() -> Any:
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    metrics.set_meter_provider(MeterProvider(metric_readers=[InMemoryMetricReader()]))
    return exporter


async def measure(n_calls: int, warmup: int, block: int, exporter: Any) -> dict[str, Any]:
    from mcp import ClientSession

    from hermes_core.host.calls.intercept import ActiveInterceptor
    from hermes_core.host.host import HostServer, MCPHost

    command, args = server_command(node(), [str(EVERYTHING), "stdio"])
    noop = {name: ActiveInterceptor(name, _noop_before, _noop_after) for name in ("noop1", "noop2")}
    hosts = {
        "no interceptor": MCPHost(
            [HostServer("everything", command=command, args=args)], interceptors={}
        ),
        "two no-op interceptors": MCPHost(
            [HostServer("everything", command=command, args=args, interceptors=tuple(noop))],
            interceptors=noop,
        ),
        "OpenTelemetry (in memory)": MCPHost(
            [HostServer("everything", command=command, args=args)],
            interceptors={},
            telemetry=True,
        ),
    }
    async with contextlib.AsyncExitStack() as stack:
        sides: dict[str, Callable[[], Awaitable[Any]]] = {}
        for label, host in hosts.items():
            stack.push_async_callback(host.close)
            errors = await host.start()
            if errors["everything"] is not None:
                raise RuntimeError(f"{label}: could not connect: {errors['everything']}")

            async def ours(host: MCPHost = host) -> Any:
                return await host.call_tool("mcp_everything_echo", ECHO_ARGS)

            sides[label] = ours
        streams = await stack.enter_async_context(raw_stdio(everything_stdio_params(pin=True)))
        session = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
        await session.initialize()
        await session.list_tools()

        async def raw() -> Any:
            return await session.call_tool("echo", ECHO_ARGS)

        sides["raw"] = raw
        for label, call in sides.items():  # every side really calls
            got = await call()
            text = got["content"][0]["text"] if isinstance(got, dict) else got.content[0].text
            assert text == "Echo: ping", (label, got)
        assert "intercept" not in _chain(hosts["no interceptor"])
        assert "intercept" in _chain(hosts["two no-op interceptors"])
        for _ in range(warmup):
            for call in sides.values():
                await call()
        exporter.clear()
        timings: dict[str, list[float]] = {side: [] for side in sides}
        rounds: dict[str, list[float]] = {side: [] for side in sides}
        names = list(sides)
        for r in range(max(1, n_calls // block)):
            for side in names[r % len(names) :] + names[: r % len(names)]:
                call, one_block = sides[side], []
                settle()
                for _ in range(block):
                    t0 = time.perf_counter()
                    await call()
                    one_block.append(time.perf_counter() - t0)
                timings[side].extend(one_block)
                rounds[side].append(statistics.median(one_block))
        spans = len(exporter.get_finished_spans())
        assert spans >= n_calls, f"the OpenTelemetry side exported {spans} spans"
    return {"timings": timings, "rounds": rounds}


def _chain(host: Any) -> list[str]:
    resolved = host.pipeline.resolve("mcp_everything_echo")
    assert resolved is not None
    link, names = host.pipeline.chain(*resolved), []
    while hasattr(link, "step"):
        names.append(link.step.name)
        link = link.proceed
    return names


def rows_of(measured: dict[str, Any]) -> list[Row]:
    timings, rounds = measured["timings"], measured["rounds"]
    raw = statistics.median(timings["raw"])
    rows = []
    for label, limit in LIMITS.items():
        ours = statistics.median(timings[label])
        rows.append(
            judge(
                Row(
                    f"stdio echo, {label}, median of {len(timings[label])}",
                    ours,
                    raw,
                    f"ratio ≤ {limit:.2f}" if limit else "—",
                    limit=limit,
                    spread=spread(rounds[label], rounds["raw"]),
                )
            )
        )
    return rows


class _Answer:
    """The last step of an in-process pipeline: answers every call at once (no server)."""

    name = "send"

    def applies(self, entry: Any, server: Any) -> bool:
        return True

    async def __call__(self, call: Any, proceed: Any) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "Echo: ping"}], "isError": False}


def steps_alone(calls: int) -> dict[str, float]:
    """Seconds per call of the pipeline itself (no server, no transport): the chain with only
    the answering step, with the ``intercept`` step and two no-op interceptors, and with the
    ``telemetry`` step (in-memory exporter) — what each adds, free of the I/O's noise."""
    from hermes_core.host.calls.intercept import ActiveInterceptor, InterceptStep
    from hermes_core.host.calls.pipeline import CallPipeline
    from hermes_core.host.calls.telemetry import TelemetryStep
    from hermes_core.host.host import HostServer
    from hermes_core.host.tools.registry import ToolEntry, ToolRegistry

    noop = {n: ActiveInterceptor(n, _noop_before, _noop_after) for n in ("noop1", "noop2")}
    variants = {
        "answer only": ((), []),
        "two no-op interceptors": (tuple(noop), [InterceptStep(noop)]),
        "OpenTelemetry (in memory)": ((), [TelemetryStep(lambda s: "2025-11-25", lambda s: None)]),
    }
    seconds: dict[str, float] = {}

    async def run(pipeline: CallPipeline) -> float:
        for _ in range(500):
            await pipeline.call("mcp_s_echo", ECHO_ARGS)
        settle()
        t0 = time.perf_counter()
        for _ in range(calls):
            await pipeline.call("mcp_s_echo", ECHO_ARGS)
        return (time.perf_counter() - t0) / calls

    for label, (names, steps) in variants.items():
        registry = ToolRegistry()
        registry.replace_server("s", [ToolEntry("mcp_s_echo", "s", "echo", "", {}, "mcp-s")])
        servers = {"s": HostServer("s", command="x", interceptors=names)}
        pipeline = CallPipeline(registry, servers, [*steps, _Answer()])
        seconds[label] = min(asyncio.run(run(pipeline)) for _ in range(5))
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls and segments")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    options = parser.parse_args(argv)
    n_calls, warmup, block, segments = (400, 20, 25, 2) if options.quick else (2000, 50, 50, 4)
    node()
    exporter = _telemetry()
    log(f"pipeline overhead: {segments} segments of {n_calls // segments} calls per side")
    measured = segmented(segments, lambda _: measure(n_calls // segments, warmup, block, exporter))
    rows = rows_of(measured)
    print_table(rows)
    plain = statistics.median(measured["timings"]["no interceptor"])
    two = statistics.median(measured["timings"]["two no-op interceptors"])
    print(f"\ntwo no-op interceptors / no interceptor: {two / plain:.3f}")
    alone = steps_alone(5_000 if options.quick else 20_000)
    raw = statistics.median(measured["timings"]["raw"])
    base = alone["answer only"]
    print("\nthe steps alone, in process (no server): added per call, and as a share of the")
    print(f"raw SDK's {raw * 1e3:.3f} ms per call of this run")
    for label, spent in alone.items():
        if label != "answer only":
            added = spent - base
            print(f"  {label}: +{added * 1e6:.1f} µs per call = {added / raw:.2%} of raw")
    measured["steps_alone"] = alone
    if options.json:
        Path(options.json).write_text(json.dumps(measured, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
