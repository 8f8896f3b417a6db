"""``hermes mcp serve`` against a hostile home, client and webhook (issue 27, round 3).

Each test plants what an attacker or a broken machine leaves (a link at the token's
temporary name, a loose token file, a FIFO attachment, ...) and checks the server refuses it
with one clear line, or goes on without harm.
"""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hermes_core.serve.http_auth import TOKEN_FILE, TokenFileError, load_or_create_token
from servers.net import free_port, wait_for_port
from support.cli import run_hermes
from support.serve import populate, sdk_session, serve_env, structured


# --- the bearer token file (item 12) --------------------------------------------------------
def test_a_link_planted_at_the_temporary_name_is_never_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    # What an attacker plants: the old temporary name (the pid) and a few around it.
    for pid in range(os.getpid() - 2, os.getpid() + 3):
        (tmp_path / f".{TOKEN_FILE}.{pid}.tmp").symlink_to(victim)
    token, created = load_or_create_token(tmp_path, renew=True)
    assert created
    assert victim.read_text() == "precious\n"
    assert (tmp_path / TOKEN_FILE).read_text().strip() == token
    assert not (tmp_path / TOKEN_FILE).is_symlink()


def test_a_loose_token_file_is_made_private_and_said(tmp_path: Path) -> None:
    path = tmp_path / TOKEN_FILE
    path.write_text("t" * 43 + "\n")
    path.chmod(0o644)
    said: list[str] = []
    assert load_or_create_token(tmp_path, say=said.append) == ("t" * 43, False)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert said == [f"{path} was mode 644 (others could read the token); it is now 0600"]


@pytest.mark.parametrize("kind", ["symlink", "fifo"])
def test_a_token_file_that_is_not_a_regular_file_is_refused(tmp_path: Path, kind: str) -> None:
    path = tmp_path / TOKEN_FILE
    if kind == "symlink":
        other = tmp_path / "elsewhere"
        other.write_text("s" * 43 + "\n")
        path.symlink_to(other)
    else:
        os.mkfifo(path)  # opened without blocking: the refusal is immediate
    with pytest.raises(TokenFileError, match="--new-token"):
        load_or_create_token(tmp_path)


@pytest.mark.process
@pytest.mark.cli
def test_serve_says_what_is_wrong_with_the_token_file(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").write_text("s" * 43 + "\n")
    (tmp_path / TOKEN_FILE).symlink_to(tmp_path / "elsewhere")
    port = str(free_port())
    done = run_hermes("mcp", "serve", "--http", "--port", port, env=serve_env(tmp_path))
    assert done.returncode == 1
    assert f"{tmp_path / TOKEN_FILE}: is a symbolic link" in done.stderr
    assert "Traceback" not in done.stderr


# --- --verbose logs no message text (item 16) -----------------------------------------------
def _http_call(url: str, token: str) -> dict[str, Any]:
    """``messages_read`` of the populated telegram chat through the SDK's HTTP client."""
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def scenario() -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as client,
            streamable_http_client(url, http_client=client) as (read, write, *_),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            args = {"session_key": "telegram:123456"}
            return structured(await session.call_tool("messages_read", args))  # type: ignore[no-any-return]

    return asyncio.run(scenario())


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.network
@pytest.mark.slow
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_verbose_serve_logs_no_message_text(tmp_path: Path, transport: str) -> None:
    populate(tmp_path)
    secret = "Booked for 8 pm."  # a message in the store, read by the client
    errlog = tmp_path / "stderr.txt"
    if transport == "stdio":

        async def scenario() -> dict[str, Any]:
            async with sdk_session(tmp_path, "--verbose", errlog=errlog) as session:
                args = {"session_key": "telegram:123456"}
                return structured(await session.call_tool("messages_read", args))  # type: ignore[no-any-return]

        page = asyncio.run(scenario())
    else:
        token = "k" * 43
        (tmp_path / TOKEN_FILE).write_text(token + "\n")
        (tmp_path / TOKEN_FILE).chmod(0o600)
        port = free_port()
        args = ["-m", "hermes_core", "mcp", "serve", "--http", "--verbose", "--port", str(port)]
        with errlog.open("w") as err:
            proc = subprocess.Popen(
                [sys.executable, *args],
                env=serve_env(tmp_path),
                stderr=err,
                stdout=subprocess.DEVNULL,
            )
            try:
                wait_for_port(port, 60)
                page = _http_call(f"http://127.0.0.1:{port}/mcp", token)
            finally:
                proc.terminate()
                proc.wait(30)
    assert secret in [m["content"] for m in page["messages"]]
    text = errlog.read_text()
    assert "INFO" in text  # verbose is verbose ...
    assert secret not in text  # ... but never holds a message
    assert "Booked" not in text


# --- one clear line, never a traceback (item 13) --------------------------------------------
@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_huge_ids_and_a_deeply_nested_legacy_index_are_answered(tmp_path: Path) -> None:
    (tmp_path / "sessions").mkdir()
    nested = "[" * 990 + "]" * 990
    (tmp_path / "sessions" / "sessions.json").write_text(f'{{"t:1": {{"platform": {nested}}}}}')
    huge = 2**64

    async def scenario() -> list[Any]:
        async with sdk_session(tmp_path) as session:
            return [
                await session.call_tool("conversations_list", {}),
                await session.call_tool("conversation_get", {"session_key": "t:1"}),
                await session.call_tool("messages_read", {"session_key": "t:1"}),
                await session.call_tool("messages_read", {"session_key": "t:1", "before_id": huge}),
                await session.call_tool(
                    "attachments_fetch", {"session_key": "t:1", "message_id": huge}
                ),
                await session.call_tool("permissions_respond", {"id": huge, "decision": "deny"}),
                await session.call_tool("permissions_respond", {"id": -huge, "decision": "deny"}),
            ]

    listed, got, read, paged, fetched, answered, negative = asyncio.run(scenario())
    assert structured(listed)["count"] == 0  # the nested index reads as no conversations
    for result in (got, read, paged):
        assert result.is_error and "Conversation not found: t:1" in result.content[0].text
    assert fetched.is_error and f"Message not found: {2**63 - 1}" in fetched.content[0].text
    for result in (answered, negative):
        assert result.is_error and "Approval not found" in result.content[0].text


@pytest.mark.process
@pytest.mark.cli
def test_a_state_db_with_a_version_but_no_tables_is_one_line(tmp_path: Path) -> None:
    import sqlite3

    from hermes_core.sessions.schema import SCHEMA_VERSION

    conn = sqlite3.connect(tmp_path / "state.db")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    conn.close()
    done = run_hermes("mcp", "serve", env=serve_env(tmp_path))
    assert done.returncode == 1
    assert "lacks the tables conversations, messages" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.network
@pytest.mark.parametrize("where", ["in use", "not on this host"])
def test_serve_http_that_cannot_listen_is_one_line(tmp_path: Path, where: str) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        # 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never an address of this host.
        host = "127.0.0.1" if where == "in use" else "192.0.2.1"
        done = run_hermes(
            "mcp", "serve", "--http", "--host", host, "--port", port, env=serve_env(tmp_path)
        )
    assert done.returncode == 1
    expected = "the port is in use" if where == "in use" else "that address is not one of"
    assert f"cannot listen on {host}:{port}: {expected}" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    assert not (tmp_path / TOKEN_FILE).exists()  # no token made that was never shown


# --- messages_send: what happened, and never twice (items 8 and 13) -------------------------
class Webhook:
    """A webhook on loopback that counts the POSTs it got; with *garbage*, it answers with
    bytes that are not HTTP (after reading the whole request)."""

    def __init__(self, garbage: bool = False) -> None:
        import socketserver
        import threading

        self.posts = 0
        hook = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                length = 0
                while (line := self.rfile.readline()) not in (b"\r\n", b""):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                self.rfile.read(length)
                hook.posts += 1
                if garbage:
                    self.wfile.write(b"garbage\r\n\r\n")
                else:
                    self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def webhook_home(home: Path, url: str) -> None:
    populate(home)
    (home / "config.yaml").write_text(
        f"messaging:\n  slack:\n    adapter: slack_webhook\n    channels:\n      ops: {url}\n"
    )


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.network
@pytest.mark.slow
def test_a_send_that_cannot_be_recorded_says_sent_and_a_retry_sends_nothing(
    tmp_path: Path,
) -> None:
    import sqlite3

    hook = Webhook()
    webhook_home(tmp_path, hook.url)
    conn = sqlite3.connect(tmp_path / "state.db")  # a disk that refuses the record
    conn.execute(
        "CREATE TRIGGER full BEFORE INSERT ON messages BEGIN "
        "SELECT RAISE(FAIL, 'database or disk is full'); END"
    )
    conn.commit()
    conn.close()
    args = {"target": "slack:ops", "message": "deployed", "send_key": "deploy-42"}

    async def scenario() -> tuple[Any, Any]:
        async with sdk_session(tmp_path) as session:
            first = await session.call_tool("messages_send", args)
            again = await session.call_tool("messages_send", args)
            return first, again

    try:
        first, again = asyncio.run(scenario())
    finally:
        hook.close()
    sent = structured(first)
    assert sent["sent"] is True and sent["recorded_message_id"] is None
    assert "sent, but not recorded in state.db" in sent["detail"]
    assert "database or disk is full" in sent["detail"]
    repeated = structured(again)
    assert repeated["duplicate"] is True and repeated["sent"] is True
    assert hook.posts == 1  # delivered once, whatever the client retried


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.network
@pytest.mark.slow
def test_a_webhook_answering_garbage_is_one_clear_error(tmp_path: Path) -> None:
    hook = Webhook(garbage=True)
    webhook_home(tmp_path, hook.url)
    errlog = tmp_path / "stderr.txt"

    async def scenario() -> Any:
        async with sdk_session(tmp_path, errlog=errlog) as session:
            return await session.call_tool("messages_send", {"target": "slack:ops", "message": "x"})

    try:
        result = asyncio.run(scenario())
    finally:
        hook.close()
    assert result.is_error
    text = result.content[0].text
    assert "Send failed: slack: the platform's answer was not HTTP (BadStatusLine)" in text
    assert "may have been delivered" in text
    assert "Traceback" not in errlog.read_text()
