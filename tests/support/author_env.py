"""A plugin author's virtual environment, made in seconds: a fresh venv whose site folder also
reads this test environment's (hermes-core, mcp, pytest, the first-party plugins), so
``pip install --no-deps -e PACKAGE`` installs only the author's package, for real, with pip.

Its ``bin/`` holds ``python``, and a ``hermes`` launcher (pip installs console scripts only for
the packages it installs, and hermes-core is not one of them here).  pip runs offline there
(``PIP_NO_INDEX``) and builds with the setuptools of this environment (no build isolation):
every dependency the scaffold names is already installed.  The pytest plugins of this test
environment that an author does not install (hypothesis's, xdist's) are switched off there: each
costs every pytest run in the author's venv start-up time, and the hermes plugin is what is tested.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from support.home import clean_env

# Loaded from this environment's entry points, but not in an author's (the hermes plugin is).
NOT_AN_AUTHORS_PLUGINS = "-p no:hypothesispytest -p no:xdist -p no:xdist.looponfail"


@dataclass(frozen=True)
class AuthorEnv:
    root: Path

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    @property
    def python(self) -> Path:
        return self.bin / "python"

    def env(self, **extra: str) -> dict[str, str]:
        """Our environment without ``HERMES_*`` (``HERMES_HOME`` the run's throwaway home), then
        *extra*; the venv's ``bin`` first on ``PATH`` (an extra ``PATH`` comes after it)."""
        path = os.pathsep.join((str(self.bin), extra.pop("PATH", os.environ.get("PATH", ""))))
        ours = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
        ours.pop("VIRTUAL_ENV", None)
        base = clean_env(ours, extra)
        offline = {
            "PIP_NO_INDEX": "1",
            "PIP_NO_BUILD_ISOLATION": "0",  # pip reads "0" here as: do not isolate the build
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "PYTEST_ADDOPTS": NOT_AN_AUTHORS_PLUGINS,
        }
        return {**base, **offline, **extra, "PATH": path, "VIRTUAL_ENV": str(self.root)}

    def run(
        self, command: str, cwd: Path, env: Mapping[str, str] | None = None, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        """*command* in bash (``set -e``), as the author types it."""
        return subprocess.run(
            ["bash", "-ec", command],
            cwd=cwd,
            env=self.env(**(env or {})),
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def make_author_env(root: Path) -> AuthorEnv:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    made = AuthorEnv(root)
    purelib = subprocess.run(
        [str(made.python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = sysconfig.get_paths()["purelib"]
    # An `import` line in a .pth file runs at start-up: our site folder, with its own .pth
    # files (the editable installs), comes after the venv's own.
    Path(purelib, "_hermes_test_env.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    launcher = made.bin / "hermes"
    launcher.write_text(
        f"#!{made.python}\nimport sys\nfrom hermes_core.cli import main\nsys.exit(main())\n"
    )
    launcher.chmod(0o755)
    (made.bin / "pip").write_text(f'#!/bin/sh\nexec "{made.python}" -m pip "$@"\n')
    (made.bin / "pip").chmod(0o755)
    (made.bin / "pytest").write_text(f'#!/bin/sh\nexec "{made.python}" -m pytest "$@"\n')
    (made.bin / "pytest").chmod(0o755)
    return made
