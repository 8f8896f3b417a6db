"""The host's peak memory against servers that send without end, for ``nox -s bench``.

::

    python benchmarks/bench_memory.py          # about a minute
    nox -s bench                               # runs it after bench_host.py

Each row runs ``hermes mcp status --json`` as a user does (a fresh process, a fresh
``HERMES_HOME``, the default ``max_message_bytes`` of 64 MiB) against one hostile server, and
reads the command's peak resident memory (``ru_maxrss`` of the finished child, measured by a
parent that does nothing else).  The servers are ``tests/servers/hostile_http.py`` (an HTTP
endpoint answering with an endless SSE event, an SSE line that never ends in 1 MiB chunks,
an endless chunked JSON body, or a 4 GB ``Content-Length``) and
``tests/servers/hostile_server.py`` (a stdio server whose tool writes one endless line;
reached through ``hermes mcp call``).  Before ``max_message_bytes`` one such
command grew to 5–8 GB; the bound here is fixed, not relative to anything.

A row also checks that the server failed for the right reason (the limit named in the error)
and, for HTTP, that the command printed no traceback (an unclosed reader finalised by the
event loop printed "Task exception was never retrieved").
The process exits 0 even when a bound is missed: benchmarks report, tests assert
(``tests/hermes_core/test_hostile_bounds.py`` asserts the bound with a 1 MiB limit).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SERVERS = ROOT / "tests" / "servers"
sys.path.insert(0, str(ROOT / "tests"))

from servers.net import PORT, http_server  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_host import markdown_table, marked_region, replace_marked  # noqa: E402

#: The fixed bound on the CLI's peak RSS (everything included: Python, pydantic, the SDK).
BOUND_MB = 400
HTTP_MODES = {
    "endless-sse": "HTTP: one SSE event without end",
    "endless-line": "HTTP: an SSE line without end (`data: `, 1 MiB chunks)",
    "endless-json": "HTTP: a chunked JSON body without end",
    "huge-length": "HTTP: Content-Length 4 GB",
}
_PEAK = (
    "import json, resource, subprocess, sys\n"
    "r = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=600)\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "print(json.dumps([r.returncode, r.stdout, r.stderr, peak]))\n"
)


def peak_of(home: Path, *args: str) -> tuple[int, str, str, float]:
    """``hermes ARGS`` in a fresh parent: exit code, stdout, stderr, peak RSS in MB."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    outer = subprocess.run(
        [sys.executable, "-c", _PEAK, sys.executable, "-m", "hermes_core", *args],
        capture_output=True,
        text=True,
        env={**env, "HERMES_HOME": str(home)},
        timeout=660,
        check=True,
    )
    code, out, err, peak_kb = json.loads(outer.stdout)
    return int(code), str(out), str(err), int(peak_kb) / 1024


def measure_http(mode: str) -> dict[str, Any]:
    server = [sys.executable, str(SERVERS / "hostile_http.py"), PORT, mode]
    with tempfile.TemporaryDirectory() as tmp, http_server(server) as url:
        home = Path(tmp)
        (home / "config.yaml").write_text(
            f"mcp_servers:\n  evil:\n    url: {url}\n    connect_timeout: 300\n"
        )
        began = time.perf_counter()
        code, out, err, peak = peak_of(home, "mcp", "status", "--json")
        seconds = time.perf_counter() - began
    try:
        error = json.loads(out)[0]["last_error"] or ""
    except (ValueError, LookupError, TypeError):
        error = f"(no status: exit {code}: {err.strip()[-200:]})"
    return {
        "measure": HTTP_MODES[mode],
        "peak_mb": peak,
        "seconds": seconds,
        "error": error,
        "traceback": "Traceback" in err,
    }


def measure_stdio() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        (home / "config.yaml").write_text(
            "mcp_servers:\n  evil:\n"
            f"    command: {sys.executable}\n"
            f"    args: [{str(SERVERS / 'hostile_server.py')!r}]\n"
            "    env:\n      HOSTILE_FLOOD: '1'\n"
        )
        began = time.perf_counter()
        code, out, err, peak = peak_of(home, "mcp", "call", "mcp_evil_flood")
        seconds = time.perf_counter() - began
    try:
        error = json.loads(out)["error"]
    except (ValueError, LookupError, TypeError):
        error = f"(no result: exit {code}: {err.strip()[-200:]})"
    return {
        "measure": "stdio: one line without end",
        "peak_mb": peak,
        "seconds": seconds,
        "error": error,
    }


def rows() -> list[dict[str, Any]]:
    """Every measure, each judged against :data:`BOUND_MB` (and the reason it failed)."""
    measured = [measure_http(mode) for mode in HTTP_MODES] + [measure_stdio()]
    for row in measured:
        stopped = "max_message_bytes" in row["error"]
        row["bound_mb"] = BOUND_MB
        row["verdict"] = "PASS" if row["peak_mb"] < BOUND_MB and stopped else "MISS"
        if not stopped:
            row["verdict"] += " (not stopped by max_message_bytes)"
        if row.get("traceback"):
            row["verdict"] = "MISS (a traceback on stderr)"
    return measured


README_BEGIN = "<!-- memory table: begin (written by benchmarks/bench_memory.py --readme) -->"
README_END = "<!-- memory table: end -->"


def table_lines(measured: list[dict[str, Any]]) -> list[str]:
    header = ("measure (default max_message_bytes, 64 MiB)", "peak RSS", "bound", "took", "result")
    lines = [
        (
            r["measure"],
            f"{r['peak_mb']:.0f} MB",
            f"< {r['bound_mb']} MB",
            f"{r['seconds']:.1f} s",
            r["verdict"],
        )
        for r in measured
    ]
    return markdown_table(header, lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="accepted (the run is the same)")
    parser.add_argument(
        "--json", metavar="FILE", help="also write the rows as JSON to FILE with .memory added"
    )
    parser.add_argument(
        "--readme",
        metavar="FILE",
        help="also write the table into FILE (README.md) between its memory table markers",
    )
    options = parser.parse_args(argv)
    if options.readme:
        marked_region(Path(options.readme), README_BEGIN, README_END)
    print("[bench] peak memory against servers that send without end", file=sys.stderr)
    measured = rows()
    print()
    summary = f"hermes CLI peak memory against hostile servers — {os.cpu_count()} CPUs"
    print(summary)
    print()
    print("\n".join(table_lines(measured)))
    if options.json:
        target = Path(options.json)
        target.with_name(target.stem + ".memory" + target.suffix).write_text(
            json.dumps(measured, indent=2)
        )
    if options.readme:
        lines = [summary, "", *table_lines(measured), ""]
        replace_marked(Path(options.readme), README_BEGIN, README_END, lines)
        print(f"* the table was written into {options.readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
