"""Run the official MCP client conformance suite against our host and compare with the baseline.

::

    python tests/conformance/run.py [--release stable|next|both] [--suite all] [--jobs 2]
                                    [--timeout-ms 60000] [--node PATH]
                                    [--cli PATH --expected FILE --output-dir DIR]  (one release)

Installs nothing: ``nox -s conformance`` installs each release of
``@modelcontextprotocol/conformance`` (and Node 22) into its own folder and puts that Node first
on PATH.  Two releases run, one after the other (``--release both``, the default):

* ``stable``: the pinned release, in ``.cache/conformance``, against
  ``tests/conformance/expected-failures.txt``;
* ``next``: the newest release (a pre-release, with the 2026-07-28 scenarios), in
  ``.cache/conformance-next``, against ``tests/conformance/expected-failures-next.txt``.

For each, ``conformance client`` runs with ``tests/conformance/client.py`` as the client; each
scenario's checks and the totals are printed and compared with that release's baseline:

* a failure not listed there → its failed checks and the client's stderr are shown, exit 1;
* a listed scenario that now passes → a banner (``NOW PASSING``: remove its line), exit 0.

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
CLIENT = HERE / "client.py"


@dataclass(frozen=True)
class Release:
    """One installed release of the suite and the baseline it is compared with."""

    name: str
    cache: Path
    expected: Path

    @property
    def cli(self) -> Path:
        package = self.cache / "node_modules" / "@modelcontextprotocol" / "conformance"
        return package / "dist" / "index.js"


# noxfile.py (CONFORMANCE_RELEASES) installs these folders; keep the two in step.
RELEASES = {
    "stable": Release("stable", ROOT / ".cache" / "conformance", HERE / "expected-failures.txt"),
    "next": Release(
        "next", ROOT / ".cache" / "conformance-next", HERE / "expected-failures-next.txt"
    ),
}
EXPECTED = RELEASES["stable"].expected
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


@dataclass
class Outcome:
    """One release's run: what the summary line and the final report need."""

    release: str
    version: str
    results: list[ScenarioResult]
    unexpected: list[ScenarioResult]
    fixed: list[ScenarioResult]

    @property
    def passed(self) -> int:
        return sum(r.ok for r in self.results)

    def counts(self) -> str:
        total, unexpected = len(self.results), len(self.unexpected)
        return (
            f"{self.release} ({self.version}): {self.passed} of {total} scenarios pass, "
            f"{total - self.passed - unexpected} expected failures, {unexpected} unexpected, "
            f"{len(self.fixed)} listed but now passing"
        )


def run_release(args: argparse.Namespace, release: Release) -> Outcome | int:
    """Run *release* against its baseline and print the table; an int is an exit code for a
    run that could not start or reported nothing."""
    cli, expected_path = args.cli or release.cli, args.expected or release.expected
    # In the worktree, not in .cache: .cache may be shared by several checkouts.
    output_dir = args.output_dir or ROOT / "build" / f"conformance-{release.name}"
    if not cli.exists():
        print(f"conformance CLI ({release.name}) not found at {cli} (nox -s conformance installs)")
        return 2
    if node_major(args.node) < 22:
        print(f"{args.node} is Node {node_major(args.node)}; the conformance CLI needs Node 22+")
        return 2
    # The suite splits --command on single spaces and appends the server URL.
    command = f"{sys.executable} {CLIENT.relative_to(ROOT)}"
    if " " in sys.executable:
        print(f"the Python path must not contain spaces (the suite splits on them): {command}")
        return 2
    shutil.rmtree(output_dir, ignore_errors=True)
    output_dir.mkdir(parents=True)
    run_args = argparse.Namespace(**{**vars(args), "cli": cli})
    version = subprocess.run(
        [args.node, str(cli), "--version"], capture_output=True, text=True
    ).stdout.strip()
    print(
        f"\n=== conformance {version} ({release.name}) --suite {args.suite}: client = {command}",
        flush=True,
    )

    started = time.monotonic()
    if args.suite == "all" and args.jobs > 0:
        scenarios = client_scenarios(run_args)
        print(f"{len(scenarios)} scenarios, {args.jobs} at a time", flush=True)
        results, text = run_bounded(run_args, command, scenarios, output_dir)
        (output_dir / "suite-stdout.txt").write_text(text, encoding="utf-8")
        if not results:
            print("`conformance list --client` named no scenarios")
            return 1
    else:
        proc = run_suite(run_args, command, ["--suite", args.suite], output_dir)
        (output_dir / "suite-stdout.txt").write_text(proc.stdout, encoding="utf-8")
        (output_dir / "suite-stderr.txt").write_text(proc.stderr, encoding="utf-8")
        results = parse_summary(proc.stdout)
        if not results:
            print(f"the conformance CLI reported no scenarios (exit {proc.returncode}):")
            print((proc.stdout + proc.stderr)[-3000:])
            return 1
    elapsed = time.monotonic() - started

    expected = read_expected(expected_path)
    rerun: dict[str, str] = {}
    for i, r in enumerate(results):
        # A scenario whose only complaint is a timing warning (the suite runs scenarios side
        # by side; on a loaded machine a reconnect can come "slightly late") gets one run
        # alone; real check failures are never rerun.
        if not r.ok and r.failed == 0 and r.warnings and r.scenario not in expected:
            folder = output_dir / "rerun" / r.scenario.replace("/", "_")
            alone = run_suite(run_args, command, ["--scenario", r.scenario], folder)
            again = parse_single(alone.stdout + alone.stderr, r.scenario)
            if again is not None and again.ok:
                rerun[r.scenario] = explain(r.scenario, output_dir)
                results[i] = again
    unexpected = [r for r in results if not r.ok and r.scenario not in expected]
    fixed = [r for r in results if r.ok and r.scenario in expected]
    width = max(len(r.scenario) for r in results)
    for r in results:
        mark = "PASS" if r.ok else ("xfail" if r.scenario in expected else "FAIL")
        mark = "PASS*" if r.scenario in rerun else mark
        mark = "NOW" if r in fixed else mark
        mark = "none" if r.ok and not r.passed else mark  # passed without a single check
        warn = f", {r.warnings} warnings" if r.warnings else ""
        line = f"  {mark:5} {r.scenario:{width}}  {r.passed} passed, {r.failed} failed{warn}"
        print(line)

    n_ok = sum(r.ok for r in results)
    checks = [sum(getattr(r, k) for r in results) for k in ("passed", "failed", "warnings")]
    print(
        f"\nScenarios ({release.name}): {n_ok} passed, {len(results) - n_ok} failed "
        f"({len(results) - n_ok - len(unexpected)} expected, {len(unexpected)} unexpected) "
        f"of {len(results)}; checks: {checks[0]} passed, {checks[1]} failed, "
        f"{checks[2]} warnings; {elapsed:.1f} s"
    )
    if fixed:
        print(now_passing_banner(fixed, expected, expected_path))
    empty = [r.scenario for r in results if r.ok and not r.passed]
    if empty:
        print(
            f"note: {len(empty)} scenario(s) ran no check at all (the client never did what "
            f"they test), counted as passed: {', '.join(empty)}"
        )
    seen = {r.scenario for r in results}
    for scenario in sorted(set(expected) - seen):
        print(f"note: {scenario} (in {expected_path.name}) was not run by this suite")
    for scenario, first in rerun.items():
        print(f"\nPASS*: {scenario} passed when run alone; its first run only warned:\n{first}")
    for r in unexpected:
        print(f"\nUNEXPECTED FAILURE: {r.scenario}\n{explain(r.scenario, output_dir)}")
    return Outcome(release.name, version, results, unexpected, fixed)


def now_passing_banner(
    fixed: list[ScenarioResult], expected: dict[str, str], expected_path: Path
) -> str:
    """The loud note for listed scenarios that pass: the baseline is stale, say which lines."""
    rule = "!" * 78
    lines = [
        "",
        rule,
        f"!! NOW PASSING: {len(fixed)} scenario(s) listed in {expected_path.name} pass.",
        f"!! Remove their lines from tests/conformance/{expected_path.name}:",
    ]
    lines += [f"!!   {r.scenario}  (listed as: {expected[r.scenario]})" for r in fixed]
    lines.append(rule)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--release",
        choices=(*RELEASES, "both"),
        default="both",
        help="which installed release(s) to run (default: both, stable first)",
    )
    parser.add_argument("--cli", type=Path, help="conformance dist/index.js (one release only)")
    parser.add_argument("--node", default=shutil.which("node") or "node", help="Node 22+ binary")
    parser.add_argument("--suite", default="all")
    parser.add_argument("--timeout-ms", type=int, default=60000, help="per scenario")
    parser.add_argument("--expected", type=Path, help="baseline file (one release only)")
    parser.add_argument("--output-dir", type=Path, help="results folder (one release only)")
    parser.add_argument(
        "--jobs",
        type=int,
        default=2,
        help="scenarios run at once for --suite all (0: all at once, as the CLI's --suite does)",
    )
    args = parser.parse_args(argv)
    releases = list(RELEASES.values()) if args.release == "both" else [RELEASES[args.release]]
    if len(releases) > 1 and (args.cli or args.expected or args.output_dir):
        parser.error("--cli, --expected and --output-dir need one --release (stable or next)")

    outcomes: list[Outcome] = []
    worst = 0
    for release in releases:
        outcome = run_release(args, release)
        if isinstance(outcome, int):
            worst = max(worst, outcome)
            continue
        outcomes.append(outcome)
        worst = max(worst, 1 if outcome.unexpected else 0)
    if len(releases) > 1:
        print("\n=== conformance, both releases")
        for outcome in outcomes:
            print(f"  {outcome.counts()}")
    return worst


if __name__ == "__main__":
    sys.exit(main())
