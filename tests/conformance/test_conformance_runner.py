"""The conformance runner's parsing and the baseline file (no Node needed; the suite itself runs
in ``nox -s conformance``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent


def load_run() -> ModuleType:
    spec = importlib.util.spec_from_file_location("conformance_run", HERE / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_suite_summary_is_parsed() -> None:
    run = load_run()
    stdout = (
        "=== SUITE SUMMARY ===\n\n"
        "✓ initialize: 1 passed, 0 failed\n"
        "✗ auth/basic-cimd: 13 passed, 0 failed, 1 warnings\n"
        "✗ elicitation-sep1034-client-defaults: 0 passed, 6 failed\n"
        "    - ClientElicitationSEP1034General: Elicitation failed\n"
        "\nTotal: 14 passed, 6 failed, 1 warnings\n"
    )
    results = run.parse_summary(stdout)
    assert [(r.scenario, r.passed, r.failed, r.warnings, r.ok) for r in results] == [
        ("initialize", 1, 0, 0, True),
        ("auth/basic-cimd", 13, 0, 1, False),
        ("elicitation-sep1034-client-defaults", 0, 6, 0, False),
    ]


def test_every_expected_failure_has_a_reason() -> None:
    run = load_run()
    path = HERE / "expected-failures.txt"
    expected = run.read_expected(path)
    assert expected, "the baseline is empty"
    assert all(reason for reason in expected.values()), expected
    lines = [
        line.split()[0]
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert len(lines) == len(set(lines)), "a scenario is listed twice"


def test_both_baselines_name_a_reason_per_line() -> None:
    run = load_run()
    for release in run.RELEASES.values():
        expected = run.read_expected(release.expected)
        assert all(reason for reason in expected.values()), (release.name, expected)


def test_a_listed_scenario_that_passes_is_announced_loudly() -> None:
    run = load_run()
    fixed = [run.ScenarioResult("request-metadata", 5, 0, 0)]
    banner = run.now_passing_banner(
        fixed, {"request-metadata": "not built"}, run.RELEASES["next"].expected
    )
    assert "NOW PASSING" in banner
    assert "request-metadata  (listed as: not built)" in banner
    assert "expected-failures-next.txt" in banner
