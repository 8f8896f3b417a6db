"""Entry-point discovery for real: distributions installed into a site folder, the CLI run on them.

Each test distribution is a real installed layout (``*.dist-info`` with
``METADATA`` and ``entry_points.txt`` next to its module) on the child
process's ``sys.path``; importlib-metadata finds it exactly as after
``pip install``.  Nothing is patched.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from support.cli import run_hermes
from support.dists import install

pytestmark = [pytest.mark.process, pytest.mark.cli]

GOOD_DECLARATION = """
from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import AppDeclaration

@hookimpl
def declare_app():
    return [AppDeclaration(
        server="imaging-tool",
        app={"linux": {"presence": "executable",
                       "location": [{"kind": "appimage", "name": "Imaging-Tool"}]}},
        requires={"app": True},
        where="imaging/plugin.yaml",
    )]
"""

DISTRIBUTIONS = {
    # name: (module name, entry-point name, module source)
    "imaging-tool-hermes": ("imaging_plugin", "imaging", GOOD_DECLARATION),
    "broken-import": (
        "broken_import_plugin",
        "broken-import",
        "raise ImportError('boom: missing dependency')\n",
    ),
    "wrong-type": (
        "wrong_type_plugin",
        "wrong-type",
        "from hermes_core.plugins import hookimpl\n\n"
        "@hookimpl\ndef location_kind():\n    return ['not a kind']\n",
    ),
    "raises-in-hook": (
        "raising_plugin",
        "raises-in-hook",
        "from hermes_core.plugins import hookimpl\n\n"
        "@hookimpl\ndef transport():\n    raise RuntimeError('hook exploded')\n",
    ),
    "clash-snap": (
        "clash_plugin",
        "clash-snap",
        textwrap.dedent(
            """
            from hermes_core.plugins import hookimpl
            from hermes_core.plugins.types import LocationKind

            def _nowhere(ctx, location):
                return []

            @hookimpl
            def location_kind():
                return [LocationKind(name="snap", os="linux", key="name",
                                     presence="executable", locate=_nowhere)]
            """
        ),
    ),
    "bad-declaration": (
        "bad_declaration_plugin",
        "bad-declaration",
        textwrap.dedent(
            """
            from hermes_core.plugins import hookimpl
            from hermes_core.plugins.types import AppDeclaration

            @hookimpl
            def declare_app():
                return [AppDeclaration(server="bad", app={"linux": {"presence": "executable",
                        "location": [{"kind": "nope", "name": "x"}]}}, where="bad/plugin.yaml")]
            """
        ),
    ),
    "import-marker": (
        "marker_plugin",
        "import-marker",
        "import os, pathlib\npathlib.Path(os.environ['MARKER_FILE']).write_text('imported')\n",
    ),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    for dist, (module, entry, source) in DISTRIBUTIONS.items():
        install(folder, dist, module, entry, source)
    return folder


def hermes(site: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    pythonpath = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    return run_hermes(
        *args, env={"PYTHONPATH": pythonpath, "MARKER_FILE": str(site / "marker"), **env}
    )


def test_plugins_list_reports_every_broken_plugin_and_still_runs(site: Path) -> None:
    result = hermes(site, "plugins", "list", "--json")
    assert result.returncode == 3, result.stderr
    records = {r["name"]: r for r in json.loads(result.stdout)}
    broken = records["broken-import"]
    assert (broken["status"], broken["distribution"], broken["version"]) == (
        "failed",
        "broken-import",
        "1.0",
    )
    # The file and line of the failing frame: the plugin's own module, line 1.
    assert broken["reason"] == (
        "failed to import: ImportError: boom: missing dependency "
        f"(at {site / 'broken_import_plugin.py'}:1)"
    )
    assert records["wrong-type"]["problems"] == [
        "location_kind: returned a str, expected LocationKind"
    ]
    assert records["wrong-type"]["status"] == "degraded"
    assert records["raises-in-hook"]["problems"] == [
        f"transport: raised RuntimeError: hook exploded (at {site / 'raising_plugin.py'}:5)"
    ]
    (clash,) = records["clash-snap"]["problems"]
    assert clash.startswith("location_kind: location_kind 'snap' is already provided by")
    assert "hermes_core.builtin.location_kinds" in clash
    (bad,) = records["bad-declaration"]["problems"]
    assert (
        "bad/plugin.yaml (plugin bad-declaration, bad-declaration 1.0): app.linux.location[0]"
        in bad
    )
    assert records["imaging"]["status"] == "loaded"
    assert records["imaging"]["contributions"] == {"declare_app": ["imaging-tool"]}
    assert records["appimage"]["contributions"] == {
        "location_kind": ["appimage"],
        "version_source": ["appimage_filename"],
    }
    assert "Traceback" not in result.stderr
    assert "HERMES_DISABLE_PLUGINS=broken-import" in result.stderr


def test_human_listing(site: Path) -> None:
    result = hermes(site, "plugins", "list")
    assert (
        "broken-import  (broken-import 1.0)  failed: failed to import: ImportError" in result.stdout
    )
    assert "appimage  (hermes-appimage 0.1.0)  loaded" in result.stdout
    assert (
        "    location_kind: command, uninstall_registry, app_bundle, flatpak, snap" in result.stdout
    )


def test_apps_check_evaluates_entry_point_declarations_with_a_plugin_kind(
    site: Path, tmp_path: Path
) -> None:
    image = tmp_path / "Applications" / "Imaging-Tool-3.1.AppImage"
    image.parent.mkdir()
    image.write_bytes(b"\x7fELF")
    result = hermes(site, "apps", "check", "--json", "--explain", HOME=str(tmp_path), PATH="")
    servers = {s["server"]: s for s in json.loads(result.stdout)["servers"]}
    assert servers["imaging-tool"]["state"] == "available"
    assert servers["imaging-tool"]["path"] == str(image)
    assert servers["imaging-tool"]["source"] == "plugin imaging, imaging-tool-hermes 1.0"
    assert "bad" not in servers  # it did not parse; the warning says why
    assert "app.linux.location[0] must be a path or a mapping with kind one of" in result.stderr


def test_strict_mode_stops_at_the_first_broken_plugin(site: Path) -> None:
    result = hermes(site, "plugins", "list", HERMES_STRICT_PLUGINS="1")
    assert result.returncode == 3  # a broken plugin: not 1 (not offerable), not 2 (bad usage)
    assert result.stderr == (
        "error: plugin 'broken-import' (from broken-import 1.0): "
        "failed to import: ImportError: boom: missing dependency "
        f"(at {site / 'broken_import_plugin.py'}:1)\n"
    )
    assert "Traceback" not in result.stderr


def test_disabled_plugins_are_never_imported(site: Path) -> None:
    marker = site / "marker"
    marker.unlink(missing_ok=True)
    result = hermes(
        site, "plugins", "list", "--json", HERMES_DISABLE_PLUGINS="import-marker, broken-import"
    )
    records = {r["name"]: r for r in json.loads(result.stdout)}
    assert records["import-marker"]["status"] == "disabled"
    assert records["broken-import"]["status"] == "disabled"
    assert not marker.exists()
    hermes(site, "plugins", "list")
    assert marker.read_text() == "imported"
    marker.unlink()


def test_no_plugins_lists_everything_disabled_and_imports_nothing(site: Path) -> None:
    marker = site / "marker"
    marker.unlink(missing_ok=True)
    result = hermes(site, "--no-plugins", "plugins", "list", "--json")
    assert result.returncode == 0
    records = json.loads(result.stdout)
    external = [r for r in records if not r["builtin"]]
    assert external and all(r["status"] == "disabled" for r in external)
    assert all(r["status"] == "loaded" for r in records if r["builtin"])
    assert not marker.exists()


def test_listing_plugins_does_not_import_mcp(site: Path) -> None:
    script = (
        "import sys\nfrom hermes_core.cli import main\n"
        "main(['plugins', 'list', '--json'])\n"
        "sys.stderr.write('MCP LOADED' if 'mcp' in sys.modules else 'no mcp')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=60,
    )
    assert result.stderr.endswith("no mcp")
