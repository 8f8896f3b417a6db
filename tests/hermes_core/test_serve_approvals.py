"""The host's own questions through state.db: an MCP server asks (elicitation), the host
records the question, a client of ``hermes mcp serve`` lists and answers it, and the answer
reaches the waiting call — in the CLI (``hermes mcp call --approvals store``) and for an
embedder (``StoreElicitor``)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hermes_core.host.host import HostServer, MCPHost
from hermes_core.offers.elicitation import ElicitationSettings
from hermes_core.sessions import SessionStore, StoreElicitor
from support.serve import sdk_session, serve_env, structured

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

ASKING = str(Path(__file__).parents[1] / "servers" / "asking_server.py")
WAIT_MS = 60_000


async def _wait_for(session: Any, kind: str, after: int = 0) -> dict[str, Any]:
    while True:
        got = structured(
            await session.call_tool("events_wait", {"after_cursor": after, "timeout_ms": WAIT_MS})
        )
        assert got["reason"] == "event", "no event within a minute"
        if got["event"]["kind"] == kind:
            event: dict[str, Any] = got["event"]
            return event
        after = got["next_cursor"]


def test_hermes_mcp_call_asks_through_the_store_and_a_serve_client_answers(
    tmp_path: Path,
) -> None:
    (tmp_path / "config.yaml").write_text(
        f"mcp_servers:\n  asking:\n    command: {json.dumps(sys.executable)}\n"
        f"    args: [{json.dumps(ASKING)}]\n"
    )
    SessionStore(tmp_path / "state.db").close()

    async def scenario() -> str:
        async with sdk_session(tmp_path) as session:
            call = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "hermes_core",
                "mcp",
                "call",
                "--json",
                "mcp_asking_book",
                "--approvals",
                "store",
                env=serve_env(tmp_path),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            requested = await _wait_for(session, "approval_requested")
            assert (requested["data"]["kind"], requested["data"]["server"]) == (
                "elicitation",
                "asking",
            )
            (open_,) = structured(await session.call_tool("permissions_list_open", {}))["approvals"]
            assert open_["summary"] == "Which table should I book?"
            fields = {f["name"]: f for f in open_["payload"]["fields"]}
            assert fields["name"]["required"] and fields["guests"]["default"] == 2
            assert fields["mood"]["choices"] == ["quiet", "lively"]
            answered = structured(
                await session.call_tool(
                    "permissions_respond",
                    {"id": open_["id"], "decision": "allow-once", "answer": {"name": "Ada"}},
                )
            )
            assert answered["state"] == "allowed"
            resolved = await _wait_for(session, "approval_resolved", requested["cursor"])
            assert resolved["data"]["id"] == open_["id"]
            out, err = await asyncio.wait_for(call.communicate(), 120)
            assert call.returncode == 0, err.decode()
            assert structured(await session.call_tool("permissions_list_open", {}))["count"] == 0
            return out.decode()

    output = json.loads(asyncio.run(scenario()))
    text = output["content"][0]["text"]
    assert text.startswith("booked ")
    assert json.loads(text.removeprefix("booked ")) == {
        "name": "Ada",
        "guests": 2,
        "terrace": False,
        "mood": "quiet",
    }


def test_an_embedder_s_store_elicitor_gets_a_denial(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state.db")
    server = HostServer("asking", command=sys.executable, args=[ASKING])

    async def scenario() -> str:
        async with (
            sdk_session(tmp_path) as session,
            MCPHost([server], elicitor=StoreElicitor(store)) as host,
        ):
            calling = asyncio.create_task(host.call_tool("mcp_asking_book"))
            requested = await _wait_for(session, "approval_requested")
            structured(
                await session.call_tool(
                    "permissions_respond", {"id": requested["data"]["id"], "decision": "deny"}
                )
            )
            result = await calling
            return str(result["content"][0]["text"])

    assert asyncio.run(scenario()) == "not booked (decline)"
    (approval,) = store.approvals(after=0)
    assert (approval.state, approval.decision, approval.resolved_by) == (
        "denied",
        "deny",
        "hermes mcp serve",
    )
    store.close()


def test_a_question_nobody_answers_expires_and_cannot_be_answered_late(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state.db")
    server = HostServer(
        "asking",
        command=sys.executable,
        args=[ASKING],
        elicitation=ElicitationSettings(timeout=0.5),
    )

    async def scenario() -> str:
        async with MCPHost([server], elicitor=StoreElicitor(store)) as host:
            result = await host.call_tool("mcp_asking_book")
            return str(result["content"][0]["text"])

    assert asyncio.run(scenario()) == "not booked (cancel)"
    (approval,) = store.approvals(after=0)
    assert approval.state == "expired" and store.open_approvals() == []

    async def late() -> Any:
        async with sdk_session(tmp_path) as session:
            return await session.call_tool(
                "permissions_respond", {"id": approval.id, "decision": "allow-once"}
            )

    refused = asyncio.run(late())
    assert refused.is_error and "is no longer open (expired)" in refused.content[0].text
    store.close()


def test_an_untrusted_tool_call_is_recorded_as_a_tool_call_approval(tmp_path: Path) -> None:
    from hermes_core.offers.elicitation import ElicitationRequest

    store = SessionStore(tmp_path / "state.db")
    request = ElicitationRequest(
        server="files", message="run 'write'?", fields=(), schema={}, kind="approval"
    )

    async def scenario() -> str:
        asking = asyncio.create_task(StoreElicitor(store)(request))
        while not store.open_approvals():
            await asyncio.sleep(0.02)
        (pending,) = store.open_approvals()
        store.resolve_approval(pending.id, "deny")
        answer = await asking
        assert answer.action == "decline"
        return pending.kind

    assert asyncio.run(scenario()) == "tool_call"
