"""Run a nox session from a fresh clone with nothing but ``python3`` (3.11+).

    python3 dev.py demo                 # set up, run the bundled example end to end
    python3 dev.py tests conformance    # the test suite + MCP conformance
    python3 dev.py lint                 # any nox session; arguments after -- go to it

Why a script: ``python3 -m pip install nox`` is refused by the system Python of Debian and Ubuntu
(PEP 668, "externally-managed-environment"), where most newcomers start.  This script never
installs into the interpreter that runs it: it creates ``.venv-dev`` next to itself (once), puts
nox there and runs nox from it, so the same two commands work on a system Python, a pyenv Python
and inside an active virtual environment alike.  Standard library only.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
TOOLS = ROOT / ".venv-dev"
NOX_REQUIREMENT = "nox>=2024.4.15"


def _python(env_dir: Path) -> Path:
    scripts = "Scripts" if os.name == "nt" else "bin"
    return env_dir / scripts / ("python.exe" if os.name == "nt" else "python")


def _ensure_tools() -> Path:
    python = _python(TOOLS)
    check = [str(python), "-c", "import nox"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return python
    try:
        import ensurepip  # noqa: F401  (Debian ships it separately, as python3-venv)
    except ImportError:
        sys.exit(
            "dev.py: this Python cannot create virtual environments (no 'ensurepip').\n"
            "On Debian or Ubuntu: sudo apt install python3-venv   then run the command again."
        )
    print(f"dev.py: creating {TOOLS.name} with nox (once)", flush=True)
    venv.EnvBuilder(with_pip=True, clear=True).create(TOOLS)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, NOX_REQUIREMENT], check=True)
    return python


def main(argv: list[str]) -> int:
    if sys.version_info < (3, 11):  # noqa: UP036 - said plainly on an older python3
        sys.exit(f"dev.py: Hermes needs Python 3.11 or newer (this is {sys.version.split()[0]})")
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    sessions, posargs = argv, []
    if "--" in argv:
        cut = argv.index("--")
        sessions, posargs = argv[:cut], argv[cut:]
    python = _ensure_tools()
    command = [str(python), "-m", "nox", "--noxfile", str(ROOT / "noxfile.py"), "-s", *sessions]
    first = [name for name in sessions if not _session_made(name)]
    if first:
        print(_first_run(first), flush=True)
        command.append("--verbose")  # pip's own progress, not minutes of silence
    return subprocess.run([*command, *posargs], cwd=ROOT).returncode


def _session_made(name: str, root: Path = ROOT) -> bool:
    """Whether nox made the session's environment already (``.nox/NAME`` or ``NAME-3.x``)."""
    folder = root / ".nox"
    return folder.is_dir() and any(
        p.name == name or p.name.startswith(f"{name}-") for p in folder.iterdir()
    )


def _first_run(sessions: list[str]) -> str:
    """What a first run of *sessions* does before anything else shows."""
    named = ", ".join(sessions)
    return (
        f"dev.py: first run of {named}: nox creates its environment under .nox/ and pip "
        "installs Hermes, its plugins and their dependencies there (a few minutes the first "
        "time; pip's output follows), then the session runs"
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
