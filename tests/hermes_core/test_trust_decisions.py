"""Remembered per-tool decisions (ask / always / never): kept in trust.db, applied by the
approval step, offered by the terminal prompt; ``never`` hides the tool."""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hermes_core.cli.ask import TerminalElicitor
from hermes_core.host.host import MCPHost
from hermes_core.host.trust.decisions import Decision
from hermes_core.host.trust.store import TrustStore
from hermes_core.offers.elicitation import (
    ElicitationAnswer,
    ElicitationRequest,
    ElicitationSettings,
)
from support.approvers import Approver
from support.cli import run_hermes
from support.home import clean_env
from support.memory import MemoryTransport, ToyServer, memory_server

SERVER = Path(__file__).resolve().parents[1] / "servers" / "shifting_server.py"
ASK = ElicitationSettings(enabled=True, timeout=5)


def _host(
    store: TrustStore, elicitor: Any, *, trust: str = "untrusted"
) -> tuple[MCPHost, ToyServer]:
    toy = ToyServer("acme").tool("write").tool("look", read_only=True)
    server = memory_server("acme", trust=trust, elicitation=ASK)
    host = MCPHost(
        [server],
        transports={"memory": MemoryTransport({"acme": toy})},
        elicitor=elicitor,
        trust=store,
    )
    return host, toy


def test_never_hides_the_tool_and_refuses_its_calls(tmp_path: Path) -> None:
    store = TrustStore(tmp_path / "trust.db")
    store.decide("acme", "write", Decision.NEVER)
    approver = Approver("accept")

    async def scenario() -> dict[str, Any]:
        host, toy = _host(store, approver)
        async with host:
            assert [t.tool for t in host.tools()] == ["look"]
            assert "never" in host.unoffered_tools["acme"]["write"]
            result = await host.call_tool("mcp_acme_write", {})
            assert toy.called("write") == 0
            return result

    result = asyncio.run(scenario())
    assert result["state"] == "blocked" and result["retryable"] is False
    assert "hermes mcp approvals set acme write ask" in result["error"]
    assert approver.seen == []


def test_always_runs_an_untrusted_write_without_asking_and_ask_asks_on_a_trusted_server(
    tmp_path: Path,
) -> None:
    store = TrustStore(tmp_path / "trust.db")
    store.decide("acme", "write", Decision.ALWAYS)
    never_answers = Approver(None)

    async def always() -> None:
        host, toy = _host(store, never_answers)
        async with host:
            result = await host.call_tool("mcp_acme_write", {})
            assert result["content"][0]["text"] == "write: ok" and toy.called("write") == 1

    asyncio.run(always())
    assert never_answers.seen == []

    store.decide("acme", "look", Decision.ASK)
    declines = Approver("decline")

    async def ask() -> None:
        host, toy = _host(store, declines, trust="full")
        async with host:
            result = await host.call_tool("mcp_acme_look", {})
            assert result["state"] == "not_approved" and toy.called("look") == 0

    asyncio.run(ask())
    assert len(declines.seen) == 1 and declines.seen[0].remember


class _Remembering:
    """Answers the first question with *answer*; any later question fails the test."""

    def __init__(self, answer: ElicitationAnswer) -> None:
        self.answer = answer
        self.seen: list[ElicitationRequest] = []

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        self.seen.append(request)
        assert len(self.seen) == 1, "asked again after the answer was remembered"
        return self.answer


@pytest.mark.parametrize(
    ("answer", "kept", "second"),
    [
        (ElicitationAnswer("accept", {"remember": "always"}), Decision.ALWAYS, "write: ok"),
        (ElicitationAnswer("decline", {"remember": "never"}), Decision.NEVER, "blocked"),
    ],
)
def test_an_answer_at_the_prompt_is_remembered_and_applied_at_once(
    tmp_path: Path, answer: ElicitationAnswer, kept: Decision, second: str
) -> None:
    store = TrustStore(tmp_path / "trust.db")
    elicitor = _Remembering(answer)

    async def scenario() -> dict[str, Any]:
        host, _toy = _host(store, elicitor)
        async with host:
            await host.call_tool("mcp_acme_write", {})
            if kept is Decision.NEVER:
                assert [t.tool for t in host.tools()] == ["look"]
            return await host.call_tool("mcp_acme_write", {})

    result = asyncio.run(scenario())
    assert store.decisions("acme") == {"acme": {"write": kept}}
    shown = result.get("state") or result["content"][0]["text"]
    assert shown == second


def test_the_terminal_prompt_offers_always_and_never() -> None:
    request = ElicitationRequest("acme", "Run 'write'?", (), {}, kind="approval", remember=True)
    for typed, action, content in (
        ("a\n", "accept", {"remember": "always"}),
        ("v\n", "decline", {"remember": "never"}),
        ("y\n", "accept", {}),
        ("\n", "decline", None),
    ):
        out = io.StringIO()
        elicitor = TerminalElicitor(interactive=True, read_line=iter([typed]).__next__, out=out)
        answer = asyncio.run(elicitor(request))
        assert (answer.action, answer.content) == (action, content)
        assert out.getvalue().endswith("Run it? [y]es / [N]o / [a]lways / ne[v]er: ")


# -- through the CLI ---------------------------------------------------------------------------
def _home(tmp_path: Path) -> tuple[dict[str, str], Path]:
    events = tmp_path / "events"
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n  shift:\n"
        f"    command: {json.dumps(sys.executable)}\n    args: [{json.dumps(str(SERVER))}]\n"
        f"    env: {{EVENT_LOG: {json.dumps(str(events))}}}\n    trust: untrusted\n"
    )
    return {"HERMES_HOME": str(tmp_path)}, events


def _calls(events: Path) -> list[str]:
    text = events.read_text() if events.exists() else ""
    return [line for line in text.splitlines() if line.startswith("call ")]


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_hermes_mcp_approvals_set_list_reset(tmp_path: Path) -> None:
    env, events = _home(tmp_path)
    bad = run_hermes("mcp", "approvals", "set", "shift", "write", "sometimes", env=env)
    assert bad.returncode == 2 and "unknown decision 'sometimes'" in bad.stderr
    typo = run_hermes("mcp", "approvals", "set", "shfit", "write", "always", env=env)
    assert typo.returncode == 2 and "did you mean 'shift'?" in typo.stderr
    done = run_hermes("mcp", "approvals", "set", "shift", "write", "always", env=env)
    assert done.returncode == 0 and done.stdout == "shift/write: always\n"
    listed = run_hermes("mcp", "approvals", "list", "--json", env=env)
    assert json.loads(listed.stdout) == {"shift": {"write": "always"}}
    ran = run_hermes("mcp", "call", "--json", "mcp_shift_write", "--args", "{}", env=env)
    assert ran.returncode == 0, ran.stderr  # no terminal, and yet run: the user said always
    assert _calls(events) == ["call write {}"]
    assert run_hermes("mcp", "approvals", "set", "shift", "look", "never", env=env).returncode == 0
    tools = run_hermes("mcp", "tools", env=env)
    assert "mcp_shift_look" not in tools.stdout and "decided never to run it" in tools.stderr
    pinned = run_hermes("mcp", "approvals", "set", "shift", "wirte", "ask", env=env)
    assert pinned.returncode == 2 and "did you mean 'write'?" in pinned.stderr
    reset = run_hermes("mcp", "approvals", "reset", "shift", env=env)
    assert reset.stdout == "forgot 2 decisions of 'shift'\n"
    assert "no remembered decisions" in run_hermes("mcp", "approvals", "list", env=env).stdout


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_always_at_the_terminal_prompt_is_remembered(tmp_path: Path) -> None:
    import pty

    env, events = _home(tmp_path)
    master, slave = pty.openpty()
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "hermes_core", "mcp", "call", "--json", "mcp_shift_write"],
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**clean_env(os.environ), **env},
        )
        os.write(master, b"a\n")
        out, err = child.communicate(timeout=120)
    finally:
        os.close(master)
        os.close(slave)
    assert "Run it? [y]es / [N]o / [a]lways / ne[v]er: " in err
    assert child.returncode == 0 and json.loads(out)["content"][0]["text"] == "write: ok"
    assert TrustStore(tmp_path / "trust.db").decisions() == {"shift": {"write": Decision.ALWAYS}}
    again = run_hermes("mcp", "call", "--json", "mcp_shift_write", "--args", "{}", env=env)
    assert again.returncode == 0 and "Run it?" not in again.stderr
    assert _calls(events) == ["call write {}", "call write {}"]


@pytest.mark.parametrize(
    ("decision", "action", "content"),
    [
        ("allow-always", "accept", {"remember": "always"}),
        ("allow-once", "accept", {}),
        ("deny", "decline", None),
    ],
)
def test_an_allow_always_answer_in_state_db_asks_the_host_to_remember(
    tmp_path: Path, decision: str, action: str, content: Any
) -> None:
    from hermes_core.sessions import SessionStore, StoreElicitor

    store = SessionStore(tmp_path / "state.db")
    request = ElicitationRequest("acme", "run 'write'?", (), {}, kind="approval", remember=True)

    async def scenario() -> ElicitationAnswer:
        asking = asyncio.create_task(StoreElicitor(store)(request))
        while not store.open_approvals():
            await asyncio.sleep(0.02)
        (pending,) = store.open_approvals()
        store.resolve_approval(pending.id, decision)
        return await asking

    answer = asyncio.run(scenario())
    assert (answer.action, answer.content) == (action, content)
