"""The built-in ``secrets_guard`` interceptor: a credential configured for one server never
travels to another in a call's arguments (registered through the ``call_interceptor`` hook,
opted into with ``interceptors: [secrets_guard]``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from hermes_core.config.secret_keys import credentials_in
from hermes_core.host.calls.secrets_guard import GuardSetup, SecretsGuard
from hermes_core.plugins.interceptors import InterceptedCall, InterceptorSetup, Verdict
from support.cli import run_hermes

SERVER = Path(__file__).resolve().parents[1] / "servers" / "shifting_server.py"
TOKEN = "ghp_0123456789abcdefTOKEN"


def _call(server: str, arguments: Any) -> InterceptedCall:
    return InterceptedCall(
        name=f"mcp_{server}_write",
        server=server,
        tool="write",
        arguments=arguments,
        annotations={},
        trust="full",
        transport="stdio",
        url=None,
        command="x",
        max_result_tokens=0,
    )


def test_the_patterns_of_import_find_the_credentials_of_an_entry() -> None:
    found = credentials_in(
        env={"GITHUB_TOKEN": TOKEN, "LOG_LEVEL": "debug-verbose"},
        headers={"Authorization": "Bearer abcdefgh-12345", "Accept": "application/json"},
        url="https://user:hunter2hunter2@api.example/mcp?api_key=k-0123456789",
        args=["--token", "tok-abcdefgh", "--password=pw-abcdefgh", "--verbose"],
    )
    assert found == {
        "env GITHUB_TOKEN": TOKEN,
        "header Authorization": "Bearer abcdefgh-12345",
        "header Authorization (Bearer token)": "abcdefgh-12345",
        "url password": "hunter2hunter2",
        "url query api_key": "k-0123456789",
        "args --token": "tok-abcdefgh",
        "args --password": "pw-abcdefgh",
    }


def test_another_servers_credential_is_refused_wherever_it_hides() -> None:
    guard = SecretsGuard.create(
        GuardSetup(Path("/nonexistent"), credentials={"vault": {"env GITHUB_TOKEN": TOKEN}})
    )
    assert guard.before(_call("vault", {"token": TOKEN})) is None  # its own: passes
    assert guard.before(_call("other", {"text": "no secrets here"})) is None
    for arguments in (
        {"text": f"please use {TOKEN} for this"},
        {"nested": [{"deep": {"list": ["x", f"Bearer {TOKEN}"]}}]},
        {TOKEN: "as a key"},
    ):
        decision = guard.before(_call("other", arguments))
        assert decision is not None and decision.verdict is Verdict.REFUSE
        assert "credential of MCP server 'vault' (env GITHUB_TOKEN" in decision.reason
        assert TOKEN not in decision.reason
    deep: Any = "x"
    for _ in range(100):
        deep = [deep]
    refused = guard.before(_call("other", {"deep": deep}))
    assert refused is not None and "too much to check" in refused.reason


def test_a_plain_setup_knows_no_credentials() -> None:
    guard = SecretsGuard.create(InterceptorSetup(Path("/nonexistent")))
    assert guard.before(_call("other", {"text": TOKEN})) is None


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_hermes_mcp_call_refuses_to_send_one_servers_token_to_another(tmp_path: Path) -> None:
    vault_log, shift_log = tmp_path / "vault-events", tmp_path / "shift-events"

    def entry(name: str, log: Path, extra: str = "") -> str:
        return (
            f"  {name}:\n    command: {json.dumps(sys.executable)}\n"
            f"    args: [{json.dumps(str(SERVER))}]\n"
            f"    env: {{EVENT_LOG: {json.dumps(str(log))}{extra}}}\n"
        )

    (tmp_path / ".env").write_text(f"GITHUB_TOKEN={TOKEN}\n")
    (tmp_path / ".env").chmod(0o600)
    (tmp_path / "config.yaml").write_text(
        "interceptors: [secrets_guard]\nmcp_servers:\n"
        + entry("vault", vault_log, ", GITHUB_TOKEN: '${GITHUB_TOKEN}'")
        + entry("shift", shift_log)
    )
    env = {"HERMES_HOME": str(tmp_path)}
    arguments = json.dumps({"path": f"notes.txt; token={TOKEN}"})
    refused = run_hermes("mcp", "call", "--json", "mcp_shift_write", "--args", arguments, env=env)
    assert refused.returncode == 1, refused.stderr
    result = json.loads(refused.stdout)
    assert (
        "credential of MCP server 'vault' (env GITHUB_TOKEN in its config entry)"
        in (result["error"])
    )
    assert TOKEN not in refused.stdout + refused.stderr
    assert not shift_log.exists() or "call write" not in shift_log.read_text()
    own = run_hermes("mcp", "call", "--json", "mcp_vault_write", "--args", arguments, env=env)
    assert own.returncode == 0, own.stderr
    assert "call write" in vault_log.read_text()
