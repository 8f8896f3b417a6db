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
    done = run_hermes("mcp", "serve", "--http", "--port", "1", env=serve_env(tmp_path))
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
                [sys.executable, *args], env=serve_env(tmp_path), stderr=err, stdout=subprocess.DEVNULL
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
