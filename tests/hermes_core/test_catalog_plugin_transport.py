"""A catalog manifest may name a plugin's transport, and ``transport: NAME`` alone selects one
whose settings all have defaults (issue 45 item 6).  A real plugin distribution, the real CLI."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from support.dists import hermes_with, install

pytestmark = [pytest.mark.process, pytest.mark.cli]

# Its config key ("desktop") is not its name: settings written under the name are moved there.
PLUGIN = """
from contextlib import asynccontextmanager

from pydantic import BaseModel, Field

from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import TransportSpec


class DesktopSettings(BaseModel, extra="forbid"):
    port: int = 3845
    connect_timeout: float = Field(default=5.0, ge=0)


@asynccontextmanager
async def _connect(spec, errlog):
    settings = DesktopSettings.model_validate(spec.options.get("desktop") or {})
    raise OSError(f"the desktop app is not running on port {settings.port}")
    yield


@hookimpl
def transport():
    return [TransportSpec("lumen_desktop", "desktop", "Lumen's desktop app",
                          connect=_connect, settings=DesktopSettings)]
"""

MANIFEST = """\
manifest_version: 1
name: lumen
description: Lumen's desktop app, through its own transport
transport:
  plugin: lumen_desktop
  settings: {port: 4000}
"""


@pytest.fixture
def site(tmp_path: Path) -> Path:
    folder = tmp_path / "site"
    folder.mkdir()
    install(folder, "hermes-lumen", "lumen_plugin", "lumen", PLUGIN)
    return folder


def test_the_transports_name_alone_selects_it(site: Path, home: Path) -> None:
    (home / "config.yaml").write_text("mcp_servers:\n  lumen:\n    transport: lumen_desktop\n")
    listed = hermes_with(site, "mcp", "list", HERMES_HOME=str(home))
    assert listed.returncode == 0, listed.stderr
    assert "lumen  [lumen_desktop]" in listed.stdout
    status = hermes_with(site, "mcp", "status", HERMES_HOME=str(home))
    assert "the desktop app is not running on port 3845" in status.stdout + status.stderr
    (home / "config.yaml").write_text(
        "mcp_servers:\n  lumen:\n    transport: lumen_desktop\n    lumen_desktop: {port: 4001}\n"
    )
    status = hermes_with(site, "mcp", "status", HERMES_HOME=str(home))
    assert "the desktop app is not running on port 4001" in status.stdout + status.stderr


def test_a_manifest_names_a_plugin_transport(site: Path, home: Path, tmp_path: Path) -> None:
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    (catalog / "lumen.yaml").write_text(MANIFEST)
    env = {"HERMES_HOME": str(home), "HERMES_CATALOG_PATH": str(catalog)}
    done = hermes_with(site, "mcp", "install", "lumen", "--yes", **env)
    # The probe fails (the app is not running): saved disabled, as `hermes mcp add` does.
    assert done.returncode == 1, done.stdout + done.stderr
    assert "not running on port 4000" in done.stdout + done.stderr
    written = (home / "config.yaml").read_text()
    assert "transport: lumen_desktop" in written and "port: 4000" in written
    listed = hermes_with(site, "mcp", "list", **env)
    assert listed.returncode == 0, listed.stderr
    assert "lumen  [lumen_desktop]" in listed.stdout and "desktop: {port: 4000}" in listed.stdout


def test_a_manifests_plugin_transport_that_is_not_installed_is_refused(
    home: Path, tmp_path: Path
) -> None:
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    (catalog / "lumen.yaml").write_text(MANIFEST)
    empty = tmp_path / "empty-site"
    empty.mkdir()
    env = {"HERMES_HOME": str(home), "HERMES_CATALOG_PATH": str(catalog)}
    done = hermes_with(empty, "mcp", "install", "lumen", "--yes", **env)
    assert done.returncode != 0
    assert "connects through the transport 'lumen_desktop', which no installed plugin" in (
        done.stderr
    ), done.stderr
    assert not (home / "config.yaml").exists() or "lumen" not in (home / "config.yaml").read_text()


@pytest.mark.parametrize(
    ("transport", "said"),
    [
        ("plugin: lumen_desktop\n  args: [x]", "a plugin transport takes settings"),
        ("command: x\n  plugin: lumen_desktop", "needs one of command"),
        ("command: x\n  settings: {a: 1}", "settings are for a plugin transport"),
    ],
)
def test_a_malformed_plugin_transport_in_a_manifest_is_refused(
    home: Path, tmp_path: Path, transport: str, said: str
) -> None:
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    text = MANIFEST.replace("  plugin: lumen_desktop\n  settings: {port: 4000}", "  " + transport)
    (catalog / "lumen.yaml").write_text(textwrap.dedent(text))
    env = {"HERMES_HOME": str(home), "HERMES_CATALOG_PATH": str(catalog)}
    done = hermes_with(tmp_path, "mcp", "install", "lumen", "--yes", **env)
    assert done.returncode != 0
    assert said in done.stderr, done.stderr
