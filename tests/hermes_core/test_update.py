"""``hermes update``: the installer read from an environment's own files, the command it would
run, ``--check`` against a local package index (a folder of wheels: no network), a source
checkout refused, and the catalog installs whose manifest changed since they were installed."""

from __future__ import annotations

import base64
import hashlib
import sys
import zipfile
from pathlib import Path

import pytest

from hermes_core.cli.installer import Installer, detect, upgrade_command
from hermes_core.cli.update import newer_versions
from support.cli import run_hermes

HOSTILE = Path(__file__).parents[1] / "servers" / "hostile_server.py"


def wheel(folder: Path, name: str, version: str) -> None:
    """A minimal, valid wheel of *name* at *version* (metadata only)."""
    dist = name.replace("-", "_")
    info = f"{dist}-{version}.dist-info"
    files = {
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = hashlib.sha256(text.encode()).digest()
        encoded = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
        record.append(f"{path},sha256={encoded},{len(text)}")
    record.append(f"{info}/RECORD,,")
    with zipfile.ZipFile(folder / f"{dist}-{version}-py3-none-any.whl", "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
        archive.writestr(f"{info}/RECORD", "\n".join(record) + "\n")


def test_the_installer_is_read_from_the_environments_own_files(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.12.0\n")
    assert detect(plain, has_pip=True) is Installer.PIP
    made_by_uv = tmp_path / "uv"
    made_by_uv.mkdir()
    (made_by_uv / "pyvenv.cfg").write_text("home = /usr/bin\nuv = 0.5.1\n")
    assert detect(made_by_uv, has_pip=False) is Installer.UV
    assert detect(made_by_uv, has_pip=True) is Installer.PIP  # pip installed there: pip's
    pipx = tmp_path / "pipx"
    pipx.mkdir()
    (pipx / "pipx_metadata.json").write_text("{}")
    assert detect(pipx, has_pip=True) is Installer.PIPX
    tool = tmp_path / "tool"
    tool.mkdir()
    (tool / "uv-receipt.toml").write_text("[tool]\n")
    assert detect(tool, has_pip=False) is Installer.UV_TOOL


def test_the_command_each_installer_runs() -> None:
    names = ["hermes-core", "hermes-llm"]
    assert upgrade_command(Installer.PIP, "/v/bin/python", names) == [
        "/v/bin/python", "-m", "pip", "install", "--upgrade", "hermes-core", "hermes-llm",
    ]  # fmt: skip
    assert upgrade_command(Installer.PIPX, "/v/bin/python", names) == [
        "pipx", "upgrade", "--include-injected", "hermes-core",
    ]  # fmt: skip
    assert upgrade_command(Installer.UV_TOOL, "/v/bin/python", names) == [
        "uv", "tool", "upgrade", "hermes-core",
    ]  # fmt: skip
    assert upgrade_command(Installer.UV, "/v/bin/python", names)[:5] == [
        "uv", "pip", "install", "--python", "/v/bin/python",
    ]  # fmt: skip
    with pytest.raises(ValueError, match="not upgraded by a command"):
        upgrade_command(Installer.SOURCE, "/v/bin/python", names)
    report = {"install": [{"metadata": {"name": "Hermes_Core", "version": "2.0\x1b[31m"}}, {}]}
    assert newer_versions(report) == {"hermes-core": "2.0[31m"}
    assert newer_versions([]) == {}


@pytest.mark.process
@pytest.mark.cli
def test_check_asks_a_local_index_and_a_checkout_is_updated_where_it_is(tmp_path: Path) -> None:
    index = tmp_path / "wheels"
    index.mkdir()
    wheel(index, "hermes-core", "99.0.0")
    env = {
        "HERMES_HOME": str(tmp_path),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(index),
        "PIP_CONFIG_FILE": "/dev/null",
    }
    check = run_hermes("update", "--check", env=env)
    assert check.returncode == 0, check.stderr
    lines = check.stdout.splitlines()
    assert lines[0].startswith("hermes-core ") and lines[0].endswith(": 99.0.0 is available")
    assert any(x.startswith("hermes-llm ") and x.endswith(": up to date") for x in lines)
    # this suite runs from an editable install: updated where it is, nothing run
    assert "installed from a source checkout (" in check.stdout
    assert lines[-1] == "catalog installs: no manifest changed"
    dry = run_hermes("update", "--dry-run", env=env)
    assert dry.returncode == 1
    assert "this Hermes runs from a source checkout" in dry.stderr
    assert "nothing was run" in dry.stderr


@pytest.mark.process
@pytest.mark.cli
def test_a_catalog_install_whose_manifest_changed_is_listed(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    manifest = catalog / "hostile.yaml"
    manifest.write_text(
        "manifest_version: 1\nname: hostile\ndescription: A local test server\n"
        f"transport:\n  command: {sys.executable}\n  args: ['-u', {str(HOSTILE)!r}]\n"
    )
    env = {"HERMES_HOME": str(tmp_path / "home"), "HERMES_CATALOG_PATH": str(catalog)}
    installed = run_hermes("mcp", "install", "hostile", "--yes", env=env)
    assert installed.returncode == 0, installed.stderr
    same = run_hermes("update", "--manifests", env=env)
    assert same.stdout == "catalog installs: no manifest changed\n"
    manifest.write_text(manifest.read_text().replace("A local test server", "Now different"))
    changed = run_hermes("update", "--manifests", env=env)
    assert changed.returncode == 0, changed.stderr
    assert changed.stdout.startswith("hostile: its manifest changed (now from ")
    assert changed.stdout.rstrip().endswith("re-run `hermes mcp install hostile`")
    # the record of a catalog install is not a registry one: `mcp update` passes it by
    registry = run_hermes("mcp", "update", env=env)
    assert "Traceback" not in registry.stderr
