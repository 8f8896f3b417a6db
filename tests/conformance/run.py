"""Run the official MCP client conformance suite against our host and compare with the baseline.

::

    python tests/conformance/run.py [--cli PATH] [--node PATH] [--suite all] [--timeout-ms 60000]
                                    [--jobs 2]

Installs nothing: ``nox -s conformance`` installs ``@modelcontextprotocol/conformance`` and Node 22
into ``.cache/conformance`` (the defaults here) and puts that Node first on PATH.  Runs
``conformance client --suite all`` with ``tests/conformance/client.py`` as the client, prints each
scenario's checks and the totals, and compares with ``tests/conformance/expected-failures.txt``:

* a failure not listed there → its failed checks and the client's stderr are shown, exit 1;
* a listed scenario that now passes → a note (remove it from the file), exit 0.

``--suite all`` runs at most ``--jobs`` scenarios at a time (default 2), each as its own
``conformance client --scenario X``: the CLI's own ``--suite`` starts every scenario at once,
and on a busy 2-core machine some then miss the 25 s initialize deadline although the host is
fine.  ``--jobs 0`` keeps the CLI's all-at-once run; other suites always use it.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CACHE = ROOT / ".cache" / "conformance"
DEFAULT_CLI = CACHE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
EXPECTED = HERE / "expected-failures.txt"
CLIENT = HERE / "client.py"
# "✓ auth/metadata-default: 14 passed, 0 failed" (", 2 warnings" when there are any)
SUMMARY_LINE = re.compile(
    r"^(?P<mark>[✓✗]) (?P<scenario>\S+): (?P<passed>\d+) passed, (?P<failed>\d+) failed"
    r"(?:, (?P<warnings>\d+) warnings)?\s*$"
)


@dataclass
class ScenarioResult:
    scenario: str
    passed: int
    failed: int
    warnings: int

    @property
    def ok(self) -> bool:
        return self.failed == 0 and self.warnings == 0


def read_expected(path: Path) -> dict[str, str]:
    """scenario → reason, from ``scenario  reason`` lines (``#`` starts a comment line)."""
    expected: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        scenario, _, reason = line.partition(" ")
        expected[scenario] = reason.strip()
    return expected


# One scenario run alone ends with "Passed: 5/5, 0 failed, 0 warnings".
SINGLE_LINE = re.compile(
    r"^Passed: (?P<passed>\d+)/\d+, (?P<failed>\d+) failed, (?P<warnings>\d+) warnings\s*$"
)


def parse_single(stdout: str, scenario: str) -> ScenarioResult | None:
    for line in stdout.splitlines():
        match = SINGLE_LINE.match(line.strip())
        if match:
            counts = (int(match[k]) for k in ("passed", "failed", "warnings"))
            return ScenarioResult(scenario, *counts)
    return None


def parse_summary(stdout: str) -> list[ScenarioResult]:
    results = []
    for line in stdout.splitlines():
        match = SUMMARY_LINE.match(line.strip())
        if match:
            results.append(
                ScenarioResult(
                    match["scenario"],
                    int(match["passed"]),
                    int(match["failed"]),
                    int(match["warnings"] or 0),
                )
            )
    return results


def node_major(node: str) -> int:
    out = subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout
    return int(out.strip().lstrip("v").split(".")[0])


def explain(scenario: str, output_dir: Path) -> str:
    """The failed checks and the end of the client's stderr, from the suite's ``-o`` folder."""
    found = sorted(output_dir.glob(f"{scenario}-*"))
    if not found:
        return "    (no results folder)"
    folder = found[-1]
    lines = []
    checks = json.loads((folder / "checks.json").read_text(encoding="utf-8"))
    for check in checks:
        if check.get("status") in ("FAILURE", "WARNING"):
            message = check.get("errorMessage") or check.get("description", "")
            lines.append(f"    {check['status']} {check['id']}: {message}")
    stderr = (folder / "stderr.txt").read_text(encoding="utf-8", errors="replace").strip()
    if stderr:
        lines.append("    client stderr (last lines):")
        lines += [f"      {line}" for line in stderr.splitlines()[-12:]]
    lines.append(f"    details: {folder}")
    return "\n".join(lines)


def run_suite(
    args: argparse.Namespace, command: str, selector: list[str], output_dir: Path
) -> subprocess.CompletedProcess[str]:
    """``conformance client`` for *selector* (``--suite X`` or ``--scenario X``)."""
    return subprocess.run(
        [
            args.node,
            str(args.cli),
            "client",
            "--command",
            command,
            *selector,
            "--timeout",
            str(args.timeout_ms),
            "-o",
            str(output_dir),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


# "  - auth/metadata-default [2025-11-25]" in ``conformance list --client``
LISTED = re.compile(r"^\s+- (?P<scenario>\S+)(?: \[[^\]]*\])?\s*$")


def client_scenarios(args: argparse.Namespace) -> list[str]:
    """Every client scenario (what ``--suite all`` runs), from ``conformance list --client``."""
    out = subprocess.run(
        [args.node, str(args.cli), "list", "--client"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    return [m["scenario"] for line in out.splitlines() if (m := LISTED.match(line))]


def run_bounded(
    args: argparse.Namespace, command: str, scenarios: list[str], output_dir: Path
) -> tuple[list[ScenarioResult], str]:
    """Each scenario alone, at most ``args.jobs`` at a time; results in the listed order,
    and every run's output (for suite-stdout.txt)."""

    def one(scenario: str) -> tuple[ScenarioResult, str]:
        proc = run_suite(args, command, ["--scenario", scenario], output_dir)
        text = proc.stdout + proc.stderr
        found = parse_single(text, scenario)
        # No summary line (the CLI crashed, or the client never answered): a failure.
        return (found or ScenarioResult(scenario, 0, 1, 0)), f"== {scenario}\n{text}"

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        done = list(pool.map(one, scenarios))
    return [r for r, _ in done], "\n".join(t for _, t in done)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", type=Path, default=DEFAULT_CLI, help="conformance dist/index.js")
    parser.add_argument("--node", default=shutil.which("node") or "node", help="Node 22+ binary")
    parser.add_argument("--suite", default="all")
    parser.add_argument("--timeout-ms", type=int, default=60000, help="per scenario")
    parser.add_argument("--expected", type=Path, default=EXPECTED)
    parser.add_argument("--output-dir", type=Path, default=CACHE / "results")
    parser.add_argument(
        "--jobs",
        type=int,
        default=2,
        help="scenarios run at once for --suite all (0: all at once, as the CLI's --suite does)",
    )
    args = parser.parse_args(argv)

    if not args.cli.exists():
        print(f"conformance CLI not found at {args.cli} (nox -s conformance installs it)")
        return 2
    if node_major(args.node) < 22:
        print(f"{args.node} is Node {node_major(args.node)}; the conformance CLI needs Node 22+")
        return 2
    # The suite splits --command on single spaces and appends the server URL.
    command = f"{sys.executable} {CLIENT.relative_to(ROOT)}"
    if " " in sys.executable:
        print(f"the Python path must not contain spaces (the suite splits on them): {command}")
        return 2
    shutil.rmtree(args.output_dir, ignore_errors=True)
    args.output_dir.mkdir(parents=True)
    version = subprocess.run(
        [args.node, str(args.cli), "--version"], capture_output=True, text=True
    ).stdout.strip()
    print(f"conformance {version} --suite {args.suite}: client = {command}", flush=True)

    started = time.monotonic()
    if args.suite == "all" and args.jobs > 0:
        scenarios = client_scenarios(args)
        print(f"{len(scenarios)} scenarios, {args.jobs} at a time", flush=True)
        results, text = run_bounded(args, command, scenarios, args.output_dir)
        (args.output_dir / "suite-stdout.txt").write_text(text, encoding="utf-8")
        if not results:
            print("`conformance list --client` named no scenarios")
            return 1
    else:
        proc = run_suite(args, command, ["--suite", args.suite], args.output_dir)
        (args.output_dir / "suite-stdout.txt").write_text(proc.stdout, encoding="utf-8")
        (args.output_dir / "suite-stderr.txt").write_text(proc.stderr, encoding="utf-8")
        results = parse_summary(proc.stdout)
        if not results:
            print(f"the conformance CLI reported no scenarios (exit {proc.returncode}):")
            print((proc.stdout + proc.stderr)[-3000:])
            return 1
    elapsed = time.monotonic() - started

    expected = read_expected(args.expected)
    rerun: dict[str, str] = {}
    for i, r in enumerate(results):
        # A scenario whose only complaint is a timing warning (the suite runs scenarios side
        # by side; on a loaded machine a reconnect can come "slightly late") gets one run
        # alone; real check failures are never rerun.
        if not r.ok and r.failed == 0 and r.warnings and r.scenario not in expected:
            folder = args.output_dir / "rerun" / r.scenario.replace("/", "_")
            alone = run_suite(args, command, ["--scenario", r.scenario], folder)
            again = parse_single(alone.stdout + alone.stderr, r.scenario)
            if again is not None and again.ok:
                rerun[r.scenario] = explain(r.scenario, args.output_dir)
                results[i] = again
    unexpected = [r for r in results if not r.ok and r.scenario not in expected]
    fixed = [r for r in results if r.ok and r.scenario in expected]
    width = max(len(r.scenario) for r in results)
    for r in results:
        mark = "PASS" if r.ok else ("xfail" if r.scenario in expected else "FAIL")
        mark = "PASS*" if r.scenario in rerun else mark
        warn = f", {r.warnings} warnings" if r.warnings else ""
        line = f"  {mark:5} {r.scenario:{width}}  {r.passed} passed, {r.failed} failed{warn}"
        print(line)

    n_ok = sum(r.ok for r in results)
    checks = [sum(getattr(r, k) for r in results) for k in ("passed", "failed", "warnings")]
    print(
        f"\nScenarios: {n_ok} passed, {len(results) - n_ok} failed "
        f"({len(results) - n_ok - len(unexpected)} expected, {len(unexpected)} unexpected) "
        f"of {len(results)}; checks: {checks[0]} passed, {checks[1]} failed, "
        f"{checks[2]} warnings; {elapsed:.1f} s"
    )
    for r in fixed:
        print(
            f"note: {r.scenario} now passes; remove it from {args.expected.name} "
            f"({expected[r.scenario]})"
        )
    seen = {r.scenario for r in results}
    for scenario in sorted(set(expected) - seen):
        print(f"note: {scenario} (in {args.expected.name}) was not run by this suite")
    for scenario, first in rerun.items():
        print(f"\nPASS*: {scenario} passed when run alone; its first run only warned:\n{first}")
    for r in unexpected:
        print(f"\nUNEXPECTED FAILURE: {r.scenario}\n{explain(r.scenario, args.output_dir)}")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
