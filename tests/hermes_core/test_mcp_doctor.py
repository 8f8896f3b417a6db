"""``hermes mcp doctor``, run as a user runs it (the CLI as a subprocess) on one home holding
every kind of server: a healthy one, one that dies with a Node-style ``Error: Cannot find
module`` line and a long stack, one that never answers, one whose app is not installed (its
declaration came with an install, the app is an executable absent from PATH), one with an unset
``${VAR}``, one with changed tool definitions waiting for review.  Doctor connects them in
parallel within ``--timeout``, names what is wrong and how to fix it, and changes nothing: the
home is byte-identical afterwards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_core.host.trust.store import TrustStore
from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

Run = Callable[..., subprocess.CompletedProcess[str]]

HEALTHY = """\
from mcp.server.mcpserver import MCPServer

server = MCPServer("doctor-healthy")


@server.tool()
def ping(text: str) -> str:
    \"\"\"Answer with the same text.\"\"\"
    return text


server.run("stdio")
"""

FRAMES = "".join(f"    at frame{i} (node:internal/modules/cjs/loader:{i}:15)\\n" for i in range(12))
BROKEN = f"""\
import sys
sys.stderr.write(
    "node:internal/modules/cjs/loader:1228\\n  throw err;\\n  ^\\n\\n"
    "Error: Cannot find module '/opt/acme/server/index.js'\\n"
    "{FRAMES}"
    "{{\\n  code: 'MODULE_NOT_FOUND',\\n  requireStack: []\\n}}\\n\\nNode.js v22.11.0\\n"
)
sys.exit(1)
"""

HANGS = "import time\ntime.sleep(120)\n"

STUDIO = {
    "display_name": "Acme Studio",
    "app": {
        os_key: {
            "presence": "executable",
            "location": [{"kind": "command", "name": "acme-studio-doctor"}],
        }
        for os_key in ("linux", "darwin")
    },
    "requires": {"app": True},
}


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("doctor")
    scripts = {"healthy.py": HEALTHY, "broken.py": BROKEN, "hangs.py": HANGS}
    for name, text in scripts.items():
        (root / name).write_text(text)
    home = root / "home"
    (home / "installs").mkdir(parents=True)
    python = sys.executable
    (home / "config.yaml").write_text(
        "# servers for doctor\n"
        "mcp_servers:\n"
        f"  healthy: {{command: {python}, args: [{root / 'healthy.py'}]}}\n"
        f"  broken: {{command: {python}, args: [{root / 'broken.py'}]}}\n"
        f"  hangs: {{command: {python}, args: [{root / 'hangs.py'}]}}\n"
        f"  studio: {{command: {python}, args: [{root / 'healthy.py'}]}}\n"
        f"  keyed:\n    command: {python}\n    args: [{root / 'healthy.py'}]\n"
        "    env: {API_KEY: '${DOCTOR_TEST_KEY}'}\n"
        f"  pinned: {{command: {python}, args: [{root / 'healthy.py'}]}}\n"
        f"  overridden:\n    command: {python}\n    args: [{root / 'healthy.py'}]\n"
        "    tools: {overrides: {nope: {description: never offered}}}\n"
    )
    # The declaration an install of `studio` from a registry would have kept.
    record = {"format": 1, "name": "studio", "kind": "registry", "version": "1.0.0",
              "package": "npm", "server": "io.github.acme/studio",
              "registry": "https://registry.example", "source": "", "sha256": "",
              "declaration": STUDIO}  # fmt: skip
    (home / "installs" / "studio.json").write_text(json.dumps(record))
    store = TrustStore.at_home(home)
    store.record_changes("pinned", [("ping", "ab" * 32, {"name": "ping", "description": "new"})])
    store.close()
    return home


@pytest.fixture(scope="module")
def hermes(home: Path) -> Run:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        env = {
            "HERMES_HOME": str(home),
            "HERMES_CATALOG_PATH": "",
            "PATH": f"{os.path.dirname(sys.executable)}:/usr/bin:/bin",
        }
        return run_hermes("mcp", "doctor", *args, env=env)

    return run


@pytest.fixture(scope="module")
def every_server(hermes: Run, home: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    before = snapshot(home)
    started = time.monotonic()
    done = hermes("--timeout", "15")
    took = time.monotonic() - started
    assert snapshot(home) == before, "doctor changed $HERMES_HOME"
    return done, took


def screen(output: str, server: str) -> str:
    """The lines of *server*'s screen."""
    blocks = output.split("\n\n")
    (found,) = [b for b in blocks if b.startswith(f"{server} (")]
    return found


def test_each_server_says_what_is_wrong_and_how_to_fix_it(
    every_server: tuple[subprocess.CompletedProcess[str], float],
) -> None:
    done, took = every_server
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "Traceback" not in done.stderr
    healthy = screen(out, "healthy")
    assert healthy.startswith("healthy (stdio, connected, 1 tool(s)): all is well")
    assert "[ok] connection: connected in " in healthy
    assert "[ok] tools: 1 tool(s) listed" in healthy
    assert "[ok] breaker: circuit breaker closed" in healthy
    assert f"[ok] runner: {sys.executable} found" in healthy
    broken = screen(out, "broken")
    # The line that names the error, not the stack's tail (which alone is what is kept last).
    assert "[PROBLEM] error: Error: Cannot find module '/opt/acme/server/index.js'" in broken
    assert "the server exited with code 1 during startup" in broken
    assert "Node.js v22" not in broken and "requireStack" not in broken
    hangs = screen(out, "hangs")
    assert hangs.startswith("hangs (stdio, failed): ") and "within 15 s" in hangs
    studio = screen(out, "studio")
    assert studio.startswith("studio (stdio, not checked): 1 problem(s)")
    assert (
        "[PROBLEM] app: missing_app: Acme Studio is not installed. Install Acme Studio, "
        "then try again." in studio
    )
    keyed = screen(out, "keyed")
    assert (
        "[PROBLEM] variables: ${DOCTOR_TEST_KEY} is not set (not in the environment or "
        "$HERMES_HOME/.env)" in keyed
    )
    assert "fix: add DOCTOR_TEST_KEY=… to $HERMES_HOME/.env" in keyed
    assert "not checked" in keyed.splitlines()[0]
    pinned = screen(out, "pinned")
    assert "[PROBLEM] pins: 1 changed tool definition(s) waiting for review: ping" in pinned
    assert "fix: hermes mcp trust pinned" in pinned
    overridden = screen(out, "overridden")
    assert (
        "[PROBLEM] override: " in overridden
        and "config.yaml:15: mcp_servers.overridden.tools.overrides.nope: the server lists no "
        "tool 'nope'"
        in overridden
    )
    assert out.rstrip().endswith(
        "6 of 7 server(s) need attention: broken, hangs, studio, keyed, pinned, overridden"
    )
    # In parallel, each within --timeout 15: the hanging server does not hold up the others.
    assert took < 75


def test_json_shape_and_one_healthy_server(hermes: Run, home: Path) -> None:
    before = snapshot(home)
    done = hermes("--json", "--timeout", "2", "studio")
    assert done.returncode == 1, done.stderr
    payload = json.loads(done.stdout)
    assert payload["ok"] is False
    (server,) = payload["servers"]
    assert set(server) == {
        "server", "ok", "transport", "enabled", "connection", "connect_seconds", "tools",
        "findings",
    }  # fmt: skip
    assert server["server"] == "studio" and server["connection"] == "not checked"
    app = [f for f in server["findings"] if f["check"] == "app"]
    assert app == [
        {
            "check": "app",
            "severity": "problem",
            "text": "missing_app: Acme Studio is not installed. Install Acme Studio, then try "
            "again.",
            "fix": "Install Acme Studio, then try again.",
        }
    ]
    well = hermes("--json", "healthy")
    assert well.returncode == 0, well.stdout + well.stderr
    (healthy,) = json.loads(well.stdout)["servers"]
    assert healthy["ok"] is True and healthy["connection"] == "connected"
    assert healthy["tools"] == 1 and healthy["connect_seconds"] > 0
    assert {f["severity"] for f in healthy["findings"]} == {"ok"}
    unknown = hermes("helthy")
    assert unknown.returncode == 2
    assert "no server named 'helthy'" in unknown.stderr and "did you mean 'healthy'?" in (
        unknown.stderr
    )
    assert snapshot(home) == before


def test_the_app_found_on_path_is_reported_installed(
    hermes: Run, home: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    app = folder / "acme-studio-doctor"
    app.write_text("#!/bin/sh\necho 'Acme Studio 2.0'\n")
    app.chmod(0o755)
    env: dict[str, Any] = {
        "HERMES_HOME": str(home),
        "HERMES_CATALOG_PATH": "",
        "PATH": f"{folder}:{os.path.dirname(sys.executable)}:/usr/bin:/bin",
    }
    done = run_hermes("mcp", "doctor", "studio", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"[ok] app: Acme Studio is installed at {app}" in done.stdout
    assert "studio (stdio, connected, 1 tool(s)): all is well" in done.stdout
