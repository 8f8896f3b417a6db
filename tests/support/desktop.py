"""A fake desktop app for the liveness tests: ``tests/servers/desktop_app.py`` run as a real
process that serves MCP on an ephemeral loopback port and writes (and removes) its runtime file,
and the app declaration that points Hermes at that file."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from servers.net import stop
from support.dists import install
from support.proxy import write_config

SERVERS = Path(__file__).resolve().parents[1] / "servers"
APP = SERVERS / "desktop_app.py"


def app_block(runtime: Path) -> dict[str, Any]:
    """The ``app:`` block of a declaration whose app writes *runtime* while it runs."""
    return {
        "linux": {
            "presence": "executable",
            "location": [sys.executable],
            "liveness": {"kind": "server_json", "path": str(runtime)},
        }
    }


PLUGIN = """
from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import AppDeclaration


@hookimpl
def declare_app():
    return [AppDeclaration(
        server="desk",
        app={app!r},
        where="desk_hermes/plugin.yaml",
        display_name="Desk App",
    )]
"""


def plugin_home(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(home, site, runtime file): a plugin that declares the app "Desk App" (server ``desk``,
    with ``liveness``) installed in *site*, and a config.yaml naming only ``desk: {}``."""
    runtime = tmp_path / "app" / "mcp.json"
    runtime.parent.mkdir()
    site = tmp_path / "site"
    site.mkdir()
    install(site, "desk-hermes", "desk_hermes", "desk", PLUGIN.format(app=app_block(runtime)))
    home = tmp_path / "home"
    write_config(home, servers={"desk": {}})
    return home, site, runtime


def wait_for(predicate: Any, seconds: float = 60.0, what: str = "the condition") -> None:
    """Return once *predicate()* holds (looked at every 20 ms); ``AssertionError`` after
    *seconds*."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not after {seconds:g} s")
        time.sleep(0.02)


class DesktopApp:
    """The fake app: :meth:`start` runs it (its runtime file then exists), :meth:`quit` ends it
    (its runtime file is gone)."""

    def __init__(self, runtime: Path) -> None:
        self.runtime = runtime
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> dict[str, Any]:
        """Run the app; returns what its runtime file says (pid, http, token)."""
        self.process = subprocess.Popen(
            [sys.executable, str(APP), str(self.runtime)],
            cwd=SERVERS,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(self.runtime.exists, what="the app's runtime file")
        data: dict[str, Any] = json.loads(self.runtime.read_text())
        return data

    def quit(self) -> None:
        if self.process is not None:
            stop(self.process)
            self.process = None
        wait_for(lambda: not self.runtime.exists(), what="the runtime file removed")
