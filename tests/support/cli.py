"""Run the `hermes` command as a user does: a real process of this interpreter, forked from
the worker's launcher (``support/cli_launch.py``) where that gives the same process, else
started anew."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from support import cli_launch
from support.home import clean_env


def run_hermes(
    *args: str,
    env: Mapping[str, str] | None = None,
    minimal: bool = False,
    cwd: Path | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """``python -m hermes_core ARGS``; *env* is laid over our environment without ``HERMES_*``
    (or, with *minimal*, over just ``PYTHONPATH`` and a UTF-8 locale); ``HERMES_HOME`` is the
    run's throwaway home unless *env* sets it or ``HOME``."""
    if minimal:
        base: Mapping[str, str] = {
            "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
            "LANG": "C.UTF-8",
        }
    else:
        base = os.environ
    full_env = clean_env(base, env)
    forked = cli_launch.run(list(args), full_env, cwd, timeout)
    if forked is not None:
        return forked
    return subprocess.run(
        [sys.executable, "-m", "hermes_core", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=timeout,
    )


def hermes_at(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``hermes ARGS`` against *home* (its ``HERMES_HOME``), *env* added to the environment."""
    return run_hermes(*args, env={"HERMES_HOME": str(home), **env})
