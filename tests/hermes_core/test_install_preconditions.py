"""``hermes mcp install`` checks before it touches the disk and puts back what was there
(issue 27, item 9), and writes no secret into ``config.yaml`` (item 6).

Before, an install over a previous one deleted the previous install, bootstrapped the new one,
then failed on a ``config.yaml`` it could not edit (a duplicate key): the previous install was
gone and the config never recorded the new one.  A local catalog manifest
(``HERMES_CATALOG_PATH``) is installed for real by the CLI; its bootstrap leaves a mark.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli]

MANIFEST = """\
manifest_version: 1
name: tiny
description: A tiny server
install:
  bootstrap: ["echo built >> marker.txt", "{extra}"]
transport:
  command: {python}
  args: ["{server}", "${{INSTALL_DIR}}/marker.txt"]
  env: {{API_TOKEN: literal-token-123, MODE: plain}}
"""


#: A real MCP server (it ignores its argument), so install's probe of the entry succeeds.
SERVER = Path(__file__).parents[1] / "servers" / "fidelity_server.py"


def manifest(extra: str) -> str:
    return MANIFEST.format(extra=extra, python=sys.executable, server=SERVER)


def _setup(tmp_path: Path, extra: str = "true") -> tuple[Path, dict[str, str]]:
    home, catalog = tmp_path / "hermes", tmp_path / "catalog"
    home.mkdir()
    catalog.mkdir()
    (catalog / "tiny.yaml").write_text(manifest(extra))
    return home, {"HERMES_HOME": str(home), "HERMES_CATALOG_PATH": str(catalog)}


def _install(env: dict[str, str]) -> tuple[int, str, str]:
    result = run_hermes("mcp", "install", "tiny", "--yes", env=env)
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stdout, result.stderr


def test_a_config_that_cannot_be_edited_stops_the_install_before_anything_changes(
    tmp_path: Path,
) -> None:
    home, env = _setup(tmp_path)
    code, out, err = _install(env)
    assert code == 0, out + err
    folder = home / "mcp-installs" / "tiny"
    (folder / "mine.txt").write_text("the previous install")
    config = home / "config.yaml"
    broken = "mcp_servers:\n  tiny:\n    command: cat\n  tiny:\n    command: again\n"
    config.write_text(broken)
    dotenv = (home / ".env").read_bytes()

    code, out, err = _install(env)
    assert code == 2
    assert f"{config}:4: YAML syntax error: found duplicate key" in err
    assert (folder / "mine.txt").read_text() == "the previous install"
    assert (folder / "marker.txt").read_text() == "built\n"  # not bootstrapped again
    assert "[1/2]" not in out
    assert config.read_text() == broken
    assert (home / ".env").read_bytes() == dotenv


def test_a_failure_after_the_bootstrap_puts_the_previous_install_back(tmp_path: Path) -> None:
    # The new install's bootstrap breaks config.yaml, so recording the install fails after
    # the code was fetched: the previous install, config.yaml's entry and .env come back.
    home, env = _setup(
        tmp_path, extra=r"printf '  tiny:\n    command: dup\n' >> \"$HERMES_HOME/config.yaml\""
    )
    (home / "config.yaml").write_text("mcp_servers: {}\n")
    first = tmp_path / "first.yaml"
    first.write_text(manifest("true"))
    (Path(env["HERMES_CATALOG_PATH"]) / "tiny.yaml").write_bytes(first.read_bytes())
    assert _install(env)[0] == 0
    folder = home / "mcp-installs" / "tiny"
    (folder / "mine.txt").write_text("the previous install")
    before_config = (home / "config.yaml").read_text()
    (home / ".env").write_text("OTHER=1\n")
    before_env = (home / ".env").read_bytes()

    (Path(env["HERMES_CATALOG_PATH"]) / "tiny.yaml").write_text(
        manifest(r"printf '  tiny:\n    command: dup\n' >> \"$HERMES_HOME/config.yaml\"").replace(
            "literal-token-123", "another-token-456"
        )
    )
    code, _out, err = _install(env)
    assert code != 0
    assert "duplicate key" in err
    assert (folder / "mine.txt").read_text() == "the previous install"
    assert not (home / "mcp-installs" / ".tiny.previous").exists()
    assert (home / ".env").read_bytes() == before_env
    # The bootstrap's own damage stays (it is not ours to undo), but our entry is unchanged.
    assert (home / "config.yaml").read_text().startswith(before_config)


def test_install_writes_literal_secrets_to_dotenv_and_shows_the_reference(
    tmp_path: Path,
) -> None:
    home, env = _setup(tmp_path)
    code, out, err = _install(env)
    assert code == 0, out + err
    assert "API_TOKEN=${API_TOKEN}" in out and "literal-token-123" not in out + err
    text = (home / "config.yaml").read_text()
    assert "literal-token-123" not in text
    assert "API_TOKEN: ${API_TOKEN}" in text and "MODE: plain" in text
    dotenv = home / ".env"
    assert "API_TOKEN=literal-token-123" in dotenv.read_text()
    assert stat.S_IMODE(dotenv.stat().st_mode) == 0o600
    assert os.access(dotenv, os.R_OK)
