"""Every benchmark of the project in one run, and their headline figures as one table.

::

    python benchmarks/summary.py                         # full run (tens of minutes)
    python benchmarks/summary.py --quick                 # each benchmark's short run
    python benchmarks/summary.py --write docs/performance.md
    python benchmarks/summary.py --only bench_search,bench_import

Runs each benchmark in turn as its own process (``bench_host``, ``bench_pipeline``,
``bench_memory``, ``bench_import``, ``bench_proxy``, ``bench_hop``, ``bench_search``,
``bench_tool_search``, and ``bench_fleet`` where PostgreSQL, Redis and HAProxy are installed),
shows what each prints as it goes, reads the lines with a goal or a ratio from it
(``summary_parsers.py``) and prints one Markdown table: benchmark, what it measures, the figure,
the goal and PASS/MISS, headed by the date, the Python version, the CPU count and the machine's
load average before and after the whole run.

``--write PATH`` replaces the text between ``<!-- benchmark-summary:start -->`` and
``<!-- benchmark-summary:end -->`` in PATH (atomically; the markers must be there).  A benchmark
that fails, or whose output no longer has a line its parser needs, is named on stderr with the
line expected; the table then shows it as ERROR, nothing is written and the exit status is 1.
Otherwise the exit status is 0 whether goals are met or missed: benchmarks report, tests assert.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_host import load_average
from summary_parsers import (
    Figure,
    OutputChanged,
    Parser,
    hop_parser,
    parse_fleet,
    parse_host,
    parse_import,
    parse_memory,
    parse_pipeline,
    parse_proxy,
    parse_search,
    parse_tool_search,
)

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
START = "<!-- benchmark-summary:start -->"
END = "<!-- benchmark-summary:end -->"
ERROR = "ERROR"
FASTMCP_NOTE = (
    "no interpreter with fastmcp (--fastmcp-python): bench_hop and bench_proxy ran without "
    "fastmcp's proxy, so without the HTTP goal against it"
)


@dataclass(frozen=True)
class Benchmark:
    """One benchmark: its script, the arguments of this run, and how to read its output."""

    name: str
    what: str
    args: tuple[str, ...]
    parse: Parser


@dataclass
class Run:
    """What one run of every benchmark gave."""

    figures: list[Figure]
    errors: list[str]
    skipped: list[str]
    load_before: str
    load_after: str
    seconds: float


def fleet_missing() -> str | None:
    """What bench_fleet needs and this machine lacks (found as tests/support finds them)."""
    missing = []
    if not glob.glob("/usr/lib/postgresql/*/bin/initdb"):
        missing.append("PostgreSQL")
    if shutil.which("redis-server") is None:
        missing.append("Redis")
    if shutil.which("haproxy") is None and shutil.which("haproxy", path="/usr/sbin") is None:
        missing.append("HAProxy")
    return ", ".join(missing) or None


def default_fastmcp_python() -> str | None:
    """This interpreter when it has fastmcp (``nox -s bench`` installs it), else none."""
    return sys.executable if importlib.util.find_spec("fastmcp") is not None else None


def plan(
    quick: bool, fastmcp_python: str | None, fleet_lacks: str | None
) -> tuple[list[Benchmark], list[str]]:
    """The benchmarks of this run, in order, and a note for each one left out."""
    q = ("--quick",) if quick else ()
    fastmcp = ("--fastmcp-python", fastmcp_python) if fastmcp_python else ()
    benchmarks = [
        Benchmark("bench_host", "host vs raw SDK and fastmcp client", q, parse_host),
        Benchmark("bench_pipeline", "the call pipeline's own cost", q, parse_pipeline),
        Benchmark("bench_memory", "peak memory against hostile servers", q, parse_memory),
        Benchmark("bench_import", "importing large commented configs", q, parse_import),
        Benchmark("bench_proxy", "hermes mcp proxy and the warm host", q + fastmcp, parse_proxy),
        Benchmark(
            "bench_hop",
            "the proxy's hop, stdio and HTTP",
            q + fastmcp,
            hop_parser(fastmcp_python is not None),
        ),
        Benchmark("bench_search", "tool search quality and speed", (), parse_search),
        Benchmark(
            "bench_tool_search",
            "tool search through MCPHost on real servers",
            ("--rounds", "3") if quick else (),
            parse_tool_search,
        ),
    ]
    skipped = []
    if fastmcp_python is None:
        skipped.append(FASTMCP_NOTE)
    if fleet_lacks:
        skipped.append(f"bench_fleet not run: {fleet_lacks} not installed")
    else:
        benchmarks.append(
            Benchmark(
                "bench_fleet", "replicas behind HAProxy on PostgreSQL and Redis", q, parse_fleet
            )
        )
    return benchmarks, skipped


def run_one(benchmark: Benchmark) -> tuple[int, str]:
    """Runs *benchmark*, echoing its stdout line by line (its stderr goes straight through):
    (exit status, stdout)."""
    argv = [sys.executable, str(BENCHMARKS / f"{benchmark.name}.py"), *benchmark.args]
    print(f"\n=== {benchmark.name} ({benchmark.what})", flush=True)
    lines = []
    with subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            print(line, end="", flush=True)
    return proc.returncode, "".join(lines)


def run_all(
    benchmarks: Sequence[Benchmark],
    skipped: list[str],
    runner: Callable[[Benchmark], tuple[int, str]] = run_one,
) -> Run:
    """Each benchmark in turn; a failure or a changed output is recorded, and the rest run."""
    load_before, began = load_average(), time.perf_counter()
    figures: list[Figure] = []
    errors: list[str] = []
    for benchmark in benchmarks:
        code, output = runner(benchmark)
        if code != 0:
            errors.append(f"{benchmark.name}: exited with status {code}")
            figures.append(Figure(benchmark.name, benchmark.what, f"exit {code}", "—", ERROR))
            continue
        try:
            figures += benchmark.parse(output)
        except OutputChanged as changed:
            errors.append(str(changed))
            figures.append(
                Figure(benchmark.name, benchmark.what, "output format changed", "—", ERROR)
            )
    return Run(figures, errors, skipped, load_before, load_average(), time.perf_counter() - began)


def render(run: Run, quick: bool, *, every: bool = True) -> list[str]:
    """The summary: a heading line, the table, the notes."""
    heading = (
        f"{'Quick' if quick else 'Full'} run of "
        f"{'every benchmark' if every else 'the benchmarks named by --only'}, "
        f"{time.strftime('%Y-%m-%d', time.gmtime())}, Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, load average {run.load_before} before and {run.load_after} "
        f"after (1, 5, 15 min), wall time {run.seconds:.0f} s"
    )
    header = ("benchmark", "what it measures", "figure", "goal", "result")
    rows = [(f.benchmark, f.measure, f.figure, f.goal, f.result) for f in run.figures]
    lines = [heading, "", *table(header, rows)]
    missed = [
        f"{f.benchmark}: {f.measure}"
        for f in run.figures
        if f.result not in ("PASS", "info", ERROR)
    ]
    failed = [f.benchmark for f in run.figures if f.result == ERROR]
    notes = [
        *run.skipped,
        f"{len(missed)} goal(s) missed" + (": " + "; ".join(missed) if missed else ""),
    ]
    if failed:
        notes.append(
            f"{len(failed)} benchmark(s) failed, their figures missing: {', '.join(failed)}"
        )
    return [*lines, "", *(f"* {note}" for note in notes)]


def table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> list[str]:
    """A Markdown table, columns padded to one width ('|' in a cell escaped)."""
    cells = [tuple(c.replace("|", "\\|") for c in row) for row in (header, *rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]

    def show(row: tuple[str, ...]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"

    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return [show(cells[0]), rule, *(show(row) for row in cells[1:])]


class MarkersMissing(Exception):
    """The file given to ``--write`` has not both summary markers, in order."""


def check_markers(text: str, path: Path) -> tuple[int, int]:
    """Where the text between the markers begins and ends in *text*."""
    start, end = text.find(START), text.find(END)
    if start < 0 or end < 0 or end < start:
        raise MarkersMissing(
            f"{path}: the summary markers are missing: the file needs a line {START} and, "
            f"after it, a line {END}"
        )
    return start + len(START), end


def write_between_markers(path: Path, lines: Sequence[str]) -> None:
    """Replaces what is between the markers in *path* with *lines*, atomically (a file beside
    it, renamed over it, its permission bits kept)."""
    text = path.read_text(encoding="utf-8")
    begin, end = check_markers(text, path)
    updated = text[:begin] + "\n" + "\n".join(lines) + "\n" + text[end:]
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(updated)
        os.chmod(temporary, path.stat().st_mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="each benchmark's short run")
    parser.add_argument(
        "--write", metavar="PATH", type=Path, help="also write the table between its markers"
    )
    parser.add_argument(
        "--fastmcp-python",
        metavar="PYTHON",
        help="an interpreter with fastmcp, for bench_hop and bench_proxy "
        "(default: this one when it has fastmcp)",
    )
    parser.add_argument("--only", metavar="NAMES", help="comma-separated benchmarks to run")
    options = parser.parse_args(argv)
    if options.write is not None:  # before the minutes of measuring, not after
        try:
            check_markers(options.write.read_text(encoding="utf-8"), options.write)
        except OSError as problem:
            parser.error(f"--write: {options.write}: cannot read it ({problem.strerror})")
        except MarkersMissing as problem:
            parser.error(str(problem))
    fastmcp = options.fastmcp_python or default_fastmcp_python()
    benchmarks, skipped = plan(options.quick, fastmcp, fleet_missing())
    if options.only:
        wanted = {name.strip() for name in options.only.split(",")}
        unknown = wanted - {b.name for b in benchmarks}
        if unknown:
            parser.error(
                f"--only: unknown or not runnable here: {', '.join(sorted(unknown))} "
                f"(known: {', '.join(b.name for b in benchmarks)})"
            )
        left_out = [b.name for b in benchmarks if b.name not in wanted]
        benchmarks = [b for b in benchmarks if b.name in wanted]
        skipped = [note for note in skipped if not note.startswith(FASTMCP_NOTE)]
        if fastmcp is None and wanted & {"bench_hop", "bench_proxy"}:
            skipped.append(FASTMCP_NOTE)
        skipped.append(f"--only: {', '.join(left_out)} not run")
    run = run_all(benchmarks, skipped)
    lines = render(run, options.quick, every=not options.only)
    print("\n" + "\n".join(lines), flush=True)
    if run.errors:
        for error in run.errors:
            print(f"summary: {error}", file=sys.stderr)
        if options.write is not None:
            print(f"summary: {options.write} left as it was", file=sys.stderr)
        return 1
    if options.write is not None:
        write_between_markers(options.write, lines)
        print(f"* the table was written into {options.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
