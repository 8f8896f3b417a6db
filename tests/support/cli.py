"""Run the `hermes` command as a user does: a real subprocess of this interpreter."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def run_hermes(
    *args: str,
    env: Mapping[str, str] | None = None,
    minimal: bool = False,
    cwd: Path | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """``python -m hermes_core ARGS``; *env* is laid over our environment without ``HERMES_*``
    (or, with *minimal*, over just ``PYTHONPATH`` and a UTF-8 locale)."""
    if minimal:
        base = {"PYTHONPATH": os.environ.get("PYTHONPATH", ""), "LANG": "C.UTF-8"}
    else:
        base = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    return subprocess.run(
        [sys.executable, "-m", "hermes_core", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**base, **(env or {})},
        timeout=timeout,
    )
