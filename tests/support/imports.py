"""Which modules a ``hermes`` command imports (``python -X importtime``), for the tests that pin
what start-up must not load."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def imported_modules(*args: str, home: Path) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    """Run ``hermes ARGS`` with a clean ``HERMES_*`` environment and *home*; the modules it
    imported, and the finished process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    env["HERMES_HOME"] = str(home)
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hermes_core", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in result.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "hermes_core.cli" in modules, result.stderr[-2000:]
    return modules, result


def offending(modules: set[str], banned: set[str]) -> list[str]:
    """The modules of *modules* that are, or live under, one of *banned*."""
    return sorted(m for m in modules if any(m == b or m.startswith(b + ".") for b in banned))
