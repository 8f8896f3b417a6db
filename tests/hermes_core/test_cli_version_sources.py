"""Version sources end to end: a plugin distribution's own source, selected in its plugin.yaml,
and a built-in Linux source, observed through `hermes apps check --explain` (a real subprocess,
real files, the plugin installed into a site folder as pip would)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli]

PLUGIN_MODULE = textwrap.dedent(
    """
    from hermes_core.plugins import declarations_from_package, hookimpl
    from hermes_core.plugins.types import Observation, VersionSource


    def read_release_file(ctx, path, arg):
        # <root>/bin/tool -> <root>/<arg>: the first line states the version.
        target = ctx.join(ctx.parent(ctx.parent(path)), arg)
        try:
            first = ctx.host.read_range(target, 0, 64).decode("ascii").splitlines()[0]
        except (OSError, UnicodeDecodeError, IndexError):
            return Observation("absent", None, f"no readable {target}")
        return Observation("present", first.strip(), f"first line of {target}")


    @hookimpl
    def version_source():
        return [VersionSource(name="release_file", os="linux", read=read_release_file,
                              arg_key="file", needs_arg=True,
                              description="first line of a file in the install folder")]


    @hookimpl
    def declare_app():
        return declarations_from_package("release_plugin")
    """
)

PLUGIN_YAML = textwrap.dedent(
    """\
    name: tool-server
    display_name: Tool
    app:
      linux:
        presence: executable
        location: $TOOL_ROOT/bin/tool
        version: { kind: release_file, file: RELEASE }
    requires:
      app: true
      min_version: "2.4"
    """
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    package = folder / "release_plugin"
    package.mkdir()
    (package / "__init__.py").write_text(PLUGIN_MODULE)
    (package / "plugin.yaml").write_text(PLUGIN_YAML)
    info = folder / "release_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: release-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[hermes.plugins]\nrelease = release_plugin\n")
    (info / "RECORD").write_text("")
    return folder


def install_tool(root: Path, release: str | None) -> Path:
    tool = root / "bin" / "tool"
    tool.parent.mkdir(parents=True, exist_ok=True)
    tool.write_text("#!/bin/sh\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    if release is not None:
        (root / "RELEASE").write_text(release + "\nbuilt on a Tuesday\n")
    return tool


def hermes(site: Path, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    pythonpath = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    return run_hermes(
        *args,
        env={
            "PYTHONPATH": pythonpath,
            "TOOL_ROOT": str(root),
            "HOME": str(root),
            "PATH": "",
            "HERMES_STRICT_PLUGINS": "1",
        },
    )


def server(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    servers = {s["server"]: s for s in json.loads(result.stdout)["servers"]}
    found: dict[str, Any] = servers["tool-server"]
    return found


def test_a_plugin_version_source_gates_min_version(site: Path, tmp_path: Path) -> None:
    tool = install_tool(tmp_path, "2.4.1")
    result = hermes(site, tmp_path, "apps", "check", "--json", "--explain")
    assert "Traceback" not in result.stderr
    entry = server(result)
    assert (entry["state"], entry["version"], entry["path"]) == ("available", "2.4.1", str(tool))
    assert entry["source"] == "plugin release, release-plugin 1.0"
    assert entry["explain"]["version_kind"] == "release_file"
    assert f"found version 2.4.1 at {tool}, which meets 2.4" in entry["explain"]["steps"]

    (tmp_path / "RELEASE").write_text("2.3.9\n")
    human = hermes(site, tmp_path, "apps", "check", "--explain")
    assert "[--] tool-server: version_too_old" in human.stdout
    assert f"found     {tool}  version 2.3.9" in human.stdout
    assert "the newest readable version is 2.3.9; 2.4 is required" in human.stdout
    assert human.returncode == 1


def test_plugins_list_shows_the_version_source(site: Path, tmp_path: Path) -> None:
    result = hermes(site, tmp_path, "plugins", "list", "--json")
    records = {r["name"]: r for r in json.loads(result.stdout)}
    assert records["release"]["contributions"] == {
        "declare_app": ["tool-server"],
        "version_source": ["release_file"],
    }
    builtin = records["hermes_core.builtin.version_sources"]
    assert builtin["contributions"]["version_source"][:4] == [
        "none",
        "plist",
        "pe_resource",
        "uninstall_registry",
    ]


def test_a_builtin_linux_source_reads_a_real_product_info(tmp_path: Path) -> None:
    ide = tmp_path / "idea"
    launcher = install_tool(ide, None)
    (ide / "product-info.json").write_text(
        json.dumps({"name": "IntelliJ IDEA", "version": "2024.1.4", "buildNumber": "241.1"})
    )
    plugin = tmp_path / "plugin.yaml"
    plugin.write_text(
        "name: idea-server\n"
        "app:\n"
        "  linux:\n"
        "    presence: executable\n"
        f"    location: {launcher}\n"
        "    version: { kind: jetbrains_product_info }\n"
        "requires: { app: true, min_version: '2024.2' }\n"
    )
    result = run_hermes(
        "apps",
        "check",
        "--explain",
        str(plugin),
        env={"PATH": "", "HOME": str(tmp_path)},
        minimal=True,
    )
    assert result.returncode == 1, result.stderr
    assert "[--] idea-server: version_too_old" in result.stdout
    assert f"found     {launcher}  version 2024.1.4" in result.stdout


def test_an_unknown_version_kind_lists_the_registered_ones(site: Path, tmp_path: Path) -> None:
    plugin = tmp_path / "plugin.yaml"
    plugin.write_text(
        "name: x\n"
        "app:\n"
        "  linux:\n"
        "    presence: executable\n"
        "    location: /opt/x/bin/x\n"
        "    version: { kind: release_fil }\n"
    )
    result = hermes(site, tmp_path, "apps", "check", str(plugin))
    assert result.returncode == 2
    message = result.stderr.strip()
    prefix = f"error: {plugin}:6: app.linux.version.kind must be one of "
    suffix = "; did you mean 'release_file'?"
    assert message.startswith(prefix) and message.endswith(suffix), message
    listed = message[len(prefix) : -len(suffix)]
    # Every registered source, sorted: the built-ins, this plugin's, and any other
    # installed plugin's (hermes-appimage adds appimage_filename).
    names = [name.strip(" '") for name in listed.strip("[]").split(",")]
    assert names == sorted(names)
    assert {"none", "plist", "pe_resource", "uninstall_registry", "snap", "release_file"} <= set(
        names
    )
