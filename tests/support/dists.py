"""Plugin distributions installed for real into a site folder (``*.dist-info`` with ``METADATA``
and ``entry_points.txt`` next to the module): importlib-metadata finds them exactly as after
``pip install`` once the folder is on the child process's ``PYTHONPATH``."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from support.cli import run_hermes


def install(site: Path, dist: str, module: str, entry: str, source: str) -> None:
    """Install distribution *dist* 1.0: module *module* under entry point *entry*."""
    (site / f"{module}.py").write_text(source)
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[hermes.plugins]\n{entry} = {module}\n")
    (info / "RECORD").write_text("")


def site_env(site: Path, **env: str) -> dict[str, str]:
    """The environment that puts *site* first on the child's ``sys.path``."""
    pythonpath = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    return {"PYTHONPATH": pythonpath, **env}


def hermes_with(site: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The real CLI with the distributions of *site* installed."""
    return run_hermes(*args, env=site_env(site, **env))
