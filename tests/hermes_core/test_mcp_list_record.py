"""``hermes mcp list`` prints an unchanged file from its record, and never trusts a stale one.

The real CLI runs under ``python -X importtime``, so each test sees whether a run validated the
file (pydantic, ruamel) or printed the record in ``$HERMES_HOME/cache/mcp-list.json``.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from support.dists import hermes_with, install
from support.imports import imported_modules, offending

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

CONFIG = """\
mcp_servers:
  files:
    command: npx
    args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
  remote:
    url: https://mcp.example.com/mcp
    enabled: false
"""

# What a listing never needs (test_cli_startup_imports.py pins the same for a validation).
LIST_MUST_NOT_IMPORT = {
    "mcp",
    "asyncio",
    "httpx",
    "anyio",
    "hermes_core.host",
    "hermes_core.config.store",
    "hermes_core.catalog",
}

PLUGIN = """
from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import TransportSpec


def _launch(spec, errlog):
    raise RuntimeError("not used by mcp list")


@hookimpl
def transport():
    return [TransportSpec("launcher", "launch", "a launched server", connect=_launch)]
"""


VALIDATION = {"pydantic", "ruamel", "hermes_core.config.models", "hermes_core.config.loader"}


def _validated(modules: set[str]) -> bool:
    return bool(offending(modules, VALIDATION))


def _record(home: Path) -> Path:
    return home / "cache" / "mcp-list.json"


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_a_repeat_list_prints_the_record_without_validating(
    tmp_path: Path, extra: list[str]
) -> None:
    (tmp_path / "config.yaml").write_text(CONFIG, encoding="utf-8")
    first, full = imported_modules("mcp", "list", *extra, home=tmp_path)
    assert full.returncode == 0 and _validated(first), full.stderr[-2000:]
    assert stat.S_IMODE(_record(tmp_path).stat().st_mode) == 0o600
    modules, again = imported_modules("mcp", "list", *extra, home=tmp_path)
    assert again.returncode == 0, again.stderr[-2000:]
    assert again.stdout == full.stdout
    assert "files" in again.stdout and "remote" in again.stdout
    assert not _validated(modules)
    assert offending(modules, LIST_MUST_NOT_IMPORT | {"pluggy", "hermes_platform"}) == []


def test_a_warning_is_printed_again_from_the_record(tmp_path: Path) -> None:
    # A keepalive below the floor is a warning, not an error: it must not vanish on a repeat.
    config = CONFIG.replace("enabled: false", "enabled: false\n    keepalive_interval: 0.01")
    (tmp_path / "config.yaml").write_text(config, encoding="utf-8")
    _, full = imported_modules("mcp", "list", home=tmp_path)
    modules, again = imported_modules("mcp", "list", home=tmp_path)
    assert not _validated(modules)
    assert (again.returncode, again.stdout) == (full.returncode, full.stdout)
    assert "keepalive_interval" in full.stderr
    strip = [line for line in again.stderr.splitlines() if not line.startswith("import time:")]
    wanted = [line for line in full.stderr.splitlines() if not line.startswith("import time:")]
    assert strip == wanted


def test_an_edit_is_validated_again_and_its_error_named_at_file_and_line(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    imported_modules("mcp", "list", home=tmp_path)
    assert _record(tmp_path).exists()
    config.write_text(CONFIG.replace("enabled: false", "enabeld: false"), encoding="utf-8")
    modules, result = imported_modules("mcp", "list", home=tmp_path)
    assert result.returncode == 2
    assert _validated(modules)
    assert f"{config}:7: mcp_servers.remote.enabeld" in result.stderr
    # still an error the next time: a failed validation is never recorded
    _, again = imported_modules("mcp", "list", home=tmp_path)
    assert again.returncode == 2 and f"{config}:7:" in again.stderr


def test_a_plugin_change_validates_again(tmp_path: Path) -> None:
    site, home = tmp_path / "site", tmp_path / "home"
    site.mkdir()
    home.mkdir()
    config = "mcp_servers:\n  tagged:\n    launch: {script: server.js}\n"
    (home / "config.yaml").write_text(config, encoding="utf-8")
    install(site, "launch-hermes", "launch_hermes", "launch", PLUGIN)
    env = {"HERMES_HOME": str(home)}
    assert hermes_with(site, "mcp", "list", **env).returncode == 0
    recorded = hermes_with(site, "mcp", "list", **env)
    assert recorded.returncode == 0 and "tagged  [launcher]" in recorded.stdout
    assert _record(home).exists()
    # Disabled: the plugin's key selects nothing, whatever was recorded: that entry is not
    # available (a warning at its line), the listing goes on without it.
    disabled = hermes_with(site, "mcp", "list", HERMES_DISABLE_PLUGINS="launch", **env)
    assert disabled.returncode == 0 and "config.yaml:2: mcp_servers.tagged" in disabled.stderr
    assert "tagged" not in disabled.stdout
    # Removed: the same.
    for path in site.iterdir():
        if path.name.startswith("launch_hermes"):
            if path.is_dir():
                for inner in path.iterdir():
                    inner.unlink()
                path.rmdir()
            else:
                path.unlink()
    removed = hermes_with(site, "mcp", "list", **env)
    assert removed.returncode == 2 and "config.yaml:2: mcp_servers.tagged" in removed.stderr


HOSTILE = [
    "{not json",
    "[]",
    '{"format": 1}',
    "\x00" * 64,
    '{"format": 1, "key": null, "path": 1, "rows": "x", "warnings": {}}',
]


@pytest.mark.parametrize("text", HOSTILE)
def test_a_corrupt_record_is_a_miss(tmp_path: Path, text: str) -> None:
    (tmp_path / "config.yaml").write_text(CONFIG, encoding="utf-8")
    _, full = imported_modules("mcp", "list", home=tmp_path)
    _record(tmp_path).write_text(text, encoding="utf-8")
    modules, result = imported_modules("mcp", "list", home=tmp_path)
    assert _validated(modules)
    assert (result.returncode, result.stdout) == (0, full.stdout)
    assert json.loads(_record(tmp_path).read_text())["format"] == 1  # written afresh


def test_a_record_with_the_right_key_but_bad_rows_is_a_miss(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(CONFIG, encoding="utf-8")
    _, full = imported_modules("mcp", "list", home=tmp_path)
    data = json.loads(_record(tmp_path).read_text())
    data["rows"][0]["enabled"] = "yes"
    data["rows"][0]["extra"] = "x"
    _record(tmp_path).write_text(json.dumps(data), encoding="utf-8")
    modules, result = imported_modules("mcp", "list", home=tmp_path)
    assert _validated(modules)
    assert (result.returncode, result.stdout) == (0, full.stdout)


def test_a_symlinked_record_is_not_followed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(CONFIG, encoding="utf-8")
    _, full = imported_modules("mcp", "list", home=home)
    elsewhere = tmp_path / "elsewhere.json"
    os.replace(_record(home), elsewhere)
    data = json.loads(elsewhere.read_text())
    data["rows"][0]["target"] = "planted"
    elsewhere.write_text(json.dumps(data), encoding="utf-8")
    _record(home).symlink_to(elsewhere)
    modules, result = imported_modules("mcp", "list", home=home)
    assert _validated(modules)
    assert (result.returncode, result.stdout) == (0, full.stdout)
    assert "planted" not in result.stdout
    assert not _record(home).is_symlink()  # replaced by a real file
