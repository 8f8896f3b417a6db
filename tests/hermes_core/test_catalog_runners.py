"""A missing runner is a state of its own (``needs uv``), and ``install`` saves what cannot start
disabled with exit 1, as ``hermes mcp add`` does (issue 27, item 18)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_platform.runners import missing_runner
from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli]

#: No uvx, no codex on it (npx is, in /usr/bin, where the suite's node lives).
PATH = "/usr/bin:/bin"


def hermes(home: Path, *args: str, path: str = PATH) -> subprocess.CompletedProcess[str]:
    return run_hermes(
        *args, env={"HERMES_HOME": str(home), "HERMES_CATALOG_PATH": "", "PATH": path}
    )


def servers(home: Path) -> dict[str, dict[str, object]]:
    from ruamel.yaml import YAML

    found: dict[str, dict[str, object]] = YAML(typ="safe").load((home / "config.yaml").read_text())[
        "mcp_servers"
    ]
    return found


def test_the_one_check(tmp_path: Path) -> None:
    assert missing_runner("uvx", env={"PATH": str(tmp_path)}) is not None
    told = missing_runner("uvx", env={"PATH": str(tmp_path)})
    assert told is not None and told.state == "needs uv"
    assert told.sentence.startswith("`uvx` is not on PATH. Install uv (")
    assert missing_runner("docker", env={"PATH": str(tmp_path)}).state == "needs docker"  # type: ignore[union-attr]
    assert missing_runner(None) is None and missing_runner("${INSTALL_DIR}/bin/x") is None
    tool = tmp_path / "uvx"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    assert missing_runner("uvx", env={"PATH": str(tmp_path)}) is None
    assert missing_runner(str(tool)) is None
    assert missing_runner(str(tmp_path / "absent")).state == "needs absent"  # type: ignore[union-attr]


def test_catalog_shows_needs_uv_and_install_saves_it_disabled(tmp_path: Path) -> None:
    listed = hermes(tmp_path, "mcp", "catalog")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()

    def row(name: str) -> int:
        return next(i for i, line in enumerate(lines) if line.startswith(name + " "))

    for name in ("time", "fetch", "git"):
        assert "needs uv" in lines[row(name)], lines[row(name)]
        assert lines[row(name) + 1].strip().startswith("`uvx` is not on PATH. Install uv")
    assert "needs codex" in lines[row("codex")]
    assert "available" in lines[row("memory")]  # npx is on PATH
    as_json = {
        e["name"]: e
        for e in json.loads(hermes(tmp_path, "mcp", "catalog", "--json").stdout)["entries"]
    }
    assert as_json["time"]["state"] == "needs a runner" and as_json["time"]["needs"] == "uv"
    assert as_json["memory"]["state"] == "available" and as_json["memory"]["needs"] is None

    done = hermes(tmp_path, "mcp", "install", "time", "--yes")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "needs uv: `uvx` is not on PATH" in done.stdout  # in the plan, before anything runs
    assert "saved 'time' disabled: needs uv: `uvx` is not on PATH." in done.stdout
    assert "install it, then `hermes mcp enable time`" in done.stdout
    assert servers(tmp_path)["time"]["enabled"] is False
    after = hermes(tmp_path, "mcp", "catalog", "--json")
    state = {e["name"]: e for e in json.loads(after.stdout)["entries"]}["time"]
    assert state["state"] == "installed (disabled)" and state["needs"] == "uv"


def test_a_failed_probe_saves_the_install_disabled(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    (catalog / "dies.yaml").write_text(
        "manifest_version: 1\nname: dies\ndescription: Exits at once\n"
        f"transport: {{command: {sys.executable}, args: ['-c', 'raise SystemExit(3)']}}\n"
    )
    home = tmp_path / "home"
    done = run_hermes(
        "mcp",
        "install",
        "dies",
        "--yes",
        env={"HERMES_HOME": str(home), "HERMES_CATALOG_PATH": str(catalog)},
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "saved 'dies' disabled: the probe failed:" in done.stdout
    assert "then `hermes mcp enable dies`" in done.stdout
    assert servers(home)["dies"]["enabled"] is False


def test_the_picker_rows_show_needs_uv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hermes_core.cli.mcp_picker import picker_rows
    from hermes_core.plugins.manager import get_plugin_manager

    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    monkeypatch.setenv("HERMES_CATALOG_PATH", "")
    monkeypatch.setenv("PATH", PATH)
    rows, states = picker_rows(get_plugin_manager(no_plugins=True))
    label = {r.value: r.detail for r in rows}
    assert label["time"].startswith("needs uv ")
    assert states["time"] == "needs a runner"
    assert os.environ["PATH"] == PATH
