"""`hermes apps check`, run as a user runs it: a real subprocess on real files."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli]

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "vendor-plugin" / "src" / "acme_studio" / "plugin.yaml"


def hermes(
    *args: str, path: str = "", cwd: Path = REPO, home: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {"PATH": path} if home is None else {"PATH": path, "HOME": str(home)}
    return run_hermes(*args, env=env, minimal=True, cwd=cwd)


def fake_app(folder: Path, name: str = "acme-studio") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    tool = folder / name
    tool.write_text("#!/bin/sh\necho 'Acme Studio'\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return tool


def test_example_missing_explains_itself(tmp_path: Path) -> None:
    result = hermes(
        "apps", "check", "--explain", str(EXAMPLE), path=str(tmp_path / "bin"), home=tmp_path
    )
    assert result.returncode == 1, result.stderr
    out = result.stdout
    assert "acme-studio: missing_app" in out
    assert "Acme Studio is not installed. Install Acme Studio, then try again." in out
    assert "location[0] command acme-studio" in out
    assert f"{tmp_path}/.local/share/flatpak/exports/bin/com.acme.Studio" in out
    assert "/snap/bin/acme-studio" in out
    assert "Traceback" not in result.stderr


def test_example_available_when_the_app_is_on_path(tmp_path: Path) -> None:
    tool = fake_app(tmp_path / "bin")
    result = hermes("apps", "check", str(EXAMPLE), path=str(tool.parent), home=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "[ok] acme-studio: available" in result.stdout
    assert str(tool) in result.stdout


def test_json_output(tmp_path: Path) -> None:
    tool = fake_app(tmp_path / "bin")
    result = hermes(
        "apps", "check", "--json", "--explain", str(EXAMPLE), path=str(tool.parent), home=tmp_path
    )
    assert result.returncode == 0
    payload = json.loads(result.stdout)
    (server,) = payload["servers"]
    assert server["server"] == "acme-studio"
    assert server["state"] == "available"
    assert server["offerable"] is True
    assert server["path"] == str(tool)
    assert server["min_version"] == "2.3.0"
    assert server["explain"]["locations"][0]["candidates"][0]["present"] is True
    assert payload["gpu_class"] in {"nvidia", "amd", "intel", "apple_silicon", "none", "unknown"}


def test_bad_declaration_names_file_line_and_key(tmp_path: Path) -> None:
    bad = tmp_path / "plugin.yaml"
    bad.write_text(
        "# comment\n"
        "name: vendor\n"
        "app:\n"
        "  linux:\n"
        "    presence: executable\n"
        "    location:\n"
        "      - /opt/vendor/bin/vendor\n"
        "      - { kind: flatpak, app_id: ../escape }\n"
        "requires: {app: true}\n"
    )
    result = hermes("apps", "check", str(bad))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.strip() == (
        f"error: {bad}:8: app.linux.location[1].app_id must be a bare name"
    )


def test_yaml_syntax_error_names_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "plugin.yaml"
    bad.write_text("name: vendor\napp:\n  linux: [unclosed\n")
    result = hermes("apps", "check", str(bad))
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: {bad}:")
    assert "YAML syntax error" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("app: {}\n", "plugin.yaml: name is required"),
        ("name: [x]\n", ":1: name must be the MCP server name"),
        ("- just\n- a list\n", ":1: the file must be a mapping with a 'name' key"),
        ("name: v\nname: w\n", "YAML syntax error"),
        ("name: v\nrequires:\n  app: yes please\n", ":3: requires.app must be a boolean"),
    ],
)
def test_other_bad_files(tmp_path: Path, text: str, message: str) -> None:
    bad = tmp_path / "plugin.yaml"
    bad.write_text(text)
    result = hermes("apps", "check", str(bad))
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_missing_file_and_usage_errors(tmp_path: Path) -> None:
    result = hermes("apps", "check", str(tmp_path / "nope.yaml"))
    assert result.returncode == 2
    assert "cannot read the file" in result.stderr
    assert hermes("apps", "frobnicate").returncode == 2
    assert hermes().returncode == 2


def test_unsupported_os_and_gpu_only(tmp_path: Path) -> None:
    decl = tmp_path / "plugin.yaml"
    decl.write_text(
        "name: mac-only\n"
        "app:\n"
        "  darwin: {presence: bundle, location: [{kind: app_bundle, name: Mac.app}]}\n"
        "requires: {app: true}\n"
    )
    result = hermes("apps", "check", "--json", "--explain", str(decl))
    server = json.loads(result.stdout)["servers"][0]
    assert server["state"] == "unsupported_os"
    assert server["explain"]["steps"] == [
        "requires the app, but the declaration has no app.linux block"
    ]
    assert result.returncode == 1


def test_help_does_not_import_mcp_or_pydantic() -> None:
    script = (
        "import sys\nfrom hermes_core.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write(' '.join(m for m in ('mcp', 'pydantic') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=os.environ, timeout=60
    )
    assert "usage: hermes" in result.stdout
    assert result.stderr == ""


def test_the_cli_does_not_import_mcp(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from hermes_core.cli import main\n"
        f"code = main(['apps', 'check', '--json', {str(EXAMPLE)!r}])\n"
        "assert 'mcp' not in sys.modules, 'mcp was imported'\n"
        "assert 'pydantic' not in sys.modules\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=os.environ,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
