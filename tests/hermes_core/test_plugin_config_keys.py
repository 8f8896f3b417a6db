"""``hermes mcp list`` remembers the plugins' config names, and never trusts a stale record.

A real plugin distribution (``support.dists``) adds a transport selected by its own key
(``launch:``); the real CLI lists a ``config.yaml`` that uses it.  The plugin writes a line to a
file each time it is imported, so the tests see whether a run loaded the plugins or used the
record in ``$HERMES_HOME/cache/plugin-config-keys.json``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hermes_core.config.kinds import BUILTIN_KINDS, ServerKinds
from hermes_core.plugins.manager import create_plugin_manager
from support.dists import hermes_with, install

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

PLUGIN = """
import os

from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import TransportSpec

with open(os.environ["LAUNCH_IMPORTS"], "a", encoding="utf-8") as log:
    log.write("imported\\n")


def _launch(spec, errlog):
    raise RuntimeError("not used by mcp list")


@hookimpl
def transport():
    return [TransportSpec("launcher", "launch", "a launched server", connect=_launch)]
"""

CONFIG = """\
mcp_servers:
  tagged:
    launch: {script: server.js}
  plain:
    command: node
    args: [server.js]
"""


def test_mcp_list_uses_the_record_until_a_plugin_is_installed_upgraded_or_removed(
    tmp_path: Path,
) -> None:
    site, home = tmp_path / "site", tmp_path / "home"
    site.mkdir()
    home.mkdir()
    (home / "config.yaml").write_text(CONFIG)
    imports = tmp_path / "imports.log"
    imports.touch()
    env = {"HERMES_HOME": str(home), "LAUNCH_IMPORTS": str(imports)}

    def listed() -> tuple[int, str, str, int]:
        result = hermes_with(site, "mcp", "list", **env)
        loads = len(imports.read_text().splitlines())
        return result.returncode, result.stdout, result.stderr, loads

    # No plugin: the entry has nothing that selects a transport (exit 2, at file:line).
    code, _, err, _ = listed()
    assert code == 2 and "config.yaml:2: mcp_servers.tagged" in err
    record = home / "cache" / "plugin-config-keys.json"
    assert record.exists()

    # Installed: the record is stale, the plugins are loaded, the key is known.
    install(site, "launch-hermes", "launch_hermes", "launch", PLUGIN)
    code, out, err, loads = listed()
    assert (code, err, loads) == (0, "", 1), err
    assert "tagged  [launcher]  launch: ***" in out and "plain  [stdio]  node server.js" in out

    # Nothing changed: the record is used, the plugin is not imported again.
    assert listed() == (0, out, "", 1)

    # --no-plugins is another fingerprint: the plugin's key selects nothing there, so that
    # entry is not available (a warning) and the others are listed (issue 27, item 17).
    no_plugins = hermes_with(site, "--no-plugins", "mcp", "list", **env)
    assert no_plugins.returncode == 0, no_plugins.stderr
    assert "warning: " in no_plugins.stderr and "mcp_servers.tagged" in no_plugins.stderr
    assert "plugins are off (--no-plugins)" in no_plugins.stderr
    assert "plain  [stdio]  node server.js" in no_plugins.stdout
    assert "tagged" not in no_plugins.stdout

    # Reinstalled (an upgrade rewrites its metadata): loaded again, once.
    info = site / "launch_hermes-1.0.dist-info"
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: launch-hermes\nVersion: 1.1\n")
    (info / "RECORD").write_text("launch_hermes.py,,\n")
    assert listed() == (0, out, "", 2)
    assert listed() == (0, out, "", 2)

    # Edited in place (an editable install: no metadata changes): `plugins list` records the
    # plugin's names afresh, and `mcp list` follows.
    module = site / "launch_hermes.py"
    module.write_text(PLUGIN.replace('"launcher", "launch"', '"launcher", "start"'))
    assert hermes_with(site, "plugins", "list", **env).returncode == 0
    code, _, err, _ = listed()
    assert code == 2 and "mcp_servers.tagged" in err
    module.write_text(PLUGIN)
    assert hermes_with(site, "plugins", "list", **env).returncode == 0
    assert listed()[0] == 0

    # Disabled by HERMES_DISABLE_PLUGINS: its key selects nothing again; that entry is not
    # available (a warning naming the plugin), the rest is listed.
    disabled = hermes_with(site, "mcp", "list", HERMES_DISABLE_PLUGINS="launch", **env)
    assert disabled.returncode == 0 and "mcp_servers.tagged" in disabled.stderr
    assert "plugin launch is disabled (HERMES_DISABLE_PLUGINS)" in disabled.stderr
    assert "plain  [stdio]" in disabled.stdout and "tagged" not in disabled.stdout

    # Removed: the record does not keep its key alive.
    shutil.rmtree(info)
    (site / "launch_hermes.py").unlink()
    code, _, err, _ = listed()
    assert code == 2 and "mcp_servers.tagged" in err


def test_a_broken_record_is_a_miss_not_an_error(tmp_path: Path) -> None:
    site, home = tmp_path / "site", tmp_path / "home"
    site.mkdir()
    (home / "cache").mkdir(parents=True)
    (home / "config.yaml").write_text("mcp_servers:\n  plain:\n    command: node\n")
    (home / "cache" / "plugin-config-keys.json").write_text("{not json")
    result = hermes_with(site, "mcp", "list", HERMES_HOME=str(home))
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == "plain  [stdio]  node\n"
    assert '"fingerprint"' in (home / "cache" / "plugin-config-keys.json").read_text()


def test_the_config_layers_builtin_kinds_are_what_the_builtin_plugins_register() -> None:
    # config.yaml is validated against BUILTIN_KINDS when no plugin manager hands kinds in;
    # the config layer spells them out itself (it imports nothing of the plugin layer).
    manager = create_plugin_manager(entry_points=False)
    assert ServerKinds.of(manager.transports(), manager.auth_providers()) == BUILTIN_KINDS
    assert ServerKinds.builtin() is BUILTIN_KINDS
