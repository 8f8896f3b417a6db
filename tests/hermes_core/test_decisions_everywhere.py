"""What decides a call, changed by another process, holds at once in every long-lived host.

An administrator edits the policy file; the user decides ``never`` for a tool or accepts a
changed definition (``hermes mcp approvals``, ``hermes mcp trust``) in another terminal.  The
warm host (``hermes mcp up``) and a running ``hermes mcp proxy`` apply it to the very next
call, with the same refusal a cold ``hermes mcp call`` gives, and a call that was waiting for
the user's approval meanwhile is decided again before it is sent.  Real subprocesses
throughout, against tests/servers/shifting_server.py, whose event log shows what ran.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_core.host.setup.factory import HostFactory
from support.cli import run_hermes
from support.home import clean_env
from support.proxy import http_session, proxy_session, running_http, text_of

SERVER = Path(__file__).resolve().parents[1] / "servers" / "shifting_server.py"
LOOK = {"description": "Read something.", "annotations": {"readOnlyHint": True}}
WRITE = {"description": "Change something."}
WARM = "using the warm host"
ALLOW_ALL = "deny:\n  tools: [nothing/here]\n"

pytestmark = [pytest.mark.process, pytest.mark.slow]


def _replace(path: Path, text: str) -> None:
    """Write *path* as an editor saves it (a new file renamed over the old one)."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text)
    temporary.replace(path)


def _calls(events: Path) -> list[str]:
    if not events.exists():
        return []
    return [line for line in events.read_text().splitlines() if line.startswith("call ")]


def _home(tmp_path: Path, extra: str = "") -> tuple[dict[str, str], Path, Path, Path]:
    """A home with the shifting server and a policy file (``HERMES_POLICY``) that denies
    nothing of it: (env, the server's definitions file, its event log, the policy file)."""
    shift, events, policy = tmp_path / "shift.json", tmp_path / "events", tmp_path / "policy.yaml"
    shift.write_text(json.dumps({"look": LOOK, "write": WRITE}))
    policy.write_text(ALLOW_ALL)
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n  shift:\n"
        f"    command: {json.dumps(sys.executable)}\n    args: [{json.dumps(str(SERVER))}]\n"
        f"    env: {{SHIFT_FILE: {json.dumps(str(shift))}, EVENT_LOG: {json.dumps(str(events))}}}\n"
        + extra
    )
    env = {"HERMES_HOME": str(tmp_path), "HERMES_POLICY": str(policy)}
    return env, shift, events, policy


@pytest.fixture
def warm_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """The env of a home whose warm host the test starts; stopped on the way out."""
    env: dict[str, str] = {}
    yield env
    if env:
        run_hermes("mcp", "down", env=env)


def _up(env: dict[str, str]) -> None:
    started = run_hermes("mcp", "up", env=env)
    assert started.returncode == 0, started.stderr


def _call(env: dict[str, str], tool: str, *, cold: bool = False) -> Any:
    chosen = {**env, "HERMES_WARM": "0"} if cold else env
    done = run_hermes("mcp", "call", "--json", tool, "--args", "{}", env=chosen)
    assert (WARM in done.stderr) is not cold, done.stderr
    return done


# -- the warm host -------------------------------------------------------------------------------
@pytest.mark.cli
def test_a_deny_rule_refuses_the_next_warm_call_as_a_cold_call_is_refused(
    tmp_path: Path, warm_env: dict[str, str]
) -> None:
    env, _shift, events, policy = _home(tmp_path)
    warm_env.update(env)
    _up(env)
    assert _call(env, "mcp_shift_look").returncode == 0
    assert _calls(events) == ["call look {}"]

    _replace(policy, "deny:\n  tools: [shift/look]\n")
    warm = _call(env, "mcp_shift_look")
    cold = _call(env, "mcp_shift_look", cold=True)
    assert warm.returncode == cold.returncode == 1, warm.stderr
    refused = json.loads(warm.stdout)
    assert refused == json.loads(cold.stdout)
    assert refused["state"] == "policy"
    assert "refused by the administrator's policy" in refused["error"]
    assert "deny.tools" in refused["error"] and str(policy) in refused["error"]
    listed = run_hermes("mcp", "tools", env=env)
    assert WARM in listed.stderr and "mcp_shift_look" not in listed.stdout
    assert "mcp_shift_write" in listed.stdout

    _replace(policy, ALLOW_ALL)  # lifted: the tool comes back at once
    assert _call(env, "mcp_shift_look").returncode == 0
    assert _calls(events) == ["call look {}", "call look {}"]

    _replace(policy, "deny:\n  servers:\n    - name: shift\n")  # the whole server now
    warm = _call(env, "mcp_shift_look")
    cold = _call(env, "mcp_shift_look", cold=True)
    assert warm.returncode == cold.returncode == 1, warm.stderr
    assert json.loads(warm.stdout) == json.loads(cold.stdout)
    assert "is refused by the administrator's policy: denied by the policy rule" in warm.stdout
    assert len(_calls(events)) == 2


@pytest.mark.cli
def test_a_decision_and_an_accepted_pin_from_another_process_hold_in_the_warm_host(
    tmp_path: Path, warm_env: dict[str, str]
) -> None:
    env, shift, events, _policy = _home(tmp_path)
    warm_env.update(env)
    pinned = run_hermes("mcp", "tools", env={**env, "HERMES_WARM": "0"})
    assert pinned.returncode == 0, pinned.stderr
    shift.write_text(json.dumps({"look": {**LOOK, "description": "Read more."}, "write": WRITE}))
    _up(env)

    held = _call(env, "mcp_shift_look")
    assert held.returncode == 1 and json.loads(held.stdout)["state"] == "tool_changed"
    accepted = run_hermes("mcp", "trust", "shift", env=env)
    assert accepted.returncode == 0 and "accepted shift/look" in accepted.stdout
    ran = _call(env, "mcp_shift_look")
    assert ran.returncode == 0, ran.stdout
    assert _calls(events) == ["call look {}"]

    decided = run_hermes("mcp", "approvals", "set", "shift", "look", "never", env=env)
    assert decided.returncode == 0, decided.stderr
    blocked = _call(env, "mcp_shift_look")
    cold = _call(env, "mcp_shift_look", cold=True)
    assert blocked.returncode == cold.returncode == 1
    assert json.loads(blocked.stdout) == json.loads(cold.stdout)
    assert json.loads(blocked.stdout)["state"] == "blocked"
    assert _calls(events) == ["call look {}"]


# -- hermes mcp proxy ----------------------------------------------------------------------------
def test_a_decision_and_an_accepted_pin_from_another_process_hold_in_a_running_proxy(
    tmp_path: Path,
) -> None:
    env, shift, events, _policy = _home(tmp_path)
    assert run_hermes("mcp", "tools", env={**env, "HERMES_WARM": "0"}).returncode == 0
    shift.write_text(json.dumps({"look": {**LOOK, "description": "Read more."}, "write": WRITE}))

    async def hermes(*args: str) -> None:
        done = await asyncio.to_thread(run_hermes, *args, env=env)
        assert done.returncode == 0, done.stderr

    async def scenario() -> None:
        async with proxy_session(tmp_path, env=env) as session:
            held = await session.call_tool("mcp_shift_look", {})
            assert held.is_error and "definition changed since it was pinned" in text_of(held)
            await hermes("mcp", "trust", "shift")
            ran = await session.call_tool("mcp_shift_look", {})
            assert not ran.is_error, text_of(ran)
            names = {tool.name for tool in (await session.list_tools()).tools}
            assert "mcp_shift_look" in names

            await hermes("mcp", "approvals", "set", "shift", "look", "never")
            blocked = await session.call_tool("mcp_shift_look", {})
            assert blocked.is_error and "you decided never to run it" in text_of(blocked)
            names = {tool.name for tool in (await session.list_tools()).tools}
            assert "mcp_shift_look" not in names and "mcp_shift_write" in names

    asyncio.run(scenario())
    assert _calls(events) == ["call look {}"]


@pytest.mark.network
def test_a_deny_rule_holds_at_the_next_call_of_a_running_http_proxy(tmp_path: Path) -> None:
    env, _shift, events, policy = _home(tmp_path)

    async def scenario(url: str, token: str) -> None:
        async with http_session(url, token) as session:
            ran = await session.call_tool("mcp_shift_look", {})
            assert not ran.is_error, text_of(ran)
            _replace(policy, "deny:\n  tools: [shift/look]\n")
            refused = await session.call_tool("mcp_shift_look", {})
            assert refused.is_error and "refused by the administrator's policy" in text_of(refused)

    with running_http(tmp_path, env=env) as (url, token):
        asyncio.run(scenario(url, token))
    assert _calls(events) == ["call look {}"]


@pytest.mark.parametrize("change", ["nothing", "never", "policy"])
def test_a_call_waiting_for_approval_is_decided_again_before_it_is_sent(
    tmp_path: Path, change: str
) -> None:
    env, _shift, events, policy = _home(tmp_path, "    trust: untrusted\n")
    asked: list[str] = []

    async def answer(context: Any, params: Any) -> Any:
        from mcp.types import ElicitResult

        asked.append(params.message)
        # Another process changes what decides the call while the question is shown.
        if change == "never":
            done = await asyncio.to_thread(
                run_hermes, "mcp", "approvals", "set", "shift", "write", "never", env=env
            )
            assert done.returncode == 0, done.stderr
        elif change == "policy":
            _replace(policy, "deny:\n  tools: [shift/write]\n")
        return ElicitResult(action="accept", content={})

    async def scenario() -> Any:
        async with proxy_session(tmp_path, env=env, elicitation_callback=answer) as session:
            return await session.call_tool("mcp_shift_write", {})

    result = asyncio.run(scenario())
    assert len(asked) == 1 and "untrusted and wants to run 'write'" in asked[0]
    if change == "nothing":
        assert not result.is_error, text_of(result)
        assert _calls(events) == ["call write {}"]
        return
    assert result.is_error
    expected = {
        "never": "you decided never to run it",
        "policy": "refused by the administrator's policy",
    }[change]
    assert "The MCP tool 'write' of server 'shift' was NOT run: " in text_of(result)
    assert expected in text_of(result)
    assert _calls(events) == []


# -- hermes chat ---------------------------------------------------------------------------------
@pytest.mark.cli
def test_a_deny_rule_applies_to_the_next_call_of_a_running_chat(tmp_path: Path) -> None:
    import os

    import pexpect

    env, _shift, events, policy = _home(tmp_path)
    turn = json.dumps({"tool_calls": [{"name": "mcp_shift_look", "arguments": {}}]})
    child = pexpect.spawn(
        sys.executable,
        ["-m", "hermes_core", "chat", "-m", "echo"],
        env={
            **clean_env(os.environ),
            **env,
            "LLM_USER_PATH": str(tmp_path / "llm"),  # never the developer's own keys
            "TERM": "xterm",
        },
        encoding="utf-8",
        timeout=90,
    )
    try:
        child.expect_exact("you> ")
        child.sendline(turn)
        child.expect_exact("look: ok")
        child.expect_exact("you> ")
        _replace(policy, "deny:\n  tools: [shift/look]\n")
        child.sendline(turn)
        child.expect_exact("refused by the administrator's policy")
        child.expect_exact("you> ")
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert _calls(events) == ["call look {}"]


# -- a host built by the factory (the dashboard's, chat's) ----------------------------------------
def test_a_config_reload_keeps_the_policy_and_a_policy_edit_applies_to_the_next_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env, _shift, events, policy = _home(tmp_path)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    _replace(policy, "deny:\n  tools: [shift/write]\n")

    async def scenario() -> None:
        factory = HostFactory()
        async with factory.host() as host:
            host.watch_config()
            assert "error" in await host.call_tool("mcp_shift_write", {})
            # An edit of config.yaml (a new server) reloads; the policy still holds.
            config = tmp_path / "config.yaml"
            text = config.read_text()
            _replace(config, text + text.split("\n", 1)[1].replace("  shift:", "  other:", 1))
            refused = await host.call_tool("mcp_shift_write", {})
            assert refused.get("state") == "policy", refused
            assert "other" in {row.server for row in host.status()}
            # The policy lifted: the very next call runs.
            _replace(policy, ALLOW_ALL)
            ran = await host.call_tool("mcp_shift_write", {})
            assert "error" not in ran, ran
            _replace(policy, "deny:\n  tools: [shift/*]\n")
            again = await host.call_tool("mcp_shift_write", {})
            assert again.get("state") == "policy", again

    asyncio.run(scenario())
    assert _calls(events) == ["call write {}"]


def test_a_policy_edit_made_while_the_servers_start_is_applied_to_the_first_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env, _shift, events, policy = _home(tmp_path)
    for key, value in env.items():
        monkeypatch.setenv(key, value)

    async def scenario() -> None:
        factory = HostFactory()
        servers = factory.servers()  # the config and the policy read here...
        _replace(policy, "deny:\n  tools: [shift/write]\n")  # ...and edited before the watch
        async with factory.host(servers) as host:
            host.watch_config()
            refused = await host.call_tool("mcp_shift_write", {})
            assert refused.get("state") == "policy", refused

    asyncio.run(scenario())
    assert _calls(events) == []


def test_a_policy_edit_that_does_not_read_fails_closed_in_a_running_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    env, _shift, events, policy = _home(tmp_path)
    for key, value in env.items():
        monkeypatch.setenv(key, value)

    async def scenario() -> None:
        async with HostFactory().host() as host:
            host.watch_config()
            assert "error" not in await host.call_tool("mcp_shift_look", {})
            _replace(policy, "deny:\n  tools: [shift/look]\n  servers: nope\n")
            refused = await host.call_tool("mcp_shift_look", {})
            assert "error" in refused, refused
            rows = {row.server: row for row in host.status()}
            why = rows["shift"].last_error or ""
            assert "refused by the administrator's policy: the policy file is wrong" in why
            assert f"{policy}:3" in why and "the policy fails closed" in why
            _replace(policy, ALLOW_ALL)  # fixed: the server starts again
            deadline = time.monotonic() + 60
            while host.registry.get("mcp_shift_look") is None:
                assert time.monotonic() < deadline, host.status()
                await asyncio.sleep(0.05)
            assert "error" not in await host.call_tool("mcp_shift_look", {})

    asyncio.run(scenario())
    assert _calls(events) == ["call look {}", "call look {}"]
    assert "no server may run" in caplog.text
