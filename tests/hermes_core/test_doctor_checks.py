"""Doctor's checks that need no server, in-process: the declared app (GPU, installed, running by
its ``liveness`` runtime file) on the platform seam's fake host, and the stderr line that names
the error."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_core.auth.storage import token_path
from hermes_core.config.loader import load_config
from hermes_core.doctor.app_state import app_findings
from hermes_core.doctor.error_line import error_line
from hermes_core.doctor.findings import ServerReport, Severity
from hermes_core.doctor.offline import offline_report
from hermes_core.host.server_spec import HostServer
from hermes_platform.declaration import parse_declaration

RUNTIME = "/home/u/.studio/mcp.json"
STUDIO = parse_declaration(
    "studio",
    raw_app={
        "linux": {
            "presence": "executable",
            "location": ["/opt/studio/bin/studio"],
            "liveness": {"kind": "server_json", "path": RUNTIME},
        }
    },
    raw_requires={"app": True, "gpu": "nvidia"},
    where="test",
)


def findings(report: ServerReport) -> dict[str, tuple[Severity, str]]:
    return {f.check: (f.severity, f.text) for f in report.findings}


def checked() -> ServerReport:
    report = ServerReport("studio", "stdio", True)
    app_findings(report, STUDIO, "Studio")
    return report


def test_the_app_installed_running_and_its_gpu(hermes_fake_host: Callable[..., Any]) -> None:
    host = hermes_fake_host("linux", home="/home/u").set_gpu("nvidia")
    host.add_file("/opt/studio/bin/studio")
    report = checked()
    found = findings(report)
    assert found["gpu"] == (Severity.OK, "needs an NVIDIA GPU; this machine's GPU class is nvidia")
    assert found["app"] == (Severity.OK, "Studio is installed at /opt/studio/bin/studio")
    assert found["app running"] == (
        Severity.PROBLEM,
        "Studio is not running (runtime file missing or unreadable)",
    )
    assert not report.may_connect and not report.ok
    secret = "tok-7f3a"
    host.add_file(
        RUNTIME,
        json.dumps({"pid": 4242, "http": "http://127.0.0.1:3845", "token": secret}).encode(),
    )
    host.set_pid_alive(4242)
    report = checked()
    assert findings(report)["app running"] == (Severity.OK, "Studio: it runs")
    assert report.ok and report.may_connect
    assert secret not in json.dumps(report.as_dict())
    host.add_file(RUNTIME, json.dumps({"pid": 4242, "http": "http://10.0.0.9:3845"}).encode())
    assert findings(checked())["app running"] == (
        Severity.PROBLEM,
        "Studio is not running (it runs, but its runtime file is refused: endpoint must be "
        "loopback)",
    )
    host.set_pid_alive(4242, False)
    assert "process 4242 is not running" in findings(checked())["app running"][1]


def test_a_gpu_it_needs_and_an_app_that_is_not_there(hermes_fake_host: Callable[..., Any]) -> None:
    hermes_fake_host("linux", home="/home/u").set_gpu("amd")
    report = checked()
    assert findings(report)["gpu"] == (
        Severity.PROBLEM,
        "needs an NVIDIA GPU; this machine's GPU class is amd",
    )
    assert not report.may_connect
    hermes_fake_host("linux", home="/home/u").set_gpu("nvidia")
    severity, text = findings(checked())["app"]
    assert severity is Severity.PROBLEM and text.startswith("missing_app: ")


def test_the_line_that_names_the_error() -> None:
    node = [
        "node:internal/modules/cjs/loader:1228",
        "  throw err;",
        "  ^",
        "",
        "Error: Cannot find module '/x/index.js'",
        *[f"    at f{i} (node:internal/modules/cjs/loader:{i}:1)" for i in range(9)],
        "  code: 'MODULE_NOT_FOUND',",
        "  requireStack: []",
        "}",
        "Node.js v22.11.0",
    ]
    assert error_line(node) == "Error: Cannot find module '/x/index.js'"
    python = [
        "Traceback (most recent call last):",
        '  File "/srv/app.py", line 3, in <module>',
        "    import acme_sdk",
        "ModuleNotFoundError: No module named 'acme_sdk'",
    ]
    assert error_line(python) == "ModuleNotFoundError: No module named 'acme_sdk'"
    assert error_line(["starting", "error: ACME_KEY is required", "exit 1"]) == (
        "error: ACME_KEY is required"
    )
    assert error_line(["listening", "    at x (y.js:1:1)"]) == "listening"
    assert error_line(["", "  "]) is None
    assert len(error_line(["Error: " + "x" * 10_000]) or "") == 300


def test_the_oauth_token_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(home))
    url = "https://mcp.example/mcp"
    (home / "config.yaml").write_text(f"mcp_servers:\n  remote: {{url: {url}, auth: oauth}}\n")
    loaded = load_config(home / "config.yaml", strict=False)
    raw = {"url": url, "auth": "oauth"}
    server = HostServer(name="remote", url=url, transport="streamable_http")

    def auth(token: dict[str, Any] | None) -> tuple[tuple[Severity, str], bool]:
        path = token_path(home, "remote")
        if token is not None:
            path.parent.mkdir(exist_ok=True)
            path.write_text(json.dumps({"server": "remote", "server_url": url, **token}))
        report = offline_report("remote", raw, server, loaded, home=home, environ={}, dotenv={})
        return findings(report)["auth"], report.may_connect

    assert auth(None) == ((Severity.PROBLEM, "OAuth: not signed in (no token)"), False)
    past, future = time.time() - 60, time.time() + 3600
    fresh = {"access_token": "a-secret", "token_type": "Bearer"}
    (severity, text), may = auth({"tokens": fresh, "expires_at": future})
    assert severity is Severity.OK and text.startswith("OAuth: token present, expires in ")
    assert may
    refreshable = {**fresh, "refresh_token": "r"}
    assert auth({"tokens": refreshable, "expires_at": past}) == (
        (
            Severity.WARNING,
            "OAuth: the token expired; it is refreshable (Hermes refreshes it on the next "
            "connection)",
        ),
        False,
    )
    assert auth({"tokens": fresh, "expires_at": past}) == (
        (Severity.PROBLEM, "OAuth: the token expired and cannot be refreshed"),
        False,
    )
    other = {"tokens": fresh, "expires_at": future, "server_url": "https://elsewhere/mcp"}
    assert auth(other)[0] == (Severity.PROBLEM, "OAuth: the token was saved for another URL")
