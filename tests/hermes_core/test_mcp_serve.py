"""``hermes mcp serve`` as a real subprocess, driven by the raw ``mcp`` SDK client and by our
own ``MCPHost``: the ten tools against a populated store, events written by other processes,
the messaging errors, and the ``--http`` bearer token."""

from __future__ import annotations

import asyncio
import base64
import json
import stat
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from hermes_core.serve.events import EventQueue, StoreWatcher
from hermes_core.sessions import SessionStore
from support.cli import run_hermes
from support.serve import PNG, populate, sdk_session, serve_env, structured, write_elsewhere

TEN = {
    "conversations_list",
    "conversation_get",
    "messages_read",
    "attachments_fetch",
    "events_poll",
    "events_wait",
    "messages_send",
    "channels_list",
    "permissions_list_open",
    "permissions_respond",
}
WAIT_MS = 60_000  # generous: the event arrives long before on any machine


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_the_sdk_client_calls_all_ten_tools(tmp_path: Path) -> None:
    made = populate(tmp_path)

    async def scenario() -> None:
        # No plugins: reads work without any messaging adapter, and a send says what to do.
        async with sdk_session(tmp_path, no_plugins=True) as session:
            listed = (await session.list_tools()).tools
            assert {t.name for t in listed} == TEN and len(listed) == 10
            for tool in listed:
                assert tool.description, tool.name
                # dedented: no line carries the source's indentation
                assert not any(line.startswith(" ") for line in tool.description.splitlines())
                assert tool.input_schema["type"] == "object", tool.name
                assert tool.output_schema and tool.output_schema["type"] == "object", tool.name

            found = structured(await session.call_tool("conversations_list", {}))
            keys = [c["session_key"] for c in found["conversations"]]
            assert keys == ["discord:#general", "telegram:123456", "slack:ops"]
            found = structured(
                await session.call_tool("conversations_list", {"platform": "telegram"})
            )
            assert [c["title"] for c in found["conversations"]] == ["Ada Lovelace"]
            found = structured(await session.call_tool("conversations_list", {"search": "LOVE"}))
            assert found["count"] == 1

            detail = structured(
                await session.call_tool("conversation_get", {"session_key": "telegram:123456"})
            )
            assert (detail["input_tokens"], detail["output_tokens"]) == (120, 30)
            assert detail["chat_type"] == "dm" and detail["message_count"] == 2
            assert detail["last_message"]["content"] == "Booked for 8 pm."
            missing = await session.call_tool("conversation_get", {"session_key": "nope"})
            assert missing.is_error and "Conversation not found: nope" in missing.content[0].text

            page = structured(
                await session.call_tool(
                    "messages_read", {"session_key": "telegram:123456", "limit": 1}
                )
            )
            assert page["total_in_session"] == 2 and page["count"] == 1
            assert page["messages"][0]["role"] == "assistant"
            before = structured(
                await session.call_tool(
                    "messages_read",
                    {"session_key": "telegram:123456", "before_id": page["next_before_id"]},
                )
            )
            assert [m["author"] for m in before["messages"]] == ["Ada"]
            assert before["next_before_id"] is None
            long = structured(
                await session.call_tool("messages_read", {"session_key": "slack:ops"})
            )
            assert long["messages"][0]["truncated"] and len(long["messages"][0]["content"]) == 2000
            shown = structured(
                await session.call_tool("messages_read", {"session_key": "discord:#general"})
            )
            assert shown["messages"][0]["content"] == "the whiteboard and notes"  # tag stripped

            fetched = await session.call_tool(
                "attachments_fetch",
                {"session_key": "discord:#general", "message_id": made["photo_message"]},
            )
            kinds = [c.type for c in fetched.content]
            assert kinds == ["text", "image", "resource"]
            assert base64.b64decode(fetched.content[1].data) == PNG
            assert fetched.content[1].mime_type == "image/png"
            assert base64.b64decode(fetched.content[2].resource.blob) == b"meeting notes"
            listed_att = fetched.structured_content["attachments"]
            assert [a["included"] for a in listed_att] == [True, True, False]
            assert "above the 8388608-byte limit" in listed_att[2]["note"]
            wrong = await session.call_tool(
                "attachments_fetch",
                {"session_key": "slack:ops", "message_id": made["photo_message"]},
            )
            assert wrong.is_error and "Message not found" in wrong.content[0].text

            polled = structured(await session.call_tool("events_poll", {}))
            assert polled == {"events": [], "next_cursor": 0, "fell_behind": False, "missed": 0}
            waited = structured(await session.call_tool("events_wait", {"timeout_ms": 50}))
            assert (waited["event"], waited["reason"]) == (None, "timeout")

            sent = await session.call_tool(
                "messages_send", {"target": "telegram:123456", "message": "hi"}
            )
            assert sent.is_error and "No messaging platform is configured" in sent.content[0].text
            assert "pip install hermes-webhooks" in sent.content[0].text
            assert f"add a `messaging:` entry to {tmp_path / 'config.yaml'}" in sent.content[0].text

            channels = structured(await session.call_tool("channels_list", {}))
            assert {c["target"] for c in channels["channels"]} == {
                "telegram:123456",
                "discord:#general",
                "slack:ops",
            }
            assert not any(c["sendable"] for c in channels["channels"])
            assert "No messaging adapter is configured" in channels["note"]

            open_ = structured(await session.call_tool("permissions_list_open", {}))
            (approval,) = open_["approvals"]
            assert (approval["id"], approval["kind"], approval["server"]) == (
                made["approval"],
                "elicitation",
                "shop",
            )
            assert approval["payload"]["fields"][0]["name"] == "size"
            answered = structured(
                await session.call_tool(
                    "permissions_respond",
                    {"id": made["approval"], "decision": "deny"},
                )
            )
            assert (answered["state"], answered["decision"]) == ("denied", "deny")
            bad = await session.call_tool(
                "permissions_respond", {"id": made["approval"], "decision": "sure"}
            )
            assert bad.is_error
            assert "Invalid decision: sure. Must be allow-once, allow-always, or deny" in (
                bad.content[0].text
            )
            unknown = await session.call_tool(
                "permissions_respond", {"id": 4242, "decision": "deny"}
            )
            assert unknown.is_error and "Approval not found: 4242" in unknown.content[0].text

    asyncio.run(scenario())


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_our_host_calls_all_ten_tools(tmp_path: Path) -> None:
    from hermes_core.host.host import HostServer, MCPHost

    made = populate(tmp_path)
    server = HostServer(
        "hermes",
        command=sys.executable,
        args=["-m", "hermes_core", "mcp", "serve"],
        env=serve_env(tmp_path),
    )

    async def call(host: MCPHost, tool: str, **args: Any) -> dict[str, Any]:
        result = await host.call_tool(f"mcp_hermes_{tool}", args)
        assert "error" not in result and not result.get("isError"), result
        data: dict[str, Any] = result["structuredContent"]
        return data

    async def scenario() -> None:
        async with MCPHost([server]) as host:
            assert {e.name for e in host.tools()} == {f"mcp_hermes_{t}" for t in TEN}
            assert (await call(host, "conversations_list"))["count"] == 3
            assert (await call(host, "conversation_get", session_key="slack:ops"))[
                "message_count"
            ] == 1
            page = await call(host, "messages_read", session_key="telegram:123456")
            assert page["messages"][0]["content"].startswith("Can you book")
            fetched = await call(
                host,
                "attachments_fetch",
                session_key="discord:#general",
                message_id=made["photo_message"],
            )
            assert [a["kind"] for a in fetched["attachments"]] == ["image", "file", "video"]
            assert (await call(host, "events_poll"))["events"] == []
            waiting = asyncio.create_task(
                call(host, "events_wait", session_key="telegram:123456", timeout_ms=WAIT_MS)
            )
            await asyncio.to_thread(
                write_elsewhere, tmp_path, "message", session_key="slack:ops", role="user",
                text="not for this filter",
            )  # fmt: skip
            await asyncio.to_thread(
                write_elsewhere, tmp_path, "message", session_key="telegram:123456",
                role="user", text="are we still on?",
            )  # fmt: skip
            got = await waiting
            assert got["event"]["data"]["content"] == "are we still on?"
            assert got["event"]["cursor"] == 2  # the slack message was event 1
            sent = await host.call_tool(
                "mcp_hermes_messages_send", {"target": "slack:ops", "message": "hi"}
            )
            assert sent.get("isError") and "No messaging platform is configured" in str(sent)
            channels = await call(host, "channels_list", platform="slack")
            assert [c["target"] for c in channels["channels"]] == ["slack:ops"]
            assert (await call(host, "permissions_list_open"))["count"] == 1
            answered = await call(
                host,
                "permissions_respond",
                id=made["approval"],
                decision="allow-once",
                answer={"size": "M"},
            )
            assert answered["state"] == "allowed"

    asyncio.run(scenario())
    with SessionStore(tmp_path / "state.db") as store:
        assert store.approval(made["approval"]).answer == {"size": "M"}  # type: ignore[union-attr]


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_events_from_other_processes_in_order_and_history_is_not_replayed(
    tmp_path: Path,
) -> None:
    populate(tmp_path)

    async def scenario() -> None:
        async with sdk_session(tmp_path) as session:
            cursor = 0

            async def next_event() -> dict[str, Any]:
                nonlocal cursor
                got = structured(
                    await session.call_tool(
                        "events_wait", {"after_cursor": cursor, "timeout_ms": WAIT_MS}
                    )
                )
                assert got["reason"] == "event", got
                cursor = got["next_cursor"]
                event: dict[str, Any] = got["event"]
                return event

            # The populated history (4 messages, 1 approval) is not an event.
            assert structured(await session.call_tool("events_poll", {}))["events"] == []
            message_id = await asyncio.to_thread(
                write_elsewhere, tmp_path, "message", session_key="telegram:777", role="user",
                text="new chat", author="Lin",
            )  # fmt: skip
            event = await next_event()
            assert (event["kind"], event["session_key"], event["cursor"]) == (
                "message",
                "telegram:777",
                1,
            )
            assert event["data"]["message_id"] == message_id and event["data"]["author"] == "Lin"

            asked = await asyncio.to_thread(
                write_elsewhere, tmp_path, "ask", kind="elicitation", server="shop",
                summary="Gift wrap?",
            )  # fmt: skip
            event = await next_event()
            assert (event["kind"], event["data"]["id"], event["data"]["state"]) == (
                "approval_requested",
                asked,
                "pending",
            )
            await asyncio.to_thread(
                write_elsewhere, tmp_path, "answer", approval_id=asked, decision="allow-always"
            )
            event = await next_event()
            assert (event["kind"], event["data"]["decision"], event["cursor"]) == (
                "approval_resolved",
                "allow-always",
                3,
            )
            polled = structured(await session.call_tool("events_poll", {"after_cursor": 0}))
            assert [e["cursor"] for e in polled["events"]] == [1, 2, 3]
            assert polled["next_cursor"] == 3
            only = structured(
                await session.call_tool(
                    "events_poll", {"after_cursor": 0, "session_key": "telegram:777"}
                )
            )
            assert [e["kind"] for e in only["events"]] == ["message"]

    asyncio.run(scenario())


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_events_wait_times_out_cleanly_and_the_server_goes_on(tmp_path: Path) -> None:
    populate(tmp_path)

    async def scenario() -> None:
        async with sdk_session(tmp_path) as session:
            for timeout in (0, 300, -5):
                got = structured(await session.call_tool("events_wait", {"timeout_ms": timeout}))
                assert got == {
                    "event": None,
                    "reason": "timeout",
                    "next_cursor": 0,
                    "fell_behind": False,
                    "missed": 0,
                }
            assert structured(await session.call_tool("conversations_list", {}))["count"] == 3

    asyncio.run(scenario())


def test_the_event_queue_is_bounded_and_says_who_fell_behind() -> None:
    queue = EventQueue(limit=3)
    for n in range(5):
        queue.push("message", "k", {"n": n})
    page = queue.page(0)
    assert [e.cursor for e in page.events] == [3, 4, 5]
    assert (page.fell_behind, page.missed, page.next_cursor) == (True, 2, 5)
    page = queue.page(2)
    assert (page.fell_behind, page.missed) == (False, 0)
    page = queue.page(5)
    assert (page.events, page.fell_behind, page.next_cursor) == ([], False, 5)
    page = queue.page(3, limit=1)
    assert ([e.cursor for e in page.events], page.next_cursor) == ([4], 4)
    page = queue.page(0, session_key="other")
    assert (page.events, page.next_cursor) == ([], 5)


@pytest.mark.process
def test_the_watcher_reads_the_database_only_when_it_changed(tmp_path: Path) -> None:
    populate(tmp_path)
    with SessionStore(tmp_path / "state.db") as store:
        queue = EventQueue()
        watcher = StoreWatcher(store, queue)
        assert [watcher.check() for _ in range(3)] == [0, 0, 0]
        assert (watcher.polls, watcher.reads) == (3, 0)
        write_elsewhere(tmp_path, "message", session_key="k", role="user", text="one")
        write_elsewhere(tmp_path, "message", session_key="k", role="tool", text="not shown")
        assert watcher.check() == 1
        assert watcher.reads == 1
        assert watcher.check() == 0 and watcher.reads == 1


def test_the_watcher_reads_a_burst_larger_than_one_batch(tmp_path: Path) -> None:
    from hermes_core.serve.events import READ_BATCH

    with SessionStore(tmp_path / "state.db") as store, SessionStore(store.path) as writer:
        watcher = StoreWatcher(store, EventQueue(limit=5000))
        for n in range(READ_BATCH + 37):
            writer.record_message("k", "user", f"m{n}")
        assert watcher.check() == READ_BATCH + 37
        assert (
            watcher.queue.page(READ_BATCH + 36).events[0].data["content"] == f"m{READ_BATCH + 36}"
        )


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_verbose_logs_go_to_stderr_and_stdout_stays_protocol(tmp_path: Path) -> None:
    populate(tmp_path)
    errlog = tmp_path / "stderr.txt"

    async def scenario() -> None:
        async with sdk_session(tmp_path, "--verbose", errlog=errlog) as session:
            assert structured(await session.call_tool("conversations_list", {}))["count"] == 3

    asyncio.run(scenario())
    text = errlog.read_text()
    assert "hermes mcp serve: INFO hermes_core.serve.server: serving" in text
    assert "DEBUG mcp" not in text  # the SDK's debug lines hold message bodies


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_serve_flags_and_a_bad_messaging_block_are_usage_errors(tmp_path: Path) -> None:
    env = {"HERMES_HOME": str(tmp_path)}
    done = run_hermes("mcp", "serve", "--port", "9000", env=env)
    assert done.returncode == 2 and "--host, --port and --new-token go with --http" in done.stderr
    (tmp_path / "config.yaml").write_text(
        "# chat\nmessaging:\n  slack:\n    adapter: slack-webhook\n"
    )
    done = run_hermes("mcp", "serve", env=env)
    assert done.returncode == 2
    assert f"{tmp_path / 'config.yaml'}:4: messaging.slack.adapter: unknown adapter " in (
        done.stderr
    )
    assert "registered adapters:" in done.stderr and "Traceback" not in done.stderr
    (tmp_path / "config.yaml").write_text("messaging: [slack]\n")
    done = run_hermes("mcp", "serve", env=env)
    assert done.returncode == 2 and ":1: messaging: must be a mapping" in done.stderr


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_a_state_db_from_a_newer_hermes_stops_serve(tmp_path: Path) -> None:
    import sqlite3

    conn = sqlite3.connect(tmp_path / "state.db")
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    done = run_hermes("mcp", "serve", env={"HERMES_HOME": str(tmp_path)})
    assert done.returncode == 1 and "newer than this Hermes knows" in done.stderr


# --- --http ------------------------------------------------------------------------------


def _status(url: str, token: str | None) -> int:
    body = (
        b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": '
        b'"2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}'
    )
    request = urllib.request.Request(url, data=body, method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header("Accept", "application/json, text/event-stream")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def _start_http(home: Path, port: int, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hermes_core",
            "mcp",
            "serve",
            "--http",
            "--port",
            str(port),
            *extra,
        ],
        env=serve_env(home),
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )


def _stop(proc: subprocess.Popen[str]) -> str:
    proc.terminate()
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return err


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.network
@pytest.mark.slow
def test_http_needs_the_bearer_token_and_refuses_missing_or_wrong_ones(tmp_path: Path) -> None:
    from servers.net import free_port, wait_for_port

    populate(tmp_path)
    port = free_port()
    proc = _start_http(tmp_path, port)
    try:
        wait_for_port(port, 60)
        token_file = tmp_path / "serve-token"
        token = token_file.read_text().strip()
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        url = f"http://127.0.0.1:{port}/mcp"
        assert _status(url, None) == 401
        assert _status(url, "wrong-token") == 401
        assert _status(url, token + "x") == 401
        assert _status(url, token) == 200

        async def scenario() -> int:
            import httpx2
            from mcp import ClientSession
            from mcp.client.streamable_http import streamable_http_client

            headers = {"Authorization": f"Bearer {token}"}
            async with (
                httpx2.AsyncClient(headers=headers, trust_env=False) as http,
                streamable_http_client(url, http_client=http) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                assert {t.name for t in (await session.list_tools()).tools} == TEN
                found = structured(await session.call_tool("conversations_list", {}))
                return int(found["count"])

        assert asyncio.run(scenario()) == 3
        # Another Hermes, configured as docs/mcp-serve.md says, through the CLI.
        client = tmp_path / "client-home"
        client.mkdir()
        (client / "config.yaml").write_text(
            f"mcp_servers:\n  hermes:\n    url: {url}\n"
            "    headers: {Authorization: 'Bearer ${HERMES_SERVE_TOKEN}'}\n"
        )
        done = run_hermes(
            "mcp",
            "call",
            "--json",
            "mcp_hermes_conversations_list",
            "--args",
            '{"platform": "slack"}',
            env={"HERMES_HOME": str(client), "HERMES_SERVE_TOKEN": token, "NO_PROXY": "*"},
        )
        assert done.returncode == 0, done.stderr
        listed = json.loads(done.stdout)["structuredContent"]["conversations"]
        assert [c["session_key"] for c in listed] == ["slack:ops"]
    finally:
        first = _stop(proc)
    assert token in first and "shown once" in first
    # A second start, on every address, uses the stored token and does not print it.
    proc = _start_http(tmp_path, port, "--host", "0.0.0.0")
    try:
        wait_for_port(port, 60)
        assert _status(f"http://127.0.0.1:{port}/mcp", None) == 401
        assert _status(f"http://127.0.0.1:{port}/mcp", token) == 200
    finally:
        second = _stop(proc)
    assert token not in second and "bearer token in" in second
    assert "REACHABLE FROM THE NETWORK" in second


@pytest.mark.parametrize("flags", [["--new-token"]])
def test_new_token_replaces_the_stored_one(tmp_path: Path, flags: list[str]) -> None:
    from hermes_core.serve.http_auth import load_or_create_token

    old, created = load_or_create_token(tmp_path)
    assert created and load_or_create_token(tmp_path) == (old, False)
    new, created = load_or_create_token(tmp_path, renew=True)
    assert created and new != old and (tmp_path / "serve-token").read_text().strip() == new
