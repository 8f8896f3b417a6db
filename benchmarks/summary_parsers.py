"""The headline figures of each benchmark, read from what it prints (``summary.py`` runs them).

One small parser per benchmark: it picks the lines that carry a goal (PASS/MISS, "met") or a
ratio and turns each into a :class:`Figure`.  A parser never guesses: when a line it needs is
not there, it raises :class:`OutputChanged` naming the benchmark and the line it expected, so
that a benchmark whose output format changed stops the summary instead of dropping a row.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: What a row says when it has no goal of its own.
INFO = "info"


@dataclass(frozen=True)
class Figure:
    """One row of the summary table."""

    benchmark: str
    measure: str
    figure: str
    goal: str
    result: str  # PASS, MISS, info, or the benchmark's own word for a failure (FAILED …)


class OutputChanged(Exception):
    """A benchmark's output lacks a line its parser needs (its format changed)."""

    def __init__(self, benchmark: str, expected: str) -> None:
        super().__init__(
            f"{benchmark}: expected {expected} in its output, and it is not there "
            "(the benchmark's output format changed: update benchmarks/summary_parsers.py)"
        )
        self.benchmark = benchmark
        self.expected = expected


Parser = Callable[[str], list[Figure]]


# -- shared pieces ---------------------------------------------------------------------------
def markdown_table(benchmark: str, output: str, columns: Sequence[str]) -> list[dict[str, str]]:
    """The rows of the first Markdown table in *output* whose header has every one of
    *columns*, each as {header: cell}."""
    lines = output.splitlines()
    for at, line in enumerate(lines):
        header = _cells(line)
        if header is None or not all(c in header for c in columns):
            continue
        rows = []
        for row in lines[at + 2 :]:
            cells = _cells(row)
            if cells is None:
                break
            if len(cells) != len(header):
                raise OutputChanged(benchmark, f"{len(header)} cells in the table row {row!r}")
            rows.append(dict(zip(header, cells, strict=True)))
        return rows
    wanted = " | ".join(columns)
    raise OutputChanged(benchmark, f"a Markdown table with the columns | {wanted} |")


def _cells(line: str) -> list[str] | None:
    text = line.strip()
    if not (text.startswith("|") and text.endswith("|") and len(text) > 1):
        return None
    return [cell.strip() for cell in text[1:-1].split("|")]


def _goal(text: str) -> str:
    """A goal as the summary shows them all: "<= 1.35x" as "≤ 1.35×"."""
    return re.sub(r"(\d)x\b", "\\1×", text.replace("<=", "≤").replace(">=", "≥"))


def _verdict(word: str) -> str:
    """PASS / MISS as printed; a missing verdict is information."""
    return word or INFO


def _within(figure_ms: str, goal: str, benchmark: str) -> str:
    """PASS when a figure in milliseconds is at most the ``≤ N ms`` of *goal*."""
    bound = re.fullmatch(r"≤ ([\d.]+) ms", goal)
    if bound is None:
        raise OutputChanged(benchmark, f"a goal like '≤ 10 ms' (found {goal!r})")
    return "PASS" if float(figure_ms) <= float(bound.group(1)) else "MISS"


def _ms_figure(
    benchmark: str, row: dict[str, str], pattern: str, example: str, what: str
) -> Figure:
    """The figure of a table *row* whose ``Figure`` matches *pattern* (its milliseconds the
    first group), judged against the row's ``≤ N ms`` goal."""
    found = re.fullmatch(pattern, row["Figure"])
    if found is None:
        raise OutputChanged(benchmark, f"{example} in the row {row['What']!r}")
    return Figure(
        benchmark, what, row["Figure"], row["Goal"], _within(found[1], row["Goal"], benchmark)
    )


def _line(benchmark: str, output: str, pattern: str, example: str) -> re.Match[str]:
    for line in output.splitlines():
        found = re.fullmatch(pattern, line.rstrip())
        if found:
            return found
    raise OutputChanged(benchmark, f"a line like {example!r}")


# -- bench_host and bench_pipeline: the table of Row (measure … ratio … target, result) --------
def _ratio_rows(benchmark: str, output: str, *, with_info: bool) -> list[Figure]:
    rows = markdown_table(
        benchmark, output, ("measure", "ours", "raw SDK", "ratio", "target", "result")
    )
    figures = []
    for row in rows:
        result = row["result"]
        if result == INFO and not with_info:
            continue
        if row["ratio"] != "—":
            figure = f"{row['ratio']}× ({row['ours']} vs {row['raw SDK']})"
        else:
            figure = row["ours"]
        figures.append(Figure(benchmark, row["measure"], figure, row["target"], result))
    if not any(f.result != INFO for f in figures):
        raise OutputChanged(benchmark, "a table row with a target and PASS or MISS")
    return figures


def parse_host(output: str) -> list[Figure]:
    """bench_host.py: every row of its table that has a target."""
    return _ratio_rows("bench_host", output, with_info=False)


def parse_pipeline(output: str) -> list[Figure]:
    """bench_pipeline.py: its table (the OpenTelemetry row is a ratio without a goal) and the
    two interceptors' ratio to none."""
    figures = _ratio_rows("bench_pipeline", output, with_info=True)
    two = _line(
        "bench_pipeline",
        output,
        r"two no-op interceptors / no interceptor: ([\d.]+)",
        "two no-op interceptors / no interceptor: 1.012",
    )
    figures.append(
        Figure("bench_pipeline", "two no-op interceptors / no interceptor", two[1], "—", INFO)
    )
    return figures


# -- bench_memory and bench_import: a table with a bound and a result ------------------------
def parse_memory(output: str) -> list[Figure]:
    """bench_memory.py: peak resident memory against servers that send without end."""
    rows = markdown_table("bench_memory", output, ("peak RSS", "bound", "took", "result"))
    if not rows:
        raise OutputChanged("bench_memory", "a row under the peak RSS table's header")
    measure = next(iter(rows[0]))
    return [
        Figure(
            "bench_memory",
            f"peak RSS, {r[measure]}",
            f"{r['peak RSS']} (took {r['took']})",
            r["bound"],
            r["result"],
        )
        for r in rows
    ]


def parse_import(output: str) -> list[Figure]:
    """bench_import.py: reading large commented client configs."""
    rows = markdown_table(
        "bench_import", output, ("measure", "read the file", "bound", "whole command", "result")
    )
    if not rows:
        raise OutputChanged("bench_import", "a row under the import table's header")
    return [
        Figure(
            "bench_import",
            f"{r['measure']}: read the file",
            f"{r['read the file']} (whole command {r['whole command']})",
            r["bound"],
            r["result"],
        )
        for r in rows
    ]


# -- bench_proxy: "what  figure  goal G  PASS" ------------------------------------------------
PROXY_LINE = (
    r"(?P<what>\S.*?)\s{2,}(?P<figure>\S.*?)  goal (?P<goal>.+?)(?:  (?P<verdict>PASS|MISS))?"
)
PROXY_NEEDED = (
    "per call, proxy vs MCPHost (stdio echo)",
    "hermes mcp call, warm vs cold",
    "50 HTTP clients at once",
)


def parse_proxy(output: str) -> list[Figure]:
    """bench_proxy.py: the proxy per call, warm against cold, 50 HTTP clients."""
    figures = []
    for line in output.splitlines():
        found = re.fullmatch(PROXY_LINE, line.rstrip())
        if found is None:
            continue
        what, goal = found["what"], _goal(found["goal"])
        if goal.startswith("("):  # "(side by side)": a remark, not a goal
            what, goal = f"{what} {goal}", "—"
        figures.append(
            Figure("bench_proxy", what, found["figure"], goal, _verdict(found["verdict"] or ""))
        )
    for needed in PROXY_NEEDED:
        if not any(f.measure == needed and f.result != INFO for f in figures):
            raise OutputChanged(
                "bench_proxy", f"a line like '{needed}  <figure>  goal <goal>  PASS'"
            )
    return figures


# -- bench_hop: stdio sides, HTTP sides, and the two goals ------------------------------------
STDIO_SIDE = (
    r"stdio (?P<side>\S+)\s+(?P<ms>[\d.]+) ms a call = (?P<ratio>[\d.]+)x direct"
    r"(?:, proxy CPU (?P<cpu>[\d.]+) ms a call)?(?:, client CPU (?P<client>[\d.]+) ms a call)?"
    r"(?:  goal (?P<goal>.+?)  (?P<verdict>PASS|MISS))?"
)
HTTP_SIDE = r"HTTP (?P<clients>\d+) clients, (?P<side>\S+)\s+(?P<figure>.+)"
HTTP_RATIO = (
    r"HTTP CPU a call, hermes / fastmcp = (?P<ratio>[\d.]+)x  goal (?P<goal>.+?)  "
    r"(?P<verdict>PASS|MISS)"
)


def hop_parser(with_fastmcp: bool) -> Parser:
    """bench_hop.py's parser; the HTTP goal (against fastmcp) is expected only when an
    interpreter with fastmcp was given."""

    def parse(output: str) -> list[Figure]:
        return parse_hop(output, with_fastmcp)

    return parse


def parse_hop(output: str, with_fastmcp: bool) -> list[Figure]:
    """bench_hop.py: the stdio hop against the direct call, HTTP CPU per call at 32 clients."""
    name, figures = "bench_hop", []
    hermes = _line(
        name,
        output,
        STDIO_SIDE.replace(r"(?P<side>\S+)", r"(?P<side>hermes)"),
        "stdio hermes         0.700 ms a call = 1.30x direct, proxy CPU 0.500 ms a call  "
        "goal <= 1.35x  PASS",
    )
    if not hermes["goal"]:
        raise OutputChanged(name, "'goal <= 1.35x  PASS' at the end of the 'stdio hermes' line")
    for line in output.splitlines():
        side = re.fullmatch(STDIO_SIDE, line.rstrip())
        if side is None:
            continue
        cpu = f", proxy CPU {side['cpu']} ms a call" if side["cpu"] else ""
        cpu += f", client CPU {side['client']} ms" if side["client"] else ""
        if side["side"] == "direct":  # the base of the ratios: its time, its client's CPU
            measure, figure = "stdio echo direct (the base)", f"{side['ms']} ms a call{cpu}"
        else:
            measure = f"stdio echo through {side['side']} / direct"
            figure = f"{side['ratio']}× ({side['ms']} ms a call{cpu})"
        figures.append(
            Figure(
                name,
                measure,
                figure,
                _goal(side["goal"] or "—"),
                _verdict(side["verdict"] or ""),
            )
        )
    http = [re.fullmatch(HTTP_SIDE, line.rstrip()) for line in output.splitlines()]
    sides = [m for m in http if m is not None]
    if not any(m["side"] == "hermes" for m in sides):
        raise OutputChanged(name, "a line like 'HTTP 32 clients, hermes   CPU 1.000 ms a call, …'")
    for side in sides:
        figures.append(
            Figure(
                name,
                f"HTTP, {side['clients']} clients at once, {side['side']}",
                side["figure"],
                "—",
                INFO,
            )
        )
    if with_fastmcp:
        ratio = _line(
            name,
            output,
            HTTP_RATIO,
            "HTTP CPU a call, hermes / fastmcp = 0.45x  goal <= 0.5x  PASS",
        )
        figures.append(
            Figure(
                name,
                "HTTP CPU a call, hermes / fastmcp (32 clients)",
                f"{ratio['ratio']}×",
                _goal(ratio["goal"]) + " and no error",
                ratio["verdict"],
            )
        )
    return figures


# -- bench_search: the evaluation set's table -------------------------------------------------
def parse_search(output: str) -> list[Figure]:
    """bench_search.py: top-1 and top-5 on the fixed set, index build, one query's time."""
    name = "bench_search"
    rows = markdown_table(name, output, ("What", "Figure", "Goal"))

    def row(prefix: str, goal_prefix: str = "") -> dict[str, str]:
        for r in rows:
            if r["What"].startswith(prefix) and r["Goal"].startswith(goal_prefix):
                return r
        raise OutputChanged(name, f"a table row '| {prefix}… | … | {goal_prefix}… |'")

    figures = []
    requests = row("requests")
    first = row("right tool first")
    figures.append(
        Figure(name, f"right tool first ({requests['Figure']})", first["Figure"], "—", INFO)
    )
    figures.append(_met_figure(name, row("right tool in the top 5")))
    build = row("index build", "≤")
    figures.append(_ms_figure(name, build, r"([\d.]+) ms", "'<N> ms'", build["What"]))
    query = row("one query over")
    what = f"{query['What']} (goal on the median)"
    figures.append(_ms_figure(name, query, r"median ([\d.]+) ms.*", "'median <N> ms'", what))
    # The blind set (an outside author's): its held-out half against the goal, the rest shown.
    blind = row("blind set: requests")
    for prefix in ("blind set: right tool first", "blind set: right tool in the top 5, the half"):
        shown = row(prefix)
        what = shown["What"] + (f" ({blind['Figure']})" if "first" in prefix else "")
        figures.append(Figure(name, what, shown["Figure"], "—", INFO))
    figures.append(_met_figure(name, row("blind set: right tool in the top 5, the held-out half")))
    return figures


def _met_figure(name: str, row: dict[str, str]) -> Figure:
    """A table row whose goal ends in ``: met`` or ``: NOT met``, as a figure with its verdict."""
    goal, _, met = row["Goal"].rpartition(": ")
    if met not in ("met", "NOT met"):
        raise OutputChanged(name, f"'met' or 'NOT met' after the goal of '{row['What']}'")
    return Figure(name, row["What"], row["Figure"], goal, "PASS" if met == "met" else "MISS")


# -- bench_tool_search: one section per catalogue size ---------------------------------------
SECTION = r"## (?P<tools>\d+) tools .*"
SEARCH_TIME = (
    r"one search: median (?P<median>[\d.]+) ms, p90 (?P<p90>[\d.]+) ms, max (?P<max>[\d.]+) ms "
    r"\(goal (?P<goal>≤ [\d.]+ ms)\)"
)
RANK = (
    r"right tool in the top (?P<top>\d+): (?P<found>\d+)/(?P<of>\d+) \(goal (?P<goal>\d+): "
    r"(?P<met>met|NOT met)\); first: (?P<first>\d+/\d+)"
)
TOKENS = r"tokens of every schema: +~(?P<all>\d+)"
OFFERED = r"tool_search: auto offers at first: +~(?P<first>\d+)"


def parse_tool_search(output: str) -> list[Figure]:
    """bench_tool_search.py: one search's time through MCPHost, the 20 phrasings' ranks and
    the tokens offered, for each catalogue size."""
    name = "bench_tool_search"
    sections = re.split(r"^(?=## )", output, flags=re.MULTILINE)[1:]
    if not sections:
        raise OutputChanged(name, "a section heading like '## 10077 tools (…)'")
    figures = []
    for section in sections:
        head = _line(name, section, SECTION, "## 10077 tools (many_tools_server + …)")
        tools = head["tools"]
        every = _line(name, section, TOKENS, "tokens of every schema:            ~123456")
        offered = _line(name, section, OFFERED, "tool_search: auto offers at first: ~300")
        timing = _line(
            name,
            section,
            SEARCH_TIME,
            "one search: median 1.00 ms, p90 2.00 ms, max 3.00 ms (goal ≤ 10 ms)",
        )
        rank = _line(
            name, section, RANK, "right tool in the top 5: 19/20 (goal 18: met); first: 15/20"
        )
        figures += [
            Figure(
                name,
                f"{tools} tools: tokens offered at first / every schema's",
                f"~{offered['first']} / ~{every['all']}",
                "—",
                INFO,
            ),
            Figure(
                name,
                f"{tools} tools: one search through MCPHost (goal on the median)",
                f"median {timing['median']} ms, p90 {timing['p90']} ms, max {timing['max']} ms",
                timing["goal"],
                _within(timing["median"], timing["goal"], name),
            ),
            Figure(
                name,
                f"{tools} tools: right tool in the top {rank['top']} (first: {rank['first']})",
                f"{rank['found']}/{rank['of']}",
                f"≥ {rank['goal']}/{rank['of']}",
                "PASS" if rank["met"] == "met" else "MISS",
            ),
        ]
    return figures


# -- bench_fleet: "  name  figure  PASS" and the goal in the last line -----------------------
FLEET_ROW = r"  (?P<name>\S.*?)\s{2,}(?P<figure>\S.*?)(?:\s+(?P<verdict>PASS|MISS))?\s*"
FLEET_GOAL = r"  \(goal: CPU ratio <= (?P<goal>[\d.]+)x; .*\)"
FLEET_CPU = "CPU per call, state:+bus: vs embedded"


def parse_fleet(output: str) -> list[Figure]:
    """bench_fleet.py: replicas through HAProxy, CPU per call with PostgreSQL and Redis."""
    name = "bench_fleet"
    goal = _line(name, output, FLEET_GOAL, "  (goal: CPU ratio <= 1.15x; p50/p99 …)")
    figures = []
    for line in output.splitlines():
        if line.startswith("  (goal"):
            continue
        row = re.fullmatch(FLEET_ROW, line)
        if row is None:
            continue
        is_cpu = row["name"] == FLEET_CPU
        figures.append(
            Figure(
                name,
                row["name"],
                row["figure"],
                _goal(f"<= {goal['goal']}x") if is_cpu else "—",
                _verdict(row["verdict"] or ""),
            )
        )
    if not any(f.measure == FLEET_CPU and f.result != INFO for f in figures):
        raise OutputChanged(name, f"a line like '  {FLEET_CPU}  <figure>  PASS'")
    return figures
