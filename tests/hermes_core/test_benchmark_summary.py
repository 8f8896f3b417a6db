"""benchmarks/summary.py: each benchmark's recorded output read into the summary's rows, a
changed output refused loudly, and ``--write`` between the markers of a file."""

from __future__ import annotations

import importlib.util
import stat
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Protocol

import pytest

ROOT = Path(__file__).resolve().parents[2]
OUTPUTS = Path(__file__).parent / "benchmark_outputs"


def _load(name: str) -> ModuleType:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


parsers = _load("summary_parsers")
summary = _load("summary")


class Figure(Protocol):
    @property
    def benchmark(self) -> str: ...
    @property
    def measure(self) -> str: ...
    @property
    def figure(self) -> str: ...
    @property
    def goal(self) -> str: ...
    @property
    def result(self) -> str: ...


#: A parser of benchmarks/summary_parsers.py (loaded from its file, so typed here).
Parse = Callable[[str], Sequence[Figure]]


def recorded(benchmark: str) -> str:
    return (OUTPUTS / f"{benchmark}.txt").read_text(encoding="utf-8")


def rows(benchmark: str, parse: Parse) -> dict[str, tuple[str, str, str]]:
    figures = parse(recorded(benchmark))
    assert {f.benchmark for f in figures} == {benchmark}
    return {f.measure: (f.figure, f.goal, f.result) for f in figures}


def test_host_rows_with_a_target_only() -> None:
    got = rows("bench_host", parsers.parse_host)
    assert got["stdio echo, median of 3000 calls"] == (
        "0.969× (0.464 ms vs 0.479 ms)",
        "ratio ≤ 1.05",
        "PASS",
    )
    assert got["startup, 32 stdio servers (median of 9)"][2] == "MISS"
    assert got["hermes --help (best of N)"] == ("56.1 ms", "≤ 0.10 s", "PASS")
    assert "stdio echo, p90" not in got  # information rows stay in bench_host's own table
    assert len(got) == 21


def test_pipeline_table_and_interceptor_ratio() -> None:
    got = rows("bench_pipeline", parsers.parse_pipeline)
    assert got["two no-op interceptors / no interceptor"] == ("0.819", "—", "info")
    assert [result for _, _, result in got.values()] == ["PASS", "PASS", "info", "info"]


def test_memory_and_import_bounds() -> None:
    memory = rows("bench_memory", parsers.parse_memory)
    assert memory["peak RSS, HTTP: Content-Length 4 GB"] == (
        "79 MB (took 4.5 s)",
        "< 400 MB",
        "PASS",
    )
    assert len(memory) == 5
    imported = rows("bench_import", parsers.parse_import)
    assert imported["VS Code settings.json, 4096 KB, one comment: read the file"] == (
        "0.295 s (whole command 3.70 s)",
        "< 3 s",
        "PASS",
    )


def test_proxy_lines() -> None:
    got = rows("bench_proxy", parsers.parse_proxy)
    assert got["hermes mcp call, warm vs cold"][1:] == ("≥ 5×", "PASS")
    assert got["per call, proxy vs MCPHost (stdio echo)"][1] == "≤ 1.3×"
    assert got["per call, FastMCP.as_proxy vs raw SDK (side by side)"][1:] == ("—", "info")
    assert got["50 HTTP clients at once"][0].startswith("0 failures in ")


def test_hop_stdio_and_http() -> None:
    got = rows("bench_hop", parsers.hop_parser(True))
    assert got["stdio echo through hermes / direct"] == (
        "2.43× (7.035 ms a call, proxy CPU 0.487 ms a call)",
        "≤ 1.35×",
        "MISS",
    )
    assert got["stdio echo through relay / direct"][1:] == ("—", "info")
    assert got["stdio echo direct (the base)"] == (
        "2.895 ms a call, client CPU 0.290 ms",
        "—",
        "info",
    )
    assert got["stdio echo through parse-relay / direct"] == (
        "1.24× (3.604 ms a call, proxy CPU 0.090 ms a call, client CPU 0.310 ms)",
        "—",
        "info",
    )
    assert got["HTTP CPU a call, hermes / fastmcp (32 clients)"] == (
        "0.56×",
        "≤ 0.5× and no error",
        "MISS",
    )
    assert "HTTP, 32 clients at once, fastmcp" in got
    # Without fastmcp there is no ratio to expect; the HTTP line of hermes alone is enough.
    alone = "\n".join(
        line
        for line in recorded("bench_hop").splitlines()
        if "fastmcp" not in line and not line.startswith("stdio fastmcp")
    )
    assert not any("fastmcp" in m for m in rows_of(parsers.parse_hop(alone, False)))


def rows_of(figures: Sequence[Figure]) -> list[str]:
    return [f.measure for f in figures]


def test_search_quality_and_speed() -> None:
    got = rows("bench_search", parsers.parse_search)
    assert got["right tool in the top 5"] == ("131/143 = 92%", "≥ 90%", "PASS")
    assert got["index build, 10000 tools"] == ("590 ms", "≤ 300 ms", "MISS")
    assert got["one query over 10000 tools (goal on the median)"][2] == "PASS"
    assert got["right tool first (143 over 5031 tools, 27 servers)"][2] == "info"
    # The blind set: its held-out half is held to the goal, the rest is shown.
    held = "blind set: right tool in the top 5, the held-out half"
    assert got[held] == ("87/109 = 80%", "≥ 90%", "MISS")
    assert got["blind set: right tool first (219 over 5243 tools, 45 servers)"][2] == "info"
    assert got["blind set: right tool in the top 5, the half read while tuning"] == (
        "91/110 = 83%",
        "—",
        "info",
    )


def test_tool_search_sections() -> None:
    got = rows("bench_tool_search", parsers.parse_tool_search)
    sizes = {measure.split(" ")[0] for measure in got}
    assert len(sizes) == 2
    ranked = [v for k, v in got.items() if "right tool in the top 5" in k]
    assert all(goal == "≥ 18/20" and result in ("PASS", "MISS") for _, goal, result in ranked)


def test_fleet_rows_and_goal() -> None:
    got = rows("bench_fleet", parsers.parse_fleet)
    figure, goal, result = got["CPU per call, state:+bus: vs embedded"]
    assert goal == "≤ 1.15×" and result in ("PASS", "MISS") and figure.endswith("x")
    assert got["3 replica(s) through HAProxy"][2] == "info"


@pytest.mark.parametrize(
    ("benchmark", "parse", "old", "new", "expected"),
    [
        ("bench_hop", parsers.hop_parser(True), "goal <= 1.35x", "target 1.35x", "stdio hermes"),
        ("bench_proxy", parsers.parse_proxy, "warm vs cold", "warm/cold", "warm vs cold"),
        ("bench_search", parsers.parse_search, "| What |", "| Measure |", "| What | Figure"),
        ("bench_host", parsers.parse_host, "| result |", "| verdict |", "| result |"),
        ("bench_fleet", parsers.parse_fleet, "(goal: CPU", "(target: CPU", "goal: CPU ratio"),
    ],
)
def test_a_changed_output_fails_loudly(
    benchmark: str, parse: Parse, old: str, new: str, expected: str
) -> None:
    output = recorded(benchmark)
    assert old in output
    with pytest.raises(parsers.OutputChanged) as raised:
        parse(output.replace(old, new))
    message = str(raised.value)
    assert message.startswith(f"{benchmark}: expected ") and expected in message


def test_one_run_records_failures_and_goes_on() -> None:
    benchmarks, _ = summary.plan(True, "/usr/bin/python3", None)
    outputs = {b.name: (0, recorded(b.name)) for b in benchmarks}
    outputs["bench_memory"] = (1, "")
    outputs["bench_proxy"] = (0, recorded("bench_proxy").replace("warm vs cold", "warm/cold"))
    run = summary.run_all(benchmarks, ["a note"], lambda b: outputs[b.name])
    assert [e.split(":")[0] for e in run.errors] == ["bench_memory", "bench_proxy"]
    errors = {f.benchmark: f.figure for f in run.figures if f.result == summary.ERROR}
    assert errors == {"bench_memory": "exit 1", "bench_proxy": "output format changed"}
    assert {f.benchmark for f in run.figures} == {b.name for b in benchmarks}
    lines = summary.render(run, quick=True)
    assert lines[0].startswith("Quick run of every benchmark, ") and "load average" in lines[0]
    assert lines[2].split("|")[1:6] == [
        " benchmark ".ljust(len(lines[2].split("|")[1])),
        *lines[2].split("|")[2:6],
    ]
    assert "* a note" in lines
    assert lines[-2].startswith("* ") and "goal(s) missed" in lines[-2]
    assert lines[-1] == (
        "* 2 benchmark(s) failed, their figures missing: bench_memory, bench_proxy"
    )


def test_write_replaces_only_between_the_markers(tmp_path: Path) -> None:
    page = tmp_path / "performance.md"
    page.write_text(
        f"# Title\n\nbefore\n{summary.START}\nold table\n{summary.END}\nafter\n", encoding="utf-8"
    )
    page.chmod(0o640)
    summary.write_between_markers(page, ["new heading", "", "| a |"])
    assert page.read_text(encoding="utf-8") == (
        f"# Title\n\nbefore\n{summary.START}\nnew heading\n\n| a |\n{summary.END}\nafter\n"
    )
    assert stat.S_IMODE(page.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["performance.md"]


def test_write_refuses_a_file_without_markers(tmp_path: Path) -> None:
    page = tmp_path / "performance.md"
    page.write_text(f"# Title\n{summary.END}\n{summary.START}\n", encoding="utf-8")
    with pytest.raises(summary.MarkersMissing, match="summary markers are missing"):
        summary.write_between_markers(page, ["x"])
    with pytest.raises(SystemExit) as refused:  # before any benchmark runs
        summary.main(["--write", str(page)])
    assert refused.value.code == 2
    assert page.read_text(encoding="utf-8") == f"# Title\n{summary.END}\n{summary.START}\n"
