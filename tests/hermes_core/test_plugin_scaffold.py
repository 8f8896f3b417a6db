"""``hermes plugins new``: the scaffold installs with pip, its own tests pass, Hermes loads it.

Real subprocesses throughout: the CLI writes the package, pip installs it (``--no-deps`` into
an author's venv that already reads hermes-core, see ``support.author_env``), its pytest suite
runs, and ``hermes plugins list`` / ``hermes apps check --explain`` see it through its entry
point.
"""

from __future__ import annotations

import json
import os
import stat
import zipfile
from pathlib import Path

import pytest

from support.author_env import make_author_env
from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]


def test_a_scaffold_installs_passes_its_tests_and_is_offered(tmp_path: Path) -> None:
    author = make_author_env(tmp_path / "venv")
    project = tmp_path / "work" / "acme-paint"
    made = run_hermes("plugins", "new", "acme-paint", "--dir", str(project))
    assert made.returncode == 0, made.stderr
    assert f"Created acme-paint-hermes in {project}:" in made.stdout
    assert "  src/acme_paint/skills/acme-paint/SKILL.md" in made.stdout

    install = author.run("pip install --no-deps -e . ", cwd=project)
    assert install.returncode == 0, install.stdout + install.stderr
    tests = author.run("pytest -q -p no:cacheprovider", cwd=project)
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "7 passed" in tests.stdout

    listing = author.run(
        "hermes plugins list --json", cwd=project, env={"HERMES_STRICT_PLUGINS": "1"}
    )
    assert listing.returncode == 0, listing.stderr
    (record,) = [r for r in json.loads(listing.stdout) if r["name"] == "acme-paint"]
    assert (record["distribution"], record["status"]) == ("acme-paint-hermes", "loaded")
    assert record["contributions"] == {
        "declare_app": ["acme-paint"],
        "catalog_entry": ["acme-paint"],
    }

    # Acme Paint "installed": an executable on PATH, which the linux block looks for.
    app_bin = tmp_path / "app-bin"
    app_bin.mkdir()
    app = app_bin / "acme-paint"
    app.write_text("#!/bin/sh\n")
    app.chmod(app.stat().st_mode | stat.S_IXUSR)
    path = os.pathsep.join((str(app_bin), os.environ.get("PATH", "")))
    check = author.run("hermes apps check --explain --json", cwd=project, env={"PATH": path})
    servers = {s["server"]: s for s in json.loads(check.stdout)["servers"]}
    paint = servers["acme-paint"]
    assert (paint["state"], paint["path"]) == ("available", str(app)), check.stderr
    assert paint["source"] == "plugin acme-paint, acme-paint-hermes 0.1.0"

    skills = author.run("hermes skills list --json", cwd=project, env={"PATH": path})
    assert skills.returncode == 0, skills.stderr
    assert "acme-paint" in skills.stdout


def test_the_wheel_ships_plugin_yaml_catalog_yaml_and_the_skill(tmp_path: Path) -> None:
    """What an editable install hides: built as a wheel and installed from it, the package
    still finds every data file its hooks read (the catalog entry most of all)."""
    author = make_author_env(tmp_path / "venv")
    project = tmp_path / "work" / "acme-cloud"
    made = run_hermes(
        "plugins", "new", "acme-cloud", "--dir", str(project),
        "--dist", "acme-cloud-mcp", "--display-name", "AcmeCloud",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert f"Created acme-cloud-mcp in {project}:" in made.stdout
    built = author.run("pip wheel --no-deps --no-build-isolation -q -w dist .", cwd=project)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (project / "dist").glob("*.whl")
    assert wheel.name.startswith("acme_cloud_mcp-0.1.0-")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    for shipped in ("plugin.yaml", "catalog.yaml", "skills/acme-cloud/SKILL.md"):
        assert f"acme_cloud/{shipped}" in names, sorted(names)

    installed = author.run(f"pip install --no-deps -q {wheel}", cwd=tmp_path)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    elsewhere = tmp_path / "elsewhere"  # not the project: only the wheel's files are there
    elsewhere.mkdir()
    strict = {"HERMES_STRICT_PLUGINS": "1"}
    listing = author.run("hermes plugins list --json", cwd=elsewhere, env=strict)
    assert listing.returncode == 0, listing.stderr
    (record,) = [r for r in json.loads(listing.stdout) if r["name"] == "acme-cloud"]
    assert (record["distribution"], record["status"]) == ("acme-cloud-mcp", "loaded")
    assert record["contributions"]["catalog_entry"] == ["acme-cloud"]
    where = author.run("python -c 'import acme_cloud; print(acme_cloud.__file__)'", cwd=elsewhere)
    assert "site-packages" in where.stdout and str(project) not in where.stdout
    catalog = author.run("hermes mcp catalog --json", cwd=elsewhere, env=strict)
    assert catalog.returncode == 0, catalog.stderr
    entries = {e["name"]: e for e in json.loads(catalog.stdout)["entries"]}
    assert entries["acme-cloud"]["from"] == "acme-cloud-mcp 0.1.0", entries["acme-cloud"]
    declaration = (project / "src" / "acme_cloud" / "plugin.yaml").read_text()
    assert "\nname: acme-cloud\ndisplay_name: AcmeCloud\n" in declaration


def test_a_bad_dist_or_display_name_is_refused(tmp_path: Path) -> None:
    for flag, value, says in (
        ("--dist", "acme paint", "error: distribution name 'acme paint' must be"),
        ("--display-name", 'Acme "Paint"', "error: display name 'Acme \"Paint\"' must be"),
    ):
        bad = run_hermes("plugins", "new", "acme-paint", "--dir", str(tmp_path / "x"), flag, value)
        assert bad.returncode == 2
        assert bad.stderr.startswith(says), bad.stderr
        assert not (tmp_path / "x").exists()


def test_a_bad_name_or_a_used_folder_is_refused(tmp_path: Path) -> None:
    bad = run_hermes("plugins", "new", "Acme_Paint", "--dir", str(tmp_path / "x"))
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: plugin name 'Acme_Paint' must be lowercase letters")
    assert not (tmp_path / "x").exists()
    used = tmp_path / "used"
    used.mkdir()
    (used / "keep.txt").write_text("mine")
    refused = run_hermes("plugins", "new", "acme-paint", "--dir", str(used))
    assert refused.returncode == 2
    assert refused.stderr == f"error: {used} already exists and is not an empty folder\n"
    assert [p.name for p in used.iterdir()] == ["keep.txt"]


def test_the_default_folder_is_the_name(tmp_path: Path) -> None:
    made = run_hermes("plugins", "new", "paint", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    text = (tmp_path / "paint" / "src" / "paint" / "plugin.yaml").read_text()
    assert "\nname: paint\ndisplay_name: Paint\n" in text
