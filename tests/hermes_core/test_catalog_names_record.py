"""The CLI remembers the catalog manifests' names by the SHA-256 of their text.

The real ``hermes plugins list`` runs against the built-in catalog and a local catalog folder
(``HERMES_CATALOG_PATH``) whose manifests are edited between runs; each run must show the names
the manifests hold now.  ``-X importtime`` shows whether a run parsed YAML (ruamel.yaml) or used
``$HERMES_HOME/cache/catalog-names.json``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.home import clean_env

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]


def _catalog(home: Path, folder: Path) -> tuple[list[str], bool]:
    """The catalog entries ``plugins list --json`` shows (built-in and local), and whether the
    run imported ruamel.yaml to read them."""
    env = clean_env(os.environ)
    env.update(HERMES_HOME=str(home), HERMES_CATALOG_PATH=str(folder))
    command = ["-X", "importtime", "-m", "hermes_core", "--no-plugins", "plugins", "list", "--json"]
    result = subprocess.run(
        [sys.executable, *command],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in result.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "hermes_core.cli" in modules
    names: list[str] = []
    for plugin in json.loads(result.stdout):
        names += plugin["contributions"].get("catalog_entry", [])
    return names, any(m == "ruamel" or m.startswith("ruamel.") for m in modules)


def test_unchanged_manifests_are_not_parsed_again_and_edits_are_seen(tmp_path: Path) -> None:
    home, folder = tmp_path / "home", tmp_path / "catalog"
    home.mkdir()
    folder.mkdir()
    (folder / "first.yaml").write_text("name: alpha\ndescription: one\n")
    (folder / "broken.yaml").write_text("name: [unclosed\n")

    names, parsed = _catalog(home, folder)
    assert parsed
    assert "filesystem" in names  # a built-in manifest
    assert names[-2:] == ["broken", "alpha"]  # sorted by file; unreadable: the file's stem
    assert (home / "cache" / "catalog-names.json").exists()

    assert _catalog(home, folder) == (names, False)

    # Edited in place: another text, another digest, the new name.
    (folder / "first.yaml").write_text("name: beta\ndescription: one\n")
    edited, parsed = _catalog(home, folder)
    assert parsed and edited == [*names[:-1], "beta"]
    (folder / "broken.yaml").write_text("name: mended\n")
    mended, parsed = _catalog(home, folder)
    assert parsed and mended[-2:] == ["mended", "beta"]
    assert _catalog(home, folder) == (mended, False)


def test_a_broken_or_foreign_record_is_a_miss(tmp_path: Path) -> None:
    home, folder = tmp_path / "home", tmp_path / "catalog"
    (home / "cache").mkdir(parents=True)
    folder.mkdir()
    (folder / "first.yaml").write_text("name: alpha\n")
    expected, _ = _catalog(home, folder)
    record = home / "cache" / "catalog-names.json"
    good = json.loads(record.read_text())
    bad_rows = {**good, "names": dict.fromkeys(good["names"], 7)}
    other_version = {**good, "hermes": "0.0.0-other"}
    for text in ("{not json", "[]", json.dumps(bad_rows), json.dumps(other_version)):
        record.write_text(text)
        assert _catalog(home, folder) == (expected, True), text
