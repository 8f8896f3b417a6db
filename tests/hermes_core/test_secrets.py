"""No token, secret or password reaches the output of `hermes mcp list/status/test`, or a repr."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from hermes_core.config.loader import parse_config_text
from hermes_core.host.setup.from_config import host_servers
from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

HOSTILE = Path(__file__).parents[1] / "servers" / "hostile_server.py"
SECRETS = {
    "HEADER_TOKEN": "hdr-secret-6f1b9c",
    "ENV_TOKEN": "env-secret-2d7e41",
    "QUERY_TOKEN": "query-secret-9a3c55",
    "ARG_TOKEN": "arg-secret-4b8d02",
}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / ".env").write_text("".join(f"{k}={v}\n" for k, v in SECRETS.items()))
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n"
        "  local:\n"
        f"    command: {sys.executable}\n"
        f"    args: [{str(HOSTILE)!r}, --api-key, '${{ARG_TOKEN}}', '--token=${{ARG_TOKEN}}']\n"
        "    env: {SERVICE_TOKEN: '${ENV_TOKEN}'}\n"
        "  remote:\n"
        "    url: 'http://user:pw-secret-77@127.0.0.1:9/mcp?key=${QUERY_TOKEN}'\n"
        "    headers: {Authorization: 'Bearer ${HEADER_TOKEN}'}\n"
        "    connect_timeout: 2\n"
    )
    return tmp_path


def run(home: Path, *args: str) -> str:
    result = run_hermes(*args, env={"HERMES_HOME": str(home)})
    return result.stdout + result.stderr


@pytest.mark.parametrize(
    "command",
    [
        ("mcp", "list"),
        ("mcp", "list", "--json"),
        ("mcp", "status"),
        ("mcp", "status", "--json"),
        ("mcp", "test", "remote"),
        ("mcp", "test", "local", "--json"),
    ],
)
def test_cli_output_has_no_secret(home: Path, command: tuple[str, ...]) -> None:
    output = run(home, *command)
    assert output.strip()
    for secret in [*SECRETS.values(), "pw-secret-77"]:
        assert secret not in output, f"{secret} leaked by `hermes {' '.join(command)}`"
    # The literal `${ARG_TOKEN}` placeholder is fine in `list` (it is not resolved there).


def test_reprs_have_no_secret(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_HOME", str(home))
    loaded = parse_config_text((home / "config.yaml").read_text(), str(home / "config.yaml"))
    servers = host_servers(loaded, env={**os.environ, **SECRETS})
    text = repr(servers) + repr(loaded.config)
    for secret in [*SECRETS.values(), "pw-secret-77"]:
        assert secret not in text
