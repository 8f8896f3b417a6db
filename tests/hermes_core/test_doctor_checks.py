"""Doctor's checks that need no server, in-process: the declared app (GPU, installed, running by
its ``liveness`` runtime file) on the platform seam's fake host, and the stderr line that names
the error."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hermes_core.doctor.app_state import app_findings
from hermes_core.doctor.error_line import error_line
from hermes_core.doctor.findings import ServerReport, Severity
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
