"""Secrets in config.yaml never reach output, errors or repr (header values, args, anchors)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermes_core.config.loader import load_config
from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

SECRET = "s3cr3t-Zq9"


def home_with(tmp_path: Path, text: str) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(text)
    return home


def test_a_header_value_with_outer_whitespace_is_refused_at_load(tmp_path: Path) -> None:
    home = home_with(
        tmp_path,
        "mcp_servers:\n  remote:\n    url: http://127.0.0.1:9/mcp\n    headers:\n"
        f'      Authorization: "Bearer {SECRET}\\t"\n',
    )
    for args in (["mcp", "status"], ["mcp", "status", "--json"], ["mcp", "list"]):
        result = run_hermes(*args, env={"HERMES_HOME": str(home)})
        assert result.returncode == 2, result.stderr
        assert result.stderr == (
            f"error: {home / 'config.yaml'}:5: mcp_servers.remote.headers.Authorization: has "
            "leading or trailing whitespace (remove it; the value is not shown)\n"
        )
        assert SECRET not in result.stdout + result.stderr


def test_a_header_from_a_variable_with_outer_whitespace_fails_only_that_server(
    tmp_path: Path,
) -> None:
    home = home_with(
        tmp_path,
        "mcp_servers:\n  remote:\n    url: http://127.0.0.1:9/mcp\n    headers:\n"
        "      Authorization: ${HERMES_TEST_HEADER}\n",
    )
    env = {"HERMES_HOME": str(home), "HERMES_TEST_HEADER": f" Bearer {SECRET}"}
    result = run_hermes("mcp", "status", "--json", env=env)
    assert result.returncode == 1, result.stderr
    (row,) = json.loads(result.stdout)
    assert row["last_error"].endswith(
        "mcp_servers.remote.headers.Authorization: has leading or trailing whitespace (remove "
        "it; the value is not shown) after ${…} expansion"
    )
    text = run_hermes("mcp", "status", env=env)
    assert SECRET not in result.stdout + result.stderr + text.stdout + text.stderr


def test_credentials_in_url_shaped_args_are_masked_in_list_and_repr(tmp_path: Path) -> None:
    home = home_with(
        tmp_path,
        "mcp_servers:\n  db:\n    command: pg-mcp\n"
        f"    args: ['--dsn=postgres://app:{SECRET}@db.example/prod', '--token', '{SECRET}',\n"
        f"           'https://h.example/x?api_key={SECRET}', 'API_KEY={SECRET}', '--readonly']\n",
    )
    listed = run_hermes("mcp", "list", env={"HERMES_HOME": str(home)})
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.strip() == (
        "db  [stdio]  pg-mcp --dsn=postgres://***@db.example/prod --token *** "
        "https://h.example/x?*** API_KEY=*** --readonly"
    )
    as_json = run_hermes("mcp", "list", "--json", env={"HERMES_HOME": str(home)})
    assert SECRET not in as_json.stdout and "--readonly" in as_json.stdout

    loaded = load_config(home / "config.yaml")
    for shown in (repr(loaded), repr(loaded.config), repr(loaded.config.mcp_servers["db"])):
        assert SECRET not in shown
        assert "--dsn=postgres://***@db.example/prod" in shown
