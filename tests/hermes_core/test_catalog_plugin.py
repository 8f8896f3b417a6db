"""A third-party distribution's catalog entry, shipped next to its app declaration, end to end.

The plugin ``globex-hermes 1.2.0`` is written to a temporary folder outside the repository in
the layout ``pip install`` produces (the module beside a ``*.dist-info`` whose
``entry_points.txt`` has a ``[hermes.plugins]`` group), on the child's ``PYTHONPATH``.  Its
``catalog_entry`` hook returns ``catalog.yaml`` and its ``declare_app`` hook the
``plugin.yaml`` beside it; the real ``hermes`` command lists, refuses and installs the entry,
and the installed server (server-everything) is probed and its tools listed.
"""

from __future__ import annotations

import json
import os
import stat
import textwrap
from pathlib import Path

import pytest

from servers.reference import EVERYTHING, node
from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

PLUGIN = '''
"""globex-hermes: Globex's app declaration and its catalog entry."""

from hermes_core.plugins import catalog_entries_from_package, declarations_from_package, hookimpl


@hookimpl
def declare_app():
    return declarations_from_package("globex_hermes")


@hookimpl
def catalog_entry():
    return catalog_entries_from_package("globex_hermes", "catalog.yaml")
'''

DECLARATION = """\
name: globex
display_name: Globex Desktop
app:
  linux:
    presence: executable
    location: [{kind: command, name: globex-desktop}]
requires:
  app: true
"""


def distribution(site: Path, node_path: str) -> None:
    package = site / "globex_hermes"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(PLUGIN)
    (package / "plugin.yaml").write_text(DECLARATION)
    (package / "catalog.yaml").write_text(
        textwrap.dedent(
            f"""\
            manifest_version: 1
            name: globex
            description: Globex Desktop's MCP server
            transport:
              command: {node_path}
              args: ["{EVERYTHING}", "stdio"]
            tools:
              default_enabled: [echo]
            suggest:
              keywords: [globex]
            """
        )
    )
    info = site / "globex_hermes-1.2.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: globex-hermes\nVersion: 1.2.0\n")
    (info / "entry_points.txt").write_text("[hermes.plugins]\nglobex = globex_hermes\n")


def test_cli_hook_catalog_entry_from_a_plugin_distribution(tmp_path: Path) -> None:
    site = tmp_path / "site"
    distribution(site, node())
    home = tmp_path / "home"
    home.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    system_path = os.pathsep.join(
        p for p in ("/usr/local/bin", "/usr/bin", "/bin") if Path(p).is_dir()
    )
    env = {
        "HERMES_HOME": str(home),
        # The site first, then the tree under test (the checkout, not an installed copy).
        "PYTHONPATH": os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p),
        "PATH": f"{bin_dir}{os.pathsep}{system_path}",
        "HERMES_STRICT_PLUGINS": "1",
    }

    # Without the app: listed as unavailable here with the declaration's sentence, refused.
    listed = run_hermes("mcp", "catalog", env=env)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    (row,) = [i for i, line in enumerate(lines) if line.startswith("globex ")]
    assert "unavailable here" in lines[row] and "[from globex-hermes 1.2.0]" in lines[row]
    sentence = "Globex Desktop is not installed. Install Globex Desktop, then try again."
    assert lines[row + 1].strip() == sentence
    refused = run_hermes("mcp", "install", "globex", "--yes", env=env)
    assert refused.returncode == 1
    assert refused.stderr.strip().endswith(f"'globex' is unavailable: missing_app. {sentence}")
    assert not (home / "config.yaml").exists()
    plugins = json.loads(run_hermes("plugins", "list", "--json", env=env).stdout)
    (globex,) = [p for p in plugins if p["name"] == "globex"]
    assert globex["contributions"]["catalog_entry"] == ["globex"]

    # With the app installed: available, installed, probed, its chosen tools offered.
    app = bin_dir / "globex-desktop"
    app.write_text("#!/bin/sh\nexit 0\n")
    app.chmod(app.stat().st_mode | stat.S_IXUSR)
    installed = run_hermes("mcp", "install", "globex", "--yes", env=env)
    assert installed.returncode == 0, installed.stderr
    assert "Install 'globex' from globex-hermes 1.2.0" in installed.stdout
    tools = run_hermes("mcp", "tools", "--json", env=env)
    names = [t["name"] for t in json.loads(tools.stdout) if not t["utility"]]
    assert names == ["mcp_globex_echo"], tools.stderr
    # The count is what is offered: echo and the utility tools (pre-checked).
    offered = json.loads(tools.stdout)
    utilities = ", ".join(t["tool"] for t in offered if t["utility"])
    said = f"tools: {len(offered)} enabled (echo; utility tools: {utilities})"
    assert said in installed.stdout, installed.stdout
    suggested = run_hermes("mcp", "suggest", "ask Globex for it", env=env)
    assert suggested.stdout.startswith("globex  (keyword 'globex'; installed (enabled))")
