"""A call interceptor's settings are checked when ``config.yaml`` is read, by every command
(issue 45 items 1 and 3): a ``settings=`` model like a transport's, or, for an interceptor
written against ``create`` raising ``ValueError``, ``create`` called once while the file is read.
``mcp list``'s record of the plugins' names is never the last word: settings only a plugin's
model can check, and a record gone stale under an editable plugin, load the plugins again.

A real plugin distribution (``support.dists``) and the real CLI, as in test_plugin_settings.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.dists import hermes_with, install

pytestmark = [pytest.mark.process, pytest.mark.cli]

PLUGIN = """
from contextlib import asynccontextmanager

from pydantic import BaseModel, Field

from hermes_core.plugins import hookimpl
from hermes_core.plugins.interceptors import CallInterceptor, Decision
from hermes_core.plugins.types import TransportSpec


class GuardSettings(BaseModel, extra="forbid"):
    deny: list[str] = []


class DesktopSettings(BaseModel, extra="forbid"):
    port: int = 3845
    connect_timeout: float = Field(default=5.0, ge=0)


class Guard:
    def __init__(self, setup):
        self.deny = set(setup.validated.deny)

    def before(self, call):
        if call.tool in self.deny:
            return Decision.refuse(f"{call.tool} is denied by lumen_guard")
        return None

    after = None


def _legacy(setup):
    unknown = set(setup.settings) - {"level"}
    if unknown:
        raise ValueError(f"unknown setting {sorted(unknown)[0]!r} (valid: level)")
    return Guard.__new__(Guard)


@asynccontextmanager
async def _connect(spec, errlog):
    raise OSError("the desktop app is not running")
    yield


@hookimpl
def call_interceptor():
    return [
        CallInterceptor("lumen_guard", create=Guard, settings=GuardSettings),
        CallInterceptor("lumen_legacy", create=_legacy),
    ]


@hookimpl
def transport():
    return [TransportSpec("lumen_desktop", "lumen_desktop", "Lumen's desktop app",
                          connect=_connect, settings=DesktopSettings)]
"""


@pytest.fixture
def site(tmp_path: Path) -> Path:
    folder = tmp_path / "site"
    folder.mkdir()
    install(folder, "hermes-lumen", "lumen_plugin", "lumen", PLUGIN)
    return folder


def _every_command(site: Path, home: Path, config: str, expected: str) -> None:
    """*config* refused with *expected* on stderr, exit 2, by list (plugins loaded, then from
    its record), tools and status; never a traceback."""
    (home / "config.yaml").write_text(config)
    for command in (("mcp", "list"), ("mcp", "list"), ("mcp", "tools"), ("mcp", "status")):
        done = hermes_with(site, *command, HERMES_HOME=str(home))
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        assert expected in done.stderr, (command, done.stderr)
        assert "Traceback" not in done.stderr


def test_a_typo_in_a_modelled_interceptors_settings_is_a_config_error(
    site: Path, home: Path
) -> None:
    (home / "config.yaml").write_text("mcp_servers: {}\n")
    assert hermes_with(site, "mcp", "list", HERMES_HOME=str(home)).returncode == 0  # recorded
    _every_command(
        site,
        home,
        "interceptors: [lumen_guard]\nlumen_guard:\n  dney: [delete_all]\nmcp_servers: {}\n",
        "config.yaml:3: lumen_guard.dney: unknown setting (did you mean 'deny'?",
    )


def test_an_interceptor_whose_create_refuses_its_settings_is_a_config_error(
    site: Path, home: Path
) -> None:
    _every_command(
        site,
        home,
        "interceptors: [lumen_legacy]\nlumen_legacy:\n  levle: 2\nmcp_servers: {}\n",
        "config.yaml:2: lumen_legacy: interceptor 'lumen_legacy' refused its settings: "
        "unknown setting 'levle' (valid: level)",
    )


def test_a_plugin_transports_constraint_is_checked_by_list_as_by_status(
    site: Path, home: Path
) -> None:
    (home / "config.yaml").write_text("mcp_servers: {}\n")
    assert hermes_with(site, "mcp", "list", HERMES_HOME=str(home)).returncode == 0  # recorded
    _every_command(
        site,
        home,
        "mcp_servers:\n  lumen:\n    lumen_desktop:\n      connect_timeout: -1\n",
        "mcp_servers.lumen.lumen_desktop.connect_timeout",
    )


def test_a_stale_record_is_noticed_and_made_again(site: Path, home: Path) -> None:
    # The record is made while the plugin has no interceptor; then its code is edited in place
    # (an editable install: nothing about the distribution changes) to add one.
    module = site / "lumen_plugin.py"
    full = module.read_text()
    module.write_text(full.replace("@hookimpl\ndef call_interceptor", "def _not_yet"))
    (home / "config.yaml").write_text("mcp_servers: {}\n")
    assert hermes_with(site, "mcp", "list", HERMES_HOME=str(home)).returncode == 0
    assert "lumen_guard" not in (home / "cache" / "plugin-config-keys.json").read_text()
    module.write_text(full)
    (home / "config.yaml").write_text(
        "interceptors: [lumen_guard]\nlumen_guard:\n  deny: [x]\nmcp_servers: {}\n"
    )
    listed = hermes_with(site, "mcp", "list", HERMES_HOME=str(home))
    assert listed.returncode == 0, listed.stderr
    assert "lumen_guard" in (home / "cache" / "plugin-config-keys.json").read_text()
