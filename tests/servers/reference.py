"""Where the npm reference servers live (installed by `nox -s tests`, see noxfile.py)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NPM_DIR = Path(os.environ.get("HERMES_TEST_NPM_DIR", ROOT / ".cache" / "mcp-servers"))
PACKAGES = NPM_DIR / "node_modules" / "@modelcontextprotocol"
EVERYTHING = PACKAGES / "server-everything" / "dist" / "index.js"
FILESYSTEM = PACKAGES / "server-filesystem" / "dist" / "index.js"
MEMORY = PACKAGES / "server-memory" / "dist" / "index.js"
LOOPBACK = Path(__file__).with_name("loopback.cjs")
#: The third-party Python servers' own venv (tests/servers/python-servers.txt, by noxfile.py).
PY_SERVERS_DIR = Path(os.environ.get("HERMES_TEST_PY_SERVERS_DIR", ROOT / ".cache" / "py-servers"))


def node() -> str:
    """The node binary; the suite fails (not skips) when the reference servers are missing."""
    found = shutil.which("node")
    if found is None or not EVERYTHING.exists() or not FILESYSTEM.exists():
        raise RuntimeError(
            f"the npm reference servers are not installed in {NPM_DIR}: run `nox -s tests`, "
            "which installs them, or `npm install --prefix .cache/mcp-servers "
            "@modelcontextprotocol/server-everything @modelcontextprotocol/server-filesystem`"
        )
    return found


def python_server(name: str) -> str:
    """A program of the third-party Python servers' venv (``mcp-server-time``, ``python``);
    the suite fails (not skips) when they are missing."""
    found = PY_SERVERS_DIR / "bin" / name
    if not found.exists():
        raise RuntimeError(
            f"the third-party Python servers are not installed in {PY_SERVERS_DIR}: run "
            "`nox -s tests`, which installs them, or `python3 -m venv .cache/py-servers && "
            ".cache/py-servers/bin/pip install -r tests/servers/python-servers.txt`"
        )
    return str(found)
