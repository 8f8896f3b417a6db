"""The administrator's policy (HERMES_POLICY, /etc/hermes/policy.yaml): every kind of rule, the
file's errors, failing closed, and configs that try to widen it — through the loader, MCPHost
and the CLI (config load, add, import, install, every call)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from hermes_core.config.errors import ConfigError
from hermes_core.config.policy import load_policy
from hermes_core.config.policy_match import ServerFacts, server_refusal, tool_refusal
from hermes_core.config.policy_rules import Policy
from hermes_core.host.host import MCPHost
from support.cli import run_hermes
from support.memory import MemoryTransport, ToyServer, memory_server

SERVER = Path(__file__).resolve().parents[1] / "servers" / "shifting_server.py"


def _policy(tmp_path: Path, text: str) -> Policy:
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    policy = load_policy({"HERMES_POLICY": str(path)})
    assert policy is not None
    return policy


# -- the file ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "deny:\n  server: []\n",
            "policy.yaml:2: deny.server: unknown key (did you mean 'servers'?)",
        ),
        ("alow: {}\n", "policy.yaml:1: alow: unknown key (did you mean 'allow'?)"),
        ("catalog_only: maybe\n", "policy.yaml:1: catalog_only: must be true or false"),
        (
            "deny:\n  servers:\n    - {}\n",
            "deny.servers[0]: an empty rule would match every server",
        ),
        (
            "deny:\n  servers:\n    - comand: sh\n",
            "deny.servers[0].comand: unknown key (did you mean 'command'?)",
        ),
        ("allow:\n  tools: github/*\n", "allow.tools: must be a list of server/tool globs"),
        ("deny: [\n", "YAML syntax error"),
    ],
)
def test_errors_in_the_policy_file_are_errors_at_their_line(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        _policy(tmp_path, text)
    assert message in str(caught.value)


@pytest.mark.parametrize("target", ["missing.yaml", "fifo", "/dev/null"])
def test_a_policy_that_cannot_be_read_fails_closed(tmp_path: Path, target: str) -> None:
    path = tmp_path / target
    if target == "fifo":
        os.mkfifo(path)  # never blocks: opened non-blocking, refused as not a regular file
    policy = load_policy({"HERMES_POLICY": str(path) if not target.startswith("/") else target})
    assert policy is not None and policy.broken is not None
    refused = server_refusal(policy, ServerFacts("any", command="python"))
    assert refused is not None and "the policy fails closed: no server may run" in refused
    assert tool_refusal(policy, "any", "tool") is not None


def test_no_policy_file_is_no_policy() -> None:
    assert load_policy({}) is None or Path("/etc/hermes/policy.yaml").exists()


# -- each kind of rule -------------------------------------------------------------------------
def test_server_rules_by_name_url_command_and_path(tmp_path: Path) -> None:
    sh = tmp_path / "innocent"
    sh.symlink_to("/bin/sh")  # a renamed shell is still a shell (its resolved path)
    policy = _policy(
        tmp_path,
        "deny:\n  servers:\n"
        "    - name: '*-dev'\n"
        "    - url: {scheme: http}\n"
        "    - command: sh\n"
        "    - command: dash\n"
        "allow:\n  servers:\n"
        f"    - path: {sys.executable}\n"
        f"    - path: '{os.path.dirname(os.path.realpath(sys.executable))}/*'\n"
        "    - url: https://*.corp.example/mcp/*\n"
        "    - {name: github, url: 'https://api.github.example/*'}\n",
    )

    def refused(**facts: str) -> str | None:
        return server_refusal(policy, ServerFacts(**facts))  # type: ignore[arg-type]

    assert refused(name="ok", command=sys.executable) is None
    assert "deny.servers[0]" in str(refused(name="tools-dev", command=sys.executable))
    assert "deny.servers[1]" in str(refused(name="x", url="HTTP://tools.corp.example/mcp/a"))
    assert refused(name="x", url="https://Tools.Corp.Example./mcp/a") is None
    # The host is the one after the credentials, whatever comes before the @.
    assert "allow.servers" in str(
        refused(name="x", url="https://a.corp.example@evil.example/mcp/a")
    )
    assert "allow.servers" in str(refused(name="x", url="https://tools.corp.example/other"))
    # A command is matched by its name and by where it resolves (symbolic links followed).
    assert "deny.servers[2]" in str(refused(name="x", command="sh"))
    symlinked = str(refused(name="x", command=str(sh)))
    assert "deny.servers[2]" in symlinked or "deny.servers[3]" in symlinked
    assert "not allowed by the policy" in str(refused(name="x", command="/usr/bin/env"))
    # Every key of a rule must match: the allowed name at another URL is not allowed.
    assert refused(name="github", url="https://api.github.example/mcp") is None
    assert "allow.servers" in str(refused(name="github", url="https://evil.example/mcp"))


def test_tool_rules_by_glob(tmp_path: Path) -> None:
    policy = _policy(
        tmp_path,
        "deny:\n  tools: ['*/delete_*', drop]\nallow:\n  tools: ['github/*', 'files/read*']\n",
    )
    assert tool_refusal(policy, "github", "create_issue") is None
    assert "deny.tools[0]" in str(tool_refusal(policy, "github", "delete_repo"))
    assert "deny.tools[1]" in str(tool_refusal(policy, "github", "drop"))
    assert "allow.tools" in str(tool_refusal(policy, "files", "write_file"))
    assert tool_refusal(policy, "files", "read_file") is None


def test_a_config_that_offers_every_tool_still_loses_the_denied_ones(tmp_path: Path) -> None:
    policy = _policy(tmp_path, "deny:\n  tools: ['acme/write']\n")
    toy = ToyServer("acme").tool("write").tool("look", read_only=True)
    server = memory_server("acme", include=("*",), policy=policy)

    async def scenario() -> dict[str, object]:
        async with MCPHost([server], transports={"memory": MemoryTransport({"acme": toy})}) as host:
            assert [t.tool for t in host.tools()] == ["look"]
            assert "deny.tools[0]" in host.unoffered_tools["acme"]["write"]
            # Even an entry registered anyway (a step sees every call) is refused.
            return await host.call_tool("mcp_acme_write", {})

    result = asyncio.run(scenario())
    assert result["state"] == "policy" and "deny.tools[0]" in str(result["error"])
    assert toy.called("write") == 0


# -- through the CLI ---------------------------------------------------------------------------
def _home(tmp_path: Path, policy: str, servers: str) -> dict[str, str]:
    (tmp_path / "policy.yaml").write_text(policy)
    (tmp_path / "config.yaml").write_text("mcp_servers:\n" + servers)
    return {"HERMES_HOME": str(tmp_path), "HERMES_POLICY": str(tmp_path / "policy.yaml")}


def _shift_entry(name: str) -> str:
    return (
        f"  {name}:\n    command: {json.dumps(sys.executable)}\n"
        f"    args: [{json.dumps(str(SERVER))}]\n"
    )


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_a_config_cannot_widen_the_policy(tmp_path: Path) -> None:
    # The shell is denied; the config calls it by the allowed-looking name "shift", and offers
    # the denied tool through tools.include.
    env = _home(
        tmp_path,
        "deny:\n  servers:\n    - command: sh\n  tools: ['shift/write']\n",
        "  shift:\n    command: sh\n    args: [-c, 'exit 1']\n"
        + _shift_entry("real").replace("    args", "    tools: {include: ['*']}\n    args"),
    )
    status = run_hermes("mcp", "status", "--json", env=env)
    rows = {row["server"]: row for row in json.loads(status.stdout)}
    assert (
        "refused by the administrator's policy: denied by the policy rule deny.servers[0]"
        in (rows["shift"]["last_error"])
    )
    assert "(command: sh)" in rows["shift"]["last_error"]
    env_real = {**env}
    (tmp_path / "policy.yaml").write_text("deny:\n  tools: ['real/write']\n")
    tools = run_hermes("mcp", "tools", env=env_real)
    assert "mcp_real_look" in tools.stdout and "mcp_real_write" not in tools.stdout
    called = run_hermes("mcp", "call", "--json", "mcp_real_write", "--args", "{}", env=env_real)
    assert called.returncode == 1 and json.loads(called.stdout)["state"] == "policy"
    assert "deny.tools[0]" in json.loads(called.stdout)["error"]


@pytest.mark.process
@pytest.mark.cli
def test_add_import_and_install_refuse_what_the_policy_refuses(tmp_path: Path) -> None:
    env = _home(
        tmp_path,
        "deny:\n  servers:\n    - command: sh\n    - name: time\n",
        "  kept:\n    url: https://example.test/mcp\n",
    )
    before = (tmp_path / "config.yaml").read_text()
    added = run_hermes("mcp", "add", "shell", "--command", "sh", "--no-probe", env=env)
    assert added.returncode == 1
    assert "refused by the administrator's policy: denied by the policy rule deny.servers[0]" in (
        added.stderr
    )
    assert "nothing was written" in added.stderr
    claude = tmp_path / "claude.json"
    claude.write_text(
        json.dumps(
            {"mcpServers": {"shell": {"command": "sh"}, "web": {"url": "https://w.test/mcp"}}}
        )
    )
    imported = run_hermes("mcp", "import", "claude-code", "--path", str(claude), env=env)
    assert "left out 'shell'" in imported.stdout and "deny.servers[0]" in imported.stdout
    installed = run_hermes("mcp", "install", "time", "--yes", env=env)
    assert installed.returncode == 1 and "deny.servers[1]" in installed.stderr
    assert "nothing was installed" in installed.stderr
    written = (tmp_path / "config.yaml").read_text()
    assert "shell" not in written and "time" not in written and "web" in written
    assert before.strip() in written


@pytest.mark.process
@pytest.mark.cli
def test_catalog_only_runs_only_what_a_catalog_entry_installs(tmp_path: Path) -> None:
    env = _home(
        tmp_path,
        "catalog_only: true\n",
        "  time:\n    command: uvx\n    args: ['mcp-server-time==2026.10.19']\n"
        "  renamed:\n    command: uvx\n    args: ['mcp-server-time==2026.10.19']\n"
        "  time-edited:\n    command: uvx\n    args: ['evil-package']\n",
    )
    status = run_hermes("mcp", "status", "--json", env={**env, "PATH": "/nonexistent"})
    rows = {row["server"]: row for row in json.loads(status.stdout)}
    assert "administrator" not in str(rows["time"]["last_error"])  # (uvx is not here: fails)
    for name in ("renamed", "time-edited"):
        assert "only catalog entries may run (catalog_only in" in rows[name]["last_error"]
