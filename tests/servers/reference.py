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
