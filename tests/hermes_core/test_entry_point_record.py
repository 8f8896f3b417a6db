"""The CLI remembers the ``hermes.plugins`` entry points while nothing installed changes.

Real plugin distributions (``support.dists``: a ``*.dist-info`` with ``METADATA`` and
``entry_points.txt`` in a site folder on the child's ``sys.path``) are installed, edited in
place and removed between runs of the real ``hermes plugins list``; each run must list exactly
what is installed.  ``PYTHONPROFILEIMPORTTIME`` (``-X importtime``) shows whether a run scanned
the distributions (it imports ``importlib_metadata``) or used
``$HERMES_HOME/cache/entry-points.json``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from support.dists import hermes_with, install

pytestmark = [pytest.mark.process, pytest.mark.cli]

PLUGIN = """
from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import MessagingPlatform


def _create(*args, **kwargs):
    raise RuntimeError("not used")


@hookimpl
def messaging_platform():
    return [MessagingPlatform("{name}", _create, "a test adapter")]
"""


def _listed(site: Path, home: Path) -> tuple[dict[str, Any], bool]:
    """The plugins ``plugins list --json`` shows (by name), and whether the run scanned."""
    result = hermes_with(
        site, "plugins", "list", "--json", HERMES_HOME=str(home), PYTHONPROFILEIMPORTTIME="1"
    )
    assert result.returncode == 0, result.stderr[-3000:]
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in result.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "hermes_core.cli" in modules
    plugins = {p["name"]: p for p in json.loads(result.stdout)}
    return plugins, "importlib_metadata" in modules


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    site, home = tmp_path / "site", tmp_path / "home"
    site.mkdir()
    home.mkdir()
    return site, home


def test_installs_edits_and_removals_are_seen_and_nothing_else_rescans(
    dirs: tuple[Path, Path],
) -> None:
    site, home = dirs
    record = home / "cache" / "entry-points.json"
    first, scanned = _listed(site, home)
    assert scanned and record.exists()
    assert "first" not in first

    # Nothing installed changed: the same listing, without scanning.
    again, scanned = _listed(site, home)
    assert (again, scanned) == (first, False)

    # Installed: seen, with its distribution's name and version.
    install(site, "first-hermes", "first_hermes", "first", PLUGIN.format(name="one"))
    plugins, scanned = _listed(site, home)
    assert scanned
    assert plugins["first"]["distribution"] == "first-hermes"
    assert plugins["first"]["version"] == "1.0"
    assert plugins["first"]["contributions"] == {"messaging_platform": ["one"]}
    assert _listed(site, home) == (plugins, False)

    # entry_points.txt edited in place (same folder): a second entry point is seen.
    info = site / "first_hermes-1.0.dist-info"
    (site / "second_hermes.py").write_text(PLUGIN.format(name="two"))
    (info / "entry_points.txt").write_text(
        "[hermes.plugins]\nfirst = first_hermes\nsecond = second_hermes\n"
    )
    plugins, scanned = _listed(site, home)
    assert scanned and plugins["second"]["contributions"] == {"messaging_platform": ["two"]}

    # METADATA rewritten in place (an upgrade to a version of the same length): seen.
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: first-hermes\nVersion: 1.1\n")
    plugins, scanned = _listed(site, home)
    assert scanned and plugins["first"]["version"] == "1.1"

    # Removed: gone from the listing.
    shutil.rmtree(info)
    plugins, scanned = _listed(site, home)
    assert scanned and "first" not in plugins and "second" not in plugins
    assert plugins == first


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        '{"format": 1, "state": "x", "entry_points": []}',
        "[]",
    ],
)
def test_a_broken_or_foreign_record_is_a_miss(dirs: tuple[Path, Path], text: str) -> None:
    site, home = dirs
    install(site, "first-hermes", "first_hermes", "first", PLUGIN.format(name="one"))
    expected, _ = _listed(site, home)
    record = home / "cache" / "entry-points.json"
    record.write_text(text)
    plugins, scanned = _listed(site, home)
    assert (plugins, scanned) == (expected, True)
    assert '"state"' in record.read_text()


def test_a_record_with_the_right_state_but_bad_rows_is_a_miss(dirs: tuple[Path, Path]) -> None:
    site, home = dirs
    install(site, "first-hermes", "first_hermes", "first", PLUGIN.format(name="one"))
    expected, _ = _listed(site, home)
    record = home / "cache" / "entry-points.json"
    data = json.loads(record.read_text())
    data["entry_points"] = [["first", 42, None, None, None]]
    record.write_text(json.dumps(data))
    assert _listed(site, home) == (expected, True)


def test_strict_mode_always_scans(dirs: tuple[Path, Path]) -> None:
    site, home = dirs
    _listed(site, home)
    result = hermes_with(
        site,
        "plugins",
        "list",
        HERMES_HOME=str(home),
        HERMES_STRICT_PLUGINS="1",
        PYTHONPROFILEIMPORTTIME="1",
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "| importlib_metadata\n" in result.stderr
