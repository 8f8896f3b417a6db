"""One secret rule for add, import, install and export (issue 27, item 6).

Secrets in ``args`` (``--api-key X``, ``--token=X``), in URLs (``user:pw@``, ``?api_key=``) and
in headers not named ``Authorization`` (``X-Custom-Auth``) were masked in the dry run and in
``mcp list`` but written to ``config.yaml`` in clear; ``hermes mcp add --header
"Authorization=Bearer …"`` wrote the token into ``config.yaml``; ``hermes mcp export`` printed
a password that sat in ``args``.  Every command here is the real CLI.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from hermes_core.config.secret_lift import VariableNames, lift_secrets
from support.cli import run_hermes

SECRETS = (
    "hunter2-pw", "KEY-abc123", "tok-0451", "zz-custom-auth", "AK-9", "TK-8", "PW-7", "db-pw"
)  # fmt: skip


def _clear(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


def _dotenv(home: Path) -> str:
    path = home / ".env"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    return path.read_text()


@pytest.mark.process
@pytest.mark.cli
def test_add_moves_every_secret_to_dotenv(tmp_path: Path) -> None:
    env = {"HERMES_HOME": str(tmp_path)}
    remote = run_hermes(
        "mcp", "add", "remote", "--no-probe",
        "--url", "https://me:hunter2-pw@mcp.example.invalid/mcp?api_key=KEY-abc123&region=eu",
        "--header", "Authorization=Bearer tok-0451",
        "--header", "X-Custom-Auth=zz-custom-auth",
        "--header", "X-Team=platform",
        env=env,
    )  # fmt: skip
    assert remote.returncode == 0, remote.stderr
    local = run_hermes(
        "mcp", "add", "local", "--no-probe", "--command", "server",
        "--", "--api-key", "AK-9", "--token=TK-8", "PASSWORD=PW-7",
        "--dsn=postgres://u:db-pw@db.internal/app", "--verbose",
        env=env,
    )  # fmt: skip
    assert local.returncode == 0, local.stderr
    config = (tmp_path / "config.yaml").read_text()
    assert _clear(config) == [], config
    servers = YAML(typ="safe").load(config)["mcp_servers"]
    assert servers["remote"]["url"] == (
        "https://me:${REMOTE_PASSWORD}@mcp.example.invalid/mcp?api_key=${REMOTE_API_KEY}&region=eu"
    )
    assert servers["remote"]["headers"] == {
        "Authorization": "Bearer ${REMOTE_TOKEN}",
        "X-Custom-Auth": "${REMOTE_X_CUSTOM_AUTH}",
        "X-Team": "platform",
    }
    assert servers["local"]["args"] == [
        "--api-key",
        "${LOCAL_API_KEY}",
        "--token=${LOCAL_TOKEN}",
        "PASSWORD=${PASSWORD}",
        "--dsn=postgres://u:${LOCAL_PASSWORD}@db.internal/app",
        "--verbose",
    ]
    dotenv = _dotenv(tmp_path)
    assert sorted(_clear(dotenv)) == sorted(SECRETS)
    assert "secrets moved to" in remote.stdout and "REMOTE_TOKEN" in remote.stdout
    assert _clear(remote.stdout + remote.stderr + local.stdout + local.stderr) == []
    # The references resolve: `mcp list` and an export show them, never the values.
    listed = run_hermes("mcp", "list", env=env)
    assert listed.returncode == 0 and _clear(listed.stdout + listed.stderr) == []
    for fmt in ("claude", "cursor", "vscode", "codex"):
        exported = run_hermes("mcp", "export", "--format", fmt, env=env)
        assert exported.returncode == 0, exported.stderr
        assert _clear(exported.stdout + exported.stderr) == [], fmt


@pytest.mark.process
@pytest.mark.cli
def test_import_dry_run_shows_what_is_written_and_writes_no_secret(tmp_path: Path) -> None:
    home, source = tmp_path / "hermes", tmp_path / "mcp.json"
    home.mkdir()
    source.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "db": {
                        "command": "npx",
                        "args": ["-y", "db-server", "--password", "hunter2-pw", "--token=TK-8"],
                    },
                    "web": {
                        "url": "https://u:db-pw@web.example/mcp?apikey=KEY-abc123",
                        "headers": {"X-Custom-Auth": "zz-custom-auth"},
                    },
                }
            }
        )
    )
    env = {"HERMES_HOME": str(home)}
    dry = run_hermes("mcp", "import", "cursor", "--path", str(source), "--dry-run", env=env)
    assert dry.returncode == 0, dry.stderr
    assert _clear(dry.stdout + dry.stderr) == []
    assert not (home / "config.yaml").exists()
    real = run_hermes("mcp", "import", "cursor", "--path", str(source), env=env)
    assert real.returncode == 0, real.stderr
    config = (home / "config.yaml").read_text()
    assert _clear(config) == [], config
    servers = YAML(typ="safe").load(config)["mcp_servers"]
    # Each reference written is the one the dry run showed.
    for value in (
        *servers["db"]["args"],
        servers["web"]["headers"]["X-Custom-Auth"],
        "${DB_PASSWORD}",
        "${DB_TOKEN}",
        "${WEB_X_CUSTOM_AUTH}",
    ):
        assert value in dry.stdout, value
    assert servers["db"]["args"][-2:] == ["${DB_PASSWORD}", "--token=${DB_TOKEN}"]
    assert "${WEB_PASSWORD}" in servers["web"]["url"] and "${WEB_APIKEY}" in servers["web"]["url"]
    assert sorted(_clear(_dotenv(home))) == sorted(
        ["hunter2-pw", "TK-8", "db-pw", "KEY-abc123", "zz-custom-auth"]
    )


@pytest.mark.process
@pytest.mark.cli
def test_export_never_prints_a_secret_written_by_hand(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n"
        "  db:\n    command: srv\n"
        "    args: [--password, hunter2-pw, '--token=TK-8', '--dsn=postgres://u:db-pw@h/db']\n"
        "  web:\n    url: 'https://u:PW-7@h.example/mcp?api_key=KEY-abc123'\n"
        "    headers: {X-Custom-Auth: zz-custom-auth, Authorization: Bearer tok-0451}\n"
    )
    for fmt in ("claude", "cursor", "vscode", "codex"):
        result = run_hermes("mcp", "export", "--format", fmt, env={"HERMES_HOME": str(tmp_path)})
        assert result.returncode == 0, result.stderr
        assert _clear(result.stdout + result.stderr) == [], (fmt, result.stdout)
    claude = run_hermes("mcp", "export", "--format", "claude", env={"HERMES_HOME": str(tmp_path)})
    args = json.loads(claude.stdout)["mcpServers"]["db"]["args"]
    # Two different values never share a variable.
    assert args == ["--password", "${DB_PASSWORD}", "--token=${DB_TOKEN}",
                    "--dsn=postgres://u:${DB_PASSWORD_2}@h/db"]  # fmt: skip


def test_the_rule_on_one_entry() -> None:
    entry = {
        "command": "srv",
        "args": ["ghp_abcdefghijklmnopqrstuvwxyz0123", "--keyfile", "/etc/key.pem", "-v"],
        "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}", "LOG": "debug", "X": "sk-abcdefghijklmnop1234"},
    }
    names = VariableNames({"SRV_SECRET": "something else"}, {})
    found = lift_secrets("srv", entry, names)
    assert entry["args"] == ["${SRV_SECRET_2}", "--keyfile", "/etc/key.pem", "-v"]
    assert entry["env"] == {"GITHUB_TOKEN": "${GITHUB_TOKEN}", "LOG": "debug", "X": "${X}"}
    assert found == {
        "SRV_SECRET_2": "ghp_abcdefghijklmnopqrstuvwxyz0123",
        "X": "sk-abcdefghijklmnop1234",
    }
