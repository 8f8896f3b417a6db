"""The picker, the tool checklist and the key prompts, driven through a real pseudo-terminal.

The newcomer's path from the README: ``hermes mcp install memory`` (the shipped manifest,
the real ``@modelcontextprotocol/server-memory`` from the test cache), pick three tools,
``hermes mcp tools`` shows exactly those three; ``hermes mcp configure memory`` changes that.
"""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from servers.reference import MEMORY, NPM_DIR
from support.home import clean_env

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

DOWN, SPACE, ENTER, CTRL_C, ESC = "\x1b[B", " ", "\r", "\x03", "\x1b"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    base = clean_env(os.environ)
    return {
        **base,
        "HERMES_HOME": str(home),
        "HERMES_CATALOG_PATH": str(tmp_path / "catalog"),
        "TERM": "xterm",
        "PROMPT_TOOLKIT_NO_CPR": "1",
        # npx finds server-memory in the test cache (cwd below) without the network.
        "npm_config_prefer_offline": "true",
    }


def spawn(env: dict[str, str], *args: str) -> pexpect.spawn:
    return pexpect.spawn(
        sys.executable,
        ["-m", "hermes_core", *args],
        env=env,
        cwd=str(NPM_DIR),
        encoding="utf-8",
        timeout=90,
        dimensions=(40, 140),
    )


def finish(child: pexpect.spawn) -> str:
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    return str(child.before)


def tools(env: dict[str, str]) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "hermes_core", "mcp", "tools", "--json"],
        env=env,
        cwd=NPM_DIR,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return sorted(t["name"] for t in json.loads(done.stdout))


def servers(env: dict[str, str]) -> dict[str, object]:
    from hermes_core.config.loader import load_config
    from hermes_core.yaml_lines import plain

    result: dict[str, object] = plain(
        load_config(Path(env["HERMES_HOME"]) / "config.yaml").tree["mcp_servers"]
    )
    return result


def test_install_memory_pick_three_tools_then_configure(env: dict[str, str]) -> None:
    assert MEMORY.exists(), "run `nox -s tests` to install the npm reference servers"
    child = spawn(env, "mcp", "install", "memory")
    child.expect("runs:      npx -y @modelcontextprotocol/server-memory@2026.8.31")
    child.expect(r"Install 'memory'\?")
    child.send("y" + ENTER)  # a yes/no needs its Enter
    child.expect("Select tools for 'memory'")
    child.expect(r"\(resources\)")  # the last row is drawn: every tool starts checked
    child.send("a")  # toggle all: nothing checked
    child.send(SPACE + DOWN + SPACE + DOWN + SPACE + ENTER)
    out = finish(child)
    assert "tools: 3 enabled (add_observations, create_entities, create_relations)" in out
    entry = servers(env)["memory"]
    assert isinstance(entry, dict)
    assert entry["tools"] == {
        "include": ["add_observations", "create_entities", "create_relations"],
        "resources": False,
    }
    assert tools(env) == [
        "mcp_memory_add_observations",
        "mcp_memory_create_entities",
        "mcp_memory_create_relations",
    ]

    child = spawn(env, "mcp", "configure", "memory")
    child.expect("Select tools for 'memory'")
    child.expect(r"\(resources\)")
    # Pre-checked with the current choice: uncheck the first, check read_graph (row 8).
    child.send(SPACE + DOWN * 7 + SPACE + ENTER)
    out = finish(child)
    assert "tools: 3 enabled (create_entities, create_relations, read_graph)" in out
    assert tools(env) == [
        "mcp_memory_create_entities",
        "mcp_memory_create_relations",
        "mcp_memory_read_graph",
    ]


def test_the_picker_lists_catalog_and_config_and_disables_a_server(
    env: dict[str, str],
) -> None:
    config = Path(env["HERMES_HOME"]) / "config.yaml"
    config.write_text(
        "# my servers\nmcp_servers:\n  time: {command: uvx, args: [mcp-server-time]}\n"
        "  mine: {command: my-server}\n"
    )
    child = spawn(env, "mcp")
    child.expect("MCP servers")
    child.expect(r"\(quit\)")
    screen = str(child.before)
    assert "installed (enabled)" in screen and "custom — enabled" in screen
    child.send("time")
    child.expect("time")
    child.send(ENTER)
    child.expect(r"'time' \(installed \(enabled\)\)")
    child.expect(r"\(back\)")
    child.send("disable")
    child.send(ENTER)
    child.expect("'time' disabled")
    child.expect("MCP servers")
    child.expect(r"\(quit\)")
    # ENTER on an available entry offers to install it (cloudflare: default_excluded, no probe).
    child.send("cloudflare")
    child.expect("cloudflare")
    child.send(ENTER)
    child.expect(r"'cloudflare' \(available\)")
    child.expect(r"\(back\)")
    child.send(ENTER)  # the first action: install
    child.expect(r"Install 'cloudflare'\?")
    child.send("y" + ENTER)  # a yes/no needs its Enter
    child.expect(r"tools: all except \*delete\*")
    child.expect("MCP servers")
    child.expect(r"\(quit\)")
    child.send(ESC)  # leaves, as the hint says
    finish(child)
    text = config.read_text()
    assert text.startswith("# my servers\n")
    assert servers(env)["time"] == {"command": "uvx", "args": ["mcp-server-time"], "enabled": False}
    cloudflare = servers(env)["cloudflare"]
    assert isinstance(cloudflare, dict) and cloudflare["auth"] == "oauth"
    assert cloudflare["tools"]["exclude"][0] == "*delete*"


def test_secrets_are_asked_with_hidden_input(env: dict[str, str]) -> None:
    catalog = Path(env["HERMES_CATALOG_PATH"])
    catalog.mkdir()
    (catalog / "vault.yaml").write_text(
        "manifest_version: 1\nname: vault\ndescription: Needs a token\n"
        "transport:\n  command: /nonexistent/vault-mcp\n  env: {VAULT_TOKEN: '${VAULT_TOKEN}'}\n"
        "auth:\n  keys:\n    - {name: VAULT_TOKEN, prompt: Vault token}\n"
    )
    secret = "hunter2-do-not-echo"
    child = spawn(env, "mcp", "install", "vault")
    transcript = io.StringIO()
    child.logfile_read = transcript
    child.expect(r"Install 'vault'\?")
    child.send("y" + ENTER)  # a yes/no needs its Enter
    child.expect(r"Vault token \(VAULT_TOKEN\):")
    child.send(secret + ENTER)
    child.expect("saved 'vault' disabled: needs vault-mcp")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1, child.before
    assert "***" in transcript.getvalue() or "*" * len(secret) in transcript.getvalue()
    assert secret not in transcript.getvalue()
    env_file = Path(env["HERMES_HOME"]) / ".env"
    assert env_file.read_text() == f"VAULT_TOKEN={secret}\n"
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
