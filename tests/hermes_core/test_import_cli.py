"""`hermes mcp import/export` and `hermes import-agent` run as a user runs them: HOME and
HERMES_HOME in temporary folders, the real CLI as a subprocess, real servers."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from servers.reference import EVERYTHING, FILESYSTEM, node
from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

FIXTURES = Path(__file__).with_name("import_fixtures")
TOKEN = "ghp_FIXTURE_NOT_A_REAL_TOKEN_0001"


@pytest.fixture
def user(tmp_path: Path) -> dict[str, Path]:
    """A home folder with a realistic ~/.claude.json, a project and a Hermes home."""
    home, project, hermes = tmp_path / "home", tmp_path / "work" / "app", tmp_path / "hermes"
    for folder in (home, project, hermes):
        folder.mkdir(parents=True)
    data = json.loads((FIXTURES / "claude.json").read_text())
    data["projects"] = {str(project): data["projects"]["/work/app"]}
    (home / ".claude.json").write_text(json.dumps(data, indent=2))
    (hermes / "config.yaml").write_text(
        "# Hermes settings\nmcp_servers:\n  # the old sentry entry\n  sentry:\n"
        "    url: https://old.example/mcp  # keep\n"
        "  internal_api:\n    command: internal\n"
    )
    return {"home": home, "project": project, "hermes": hermes}


def hermes(user: dict[str, Path], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HERMES_", "CLAUDE_", "CODEX_")) and k not in ("XDG_CONFIG_HOME",)
    }
    env.update(HOME=str(user["home"]), HERMES_HOME=str(user["hermes"]))
    return subprocess.run(
        [sys.executable, "-m", "hermes_core", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=user["project"],
        env=env,
        timeout=120,
    )


def test_claude_code_dry_run_then_import(user: dict[str, Path]) -> None:
    config = user["hermes"] / "config.yaml"
    before = config.read_bytes()
    dry = hermes(user, "mcp", "import", "claude-code", "--dry-run")
    assert dry.returncode == 1, dry.stderr  # 'ide' cannot be imported
    out = dry.stdout
    assert f"reading Claude Code: {user['home'] / '.claude.json'}" in out
    assert "would add 'github'" in out
    assert "GITHUB_PERSONAL_ACCESS_TOKEN: ${GITHUB_PERSONAL_ACCESS_TOKEN}" in out
    assert "would keep existing 'sentry'" in out and "--overwrite replaces it" in out
    assert "would leave out 'ide'" in out and "'ws-ide' transport" in out
    assert "would add 'postgres'" in out  # the local-scope entry of this project
    assert "not translated: headersHelper" in out
    assert "would store in" in out and "GITHUB_PERSONAL_ACCESS_TOKEN (values hidden)" in out
    assert "would import: 5 to add, 1 kept, 1 left out" in out
    assert "warning: 'internal-api' and 'internal_api' share the tool prefix mcp_internal_api_" in (
        dry.stderr
    )
    assert TOKEN not in out + dry.stderr
    assert config.read_bytes() == before
    assert not (user["hermes"] / ".env").exists()

    real = hermes(user, "mcp", "import", "claude-code")
    assert real.returncode == 1, real.stderr
    assert TOKEN not in real.stdout + real.stderr
    text = config.read_text()
    assert text.startswith("# Hermes settings\nmcp_servers:\n  # the old sentry entry\n  sentry:\n")
    assert "url: https://old.example/mcp  # keep" in text
    assert TOKEN not in text
    assert "GITHUB_PERSONAL_ACCESS_TOKEN: ${GITHUB_PERSONAL_ACCESS_TOKEN}" in text
    dotenv = user["hermes"] / ".env"
    assert dotenv.read_text() == f"GITHUB_PERSONAL_ACCESS_TOKEN={TOKEN}\n"
    assert stat.S_IMODE(dotenv.stat().st_mode) == 0o600
    listed = hermes(user, "mcp", "list", "--json")
    names = [row["server"] for row in json.loads(listed.stdout)]
    assert names == [
        "sentry",
        "internal_api",
        "github",
        "internal-api",
        "figma",
        "signed",
        "postgres",
    ]

    again = hermes(user, "mcp", "import", "claude-code", "--only", "github", "sentry")
    assert again.returncode == 0, again.stderr
    assert "kept existing 'github'" in again.stdout
    assert config.read_text() == text
    over = hermes(user, "mcp", "import", "claude-code", "--only", "sentry", "--overwrite")
    assert over.returncode == 0, over.stderr
    assert "url: https://mcp.sentry.dev/mcp" in config.read_text()
    assert "# the old sentry entry" in config.read_text()


def test_usage_errors_are_exit_2(user: dict[str, Path]) -> None:
    unknown = hermes(user, "mcp", "import", "claude-code", "--only", "gihtub")
    assert unknown.returncode == 2
    assert "no server named 'gihtub' (found: figma, github, ide, internal-api" in unknown.stderr
    bad = user["project"] / "bad.json"
    bad.write_text("{,}")
    broken = hermes(user, "mcp", "import", "cursor", "--path", str(bad))
    assert broken.returncode == 2
    assert f"error: {bad}:1: not valid JSON with comments" in broken.stderr
    assert "Traceback" not in broken.stderr
    missing = hermes(user, "mcp", "import", "windsurf")
    assert missing.returncode == 1
    assert "no Windsurf configuration found" in missing.stderr
    wrong = hermes(user, "mcp", "import", "zed")
    assert wrong.returncode == 2 and "invalid choice" in wrong.stderr


def test_imported_everything_connects_and_lists_tools(user: dict[str, Path]) -> None:
    (user["project"] / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "everything": {
                        "type": "stdio",
                        "command": node(),
                        "args": [str(EVERYTHING), "stdio"],
                        "env": {"IMPORT_CHECK": "${HERMES_IMPORT_UNSET:-from-default}"},
                    }
                }
            }
        )
    )
    # Approved at Claude Code's prompt for this folder (an unapproved one imports disabled).
    (user["home"] / ".claude.json").write_text(
        json.dumps(
            {
                "projects": {
                    str(user["project"]): {
                        "enabledMcpjsonServers": ["everything"],
                        "hasTrustDialogAccepted": True,
                    }
                }
            }
        )
    )
    imported = hermes(user, "mcp", "import", "claude-code")
    assert imported.returncode == 0, imported.stdout + imported.stderr
    tools = hermes(user, "mcp", "tools", "everything")
    assert tools.returncode == 0, tools.stderr
    assert "mcp_everything_echo(message: str)" in tools.stdout
    # ${VAR:-default} reached the server's environment.
    called = hermes(user, "mcp", "call", "--json", "mcp_everything_get_env")
    assert called.returncode == 0, called.stderr
    assert "from-default" in called.stdout
    # A tools/list_changed re-list still pending when the CLI closes the host is dropped
    # quietly (it used to print "Task exception was never retrieved … KeyError").
    assert "Traceback" not in called.stderr, called.stderr


def test_vscode_inputs_are_asked_once_and_stored(user: dict[str, Path]) -> None:
    folder = user["project"] / ".vscode"
    folder.mkdir()
    (folder / "mcp.json").write_text(
        "// project servers\n"
        '{"inputs": [{"type": "promptString", "id": "api-key", "description": "API key",'
        ' "password": true}, {"type": "promptString", "id": "region", "default": "eu"}],\n'
        ' "servers": {\n'
        '  "one": {"type": "stdio", "command": "one", "env": {"KEY": "${input:api-key}",'
        ' "REGION": "${input:region}"}},\n'
        '  "two": {"type": "http", "url": "https://two.example/mcp",'
        ' "headers": {"Authorization": "Bearer ${input:api-key}"}},\n'
        " }}\n"
    )
    (user["hermes"] / ".env").write_text("# mine\nOTHER=1\n")
    result = hermes(user, "mcp", "import", "vscode", stdin="s3cret-answer\n\n")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("value for input 'api-key' (API key)") == 1
    assert "value for input 'region' [eu]" in result.stderr
    dotenv = (user["hermes"] / ".env").read_text()
    assert dotenv == "# mine\nOTHER=1\nAPI_KEY=s3cret-answer\nREGION=eu\n"
    text = (user["hermes"] / "config.yaml").read_text()
    assert "Authorization: Bearer ${API_KEY}" in text and "s3cret" not in text
    assert "s3cret" not in result.stdout + result.stderr


def test_an_unanswered_input_leaves_its_server_out(user: dict[str, Path]) -> None:
    folder = user["project"] / ".vscode"
    folder.mkdir()
    (folder / "mcp.json").write_text(
        '{"servers": {"one": {"command": "one", "env": {"K": "${input:k}"}},'
        ' "two": {"command": "two"}}}'
    )
    result = hermes(user, "mcp", "import", "vscode")  # stdin at end of file
    assert result.returncode == 1
    assert "left out 'one'" in result.stdout and "input 'k' was not answered" in result.stdout
    assert "added 'two'" in result.stdout


def test_cwd_is_the_stdio_servers_working_folder(user: dict[str, Path]) -> None:
    work = user["project"] / "data"
    work.mkdir()
    (user["hermes"] / "config.yaml").write_text(
        "mcp_servers:\n  fs:\n"
        f"    command: {node()}\n"
        f"    args: [{str(FILESYSTEM)!r}, '.']\n"
        "    cwd: ${workspaceFolder}/data\n"
    )
    called = hermes(user, "mcp", "call", "--json", "mcp_fs_list_allowed_directories")
    assert called.returncode == 0, called.stderr
    assert str(work.resolve()) in called.stdout
    (user["hermes"] / "config.yaml").write_text(
        f"mcp_servers:\n  fs:\n    command: {node()}\n    cwd: data\n"
    )
    status = hermes(user, "mcp", "status")
    assert status.returncode == 1
    assert "mcp_servers.fs.cwd: must be an absolute folder" in status.stdout


EXPORT_CONFIG = """\
mcp_servers:
  github:
    command: npx
    args: [-y, "@modelcontextprotocol/server-github"]
    env:
      GITHUB_PERSONAL_ACCESS_TOKEN: ghp_LITERAL_IN_CONFIG_0005
      MODE: ${MODE:-fast}
  remote:
    url: https://api.example.com/mcp
    headers:
      Authorization: Bearer ${REMOTE_TOKEN}
    timeout: 30
  legacy:
    url: https://legacy.example.com/sse
    transport: sse
  off:
    command: off-server
    enabled: false
"""


def test_export_writes_references_never_secret_values(user: dict[str, Path]) -> None:
    (user["hermes"] / "config.yaml").write_text(EXPORT_CONFIG)
    claude = hermes(user, "mcp", "export", "--format", "claude-code")
    assert claude.returncode == 0, claude.stderr
    assert "ghp_LITERAL" not in claude.stdout + claude.stderr
    data = json.loads(claude.stdout)["mcpServers"]
    assert data["github"] == {
        "type": "stdio",
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-github"],
        "env": {
            "GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_PERSONAL_ACCESS_TOKEN}",
            "MODE": "${MODE:-fast}",
        },
    }
    assert data["remote"]["headers"] == {"Authorization": "Bearer ${REMOTE_TOKEN}"}
    assert data["legacy"] == {"type": "sse", "url": "https://legacy.example.com/sse"}
    assert "off" not in data
    assert "left out: off.enabled: disabled" in claude.stderr
    assert "left out: remote.timeout: claude-code has no per-server timeout" in claude.stderr
    assert "set them where the client runs: GITHUB_PERSONAL_ACCESS_TOKEN" in claude.stderr

    vscode = json.loads(hermes(user, "mcp", "export", "--format", "vscode").stdout)
    assert vscode["servers"]["github"]["env"]["GITHUB_PERSONAL_ACCESS_TOKEN"] == (
        "${input:github-personal-access-token}"
    )
    assert vscode["inputs"] == [
        {
            "type": "promptString",
            "id": "github-personal-access-token",
            "description": "GITHUB_PERSONAL_ACCESS_TOKEN for github",
            "password": True,
        }
    ]
    assert vscode["servers"]["remote"]["headers"]["Authorization"] == "Bearer ${env:REMOTE_TOKEN}"

    cursor = hermes(user, "mcp", "export", "--format", "cursor")
    assert "left out: github.env.MODE: cursor has no default form" in cursor.stderr
    assert json.loads(cursor.stdout)["mcpServers"]["github"]["env"] == {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "${env:GITHUB_PERSONAL_ACCESS_TOKEN}"
    }

    codex = hermes(user, "mcp", "export", "--format", "codex")
    assert codex.returncode == 0, codex.stderr
    servers = tomllib.loads(codex.stdout)["mcp_servers"]
    assert servers["github"]["env_vars"] == ["GITHUB_PERSONAL_ACCESS_TOKEN"]
    assert servers["remote"] == {
        "url": "https://api.example.com/mcp",
        "bearer_token_env_var": "REMOTE_TOKEN",
        "tool_timeout_sec": 30,
    }
    assert servers["off"] == {"command": "off-server", "enabled": False}
    assert "left out: legacy.transport: Codex speaks streamable HTTP only" in codex.stderr

    # The exported file imports back to the same servers.
    (user["project"] / ".mcp.json").write_text(claude.stdout)
    (user["home"] / ".claude.json").unlink()
    fresh = user["hermes"] / "fresh"
    fresh.mkdir()
    back = hermes({**user, "hermes": fresh}, "mcp", "import", "claude-code")
    assert back.returncode == 0, back.stderr
    assert "Authorization: Bearer ${REMOTE_TOKEN}" in (fresh / "config.yaml").read_text()


def test_import_agent_claude_code_copies_skills_never_overwriting(user: dict[str, Path]) -> None:
    skills = user["home"] / ".claude" / "skills"
    for name in ("pdf", "review", "broken"):
        (skills / name).mkdir(parents=True)
    (skills / "pdf" / "SKILL.md").write_text("---\nname: pdf\ndescription: PDFs\n---\nUse it.\n")
    (skills / "pdf" / "scripts").mkdir()
    (skills / "pdf" / "scripts" / "fill.py").write_text("print('fill')\n")
    (skills / "review" / "SKILL.md").write_text("---\nname: review\n---\nNew text.\n")
    (skills / "broken" / "SKILL.md").write_text("---\nname: [unclosed\n---\n")
    mine = user["hermes"] / "skills" / "review"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text("---\nname: review\n---\nMy own.\n")

    dry = hermes(user, "import-agent", "claude-code", "--dry-run")
    assert "would copy 1" in dry.stdout
    assert not (user["hermes"] / "skills" / "pdf").exists()

    result = hermes(user, "import-agent", "claude-code")
    assert result.returncode == 1  # 'ide' and the broken skill
    assert "added 'github'" in result.stdout
    assert "copied 1, kept 1 already in" in result.stdout
    assert "kept review (exists; never overwritten)" in result.stdout
    assert "problem:" in result.stderr and "broken" in result.stderr
    copied = user["hermes"] / "skills" / "pdf"
    assert (copied / "scripts" / "fill.py").read_text() == "print('fill')\n"
    assert (mine / "SKILL.md").read_text() == "---\nname: review\n---\nMy own.\n"
    listed = run_hermes("skills", "list", "--json", env={"HERMES_HOME": str(user["hermes"])})
    assert "pdf" in listed.stdout
