"""``hermes mcp proxy`` as a real subprocess, driven by the raw ``mcp`` SDK client, in front of
real servers: server-everything, server-filesystem, a 2026-07-28-only server and the test
upstream (tests/servers/proxy_upstream.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from hermes_core.host.host import MCPHost
from hermes_core.host.server_spec import HostServer
from hermes_core.serve.proxy.downstream import DownstreamElicitor
from hermes_core.serve.proxy.sampling import DownstreamSampler
from support.cli import run_hermes
from support.proxy import (
    MODERN,
    UPSTREAM,
    http_session,
    proxy_session,
    start_http,
    text_of,
    write_config,
)

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

PROFILES = """
proxy:
  profiles:
    readers:
      servers: [files, up]
      tools:
        include: ["mcp_files_*", "mcp_up_peek"]
        exclude: ["mcp_files_write_*", "mcp_files_edit_*"]
"""


@pytest.mark.node
def test_the_proxy_offers_the_hosts_tools_and_calls_them_through_the_host(
    tmp_path: Path,
) -> None:
    write_config(tmp_path)
    import sys

    from servers.reference import EVERYTHING, FILESYSTEM, node

    async def direct() -> set[str]:
        servers = [
            HostServer("everything", command=node(), args=[str(EVERYTHING), "stdio"]),
            HostServer("files", command=node(), args=[str(FILESYSTEM), str(tmp_path / "files")]),
            HostServer("modern", command=sys.executable, args=[str(MODERN)]),
            HostServer("up", command=sys.executable, args=[str(UPSTREAM)]),
        ]
        # The proxy's host can ask and sample (through the downstream client), so servers
        # offer their asking and sampling tools.
        elicitor = DownstreamElicitor()
        router = DownstreamSampler(elicitor)
        async with MCPHost(servers, elicitor=elicitor, sampling_router=router) as host:
            return {entry.name for entry in host.tools()}

    async def scenario() -> None:
        async with proxy_session(tmp_path) as session:
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert set(tools) == await direct()
            assert "mcp_everything_get_annotated_message" in tools
            assert tools["mcp_up_peek"].annotations.read_only_hint is True
            echoed = await session.call_tool("mcp_everything_echo", {"message": "héllo"})
            assert text_of(echoed) == "Echo: héllo"
            read = await session.call_tool(
                "mcp_files_read_text_file", {"path": str(tmp_path / "files" / "hello.txt")}
            )
            assert "hello from the filesystem" in text_of(read)
            modern = await session.call_tool("mcp_modern_echo", {"text": "2026"})
            assert text_of(modern) == "2026" and not modern.is_error
            # Nothing a server sends reaches the client unsanitised.
            shouted = text_of(await session.call_tool("mcp_up_shout", {}))
            assert "\U000e0041" not in shouted and "\x1b" not in shouted
            # A server's bare name is no way in.
            bare = await session.call_tool("echo", {"message": "x"})
            assert bare.is_error and "unknown tool" in text_of(bare)
            # Prompts and resources, namespaced as the tools are.
            prompts = {p.name for p in (await session.list_prompts()).prompts}
            assert "mcp_everything_simple-prompt" in prompts
            got = await session.get_prompt("mcp_everything_simple-prompt")
            assert got.messages
            resources = (await session.list_resources()).resources
            ours = [r for r in resources if str(r.uri).startswith("hermes://everything/")]
            assert ours and all(r.name.startswith("mcp_everything_") for r in ours)
            content = await session.read_resource(ours[0].uri)
            assert content.contents and str(content.contents[0].uri) == str(ours[0].uri)

    asyncio.run(scenario())


def test_a_profile_narrows_and_a_hidden_tool_cannot_be_called(tmp_path: Path) -> None:
    import sys

    servers = {
        "files": {"command": "node", "enabled": False},
        "up": {"command": sys.executable, "args": [str(UPSTREAM)]},
    }
    write_config(tmp_path, servers=servers, extra=PROFILES)

    async def scenario() -> None:
        async with proxy_session(tmp_path, "--profile", "readers") as session:
            names = {t.name for t in (await session.list_tools()).tools}
            assert names == {"mcp_up_peek"}
            hidden = await session.call_tool("mcp_up_note", {"text": "x"})
            assert hidden.is_error and "unknown tool 'mcp_up_note'" in text_of(hidden)
            assert text_of(await session.call_tool("mcp_up_peek", {})) == "peeked"

    asyncio.run(scenario())


def test_an_unknown_profile_or_key_is_exit_2_at_file_and_line(tmp_path: Path) -> None:
    write_config(
        tmp_path, servers={"files": {"command": "true"}, "up": {"command": "true"}}, extra=PROFILES
    )
    env = {"HERMES_HOME": str(tmp_path)}
    done = run_hermes("mcp", "proxy", "--profile", "reader", env=env)
    assert done.returncode == 2
    assert f"{tmp_path / 'config.yaml'}:8: proxy.profiles: no proxy profile named 'reader'" in (
        done.stderr
    )
    assert "did you mean 'readers'?" in done.stderr and "Traceback" not in done.stderr
    write_config(
        tmp_path,
        servers={"up": {"command": "true"}},
        extra="proxy:\n  profiles:\n    a:\n      server: [up]\n",
    )
    done = run_hermes("mcp", "proxy", "--profile", "a", env=env)
    assert done.returncode == 2
    assert ":7: proxy.profiles.a.server: unknown key (did you mean 'servers'?)" in done.stderr
    write_config(
        tmp_path,
        servers={"up": {"command": "true"}},
        extra="proxy:\n  profiles:\n    a:\n      servers: [upp]\n",
    )
    done = run_hermes("mcp", "proxy", "--profile", "a", env=env)
    assert done.returncode == 2 and "no server named 'upp' in mcp_servers" in done.stderr


def test_list_changed_progress_and_cancel_are_forwarded(tmp_path: Path) -> None:
    import sys

    write_config(
        tmp_path,
        servers={
            "modern": {"command": sys.executable, "args": [str(MODERN)]},
            "up": {"command": sys.executable, "args": [str(UPSTREAM)]},
        },
    )
    changed = asyncio.Event()
    progressed = asyncio.Event()
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/tools/list_changed":
            changed.set()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))
        progressed.set()

    logged = asyncio.Event()
    logs: list[Any] = []

    async def on_log(params: Any) -> None:
        logs.append(params)
        if "chatter" in params.data:
            logged.set()

    async def scenario() -> None:
        async with proxy_session(
            tmp_path, message_handler=on_message, logging_callback=on_log
        ) as session:
            before = {t.name for t in (await session.list_tools()).tools}
            assert "mcp_modern_grown" not in before
            await session.call_tool("mcp_modern_grow", {})
            await asyncio.wait_for(changed.wait(), 60)
            after = {t.name for t in (await session.list_tools()).tools}
            assert "mcp_modern_grown" in after
            # Progress reaches the caller; cancelling the call cancels the upstream one.
            call = asyncio.ensure_future(
                session.call_tool("mcp_up_hang", {}, progress_callback=on_progress)
            )
            await asyncio.wait_for(progressed.wait(), 60)
            assert seen[0] == (1.0, 2.0, "waiting")
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            told = await session.call_tool("mcp_up_cancelled", {})
            assert text_of(told) == "cancelled 1"
            # An upstream log message reaches the client, cleaned, under mcp_<server>.
            assert text_of(await session.call_tool("mcp_up_chatter", {})) == "chattered"
            await asyncio.wait_for(logged.wait(), 60)
            (chatter,) = [log for log in logs if "chatter" in log.data]
            assert chatter.logger == "mcp_up" and chatter.level == "info"
            assert "\x1b" not in chatter.data

    asyncio.run(scenario())


def _approval_config(tmp_path: Path) -> None:
    import sys

    write_config(
        tmp_path,
        servers={"up": {"command": sys.executable, "args": [str(UPSTREAM)], "trust": "untrusted"}},
    )


def test_an_untrusted_write_is_approved_downstream_and_fails_closed_without_it(
    tmp_path: Path,
) -> None:
    _approval_config(tmp_path)
    asked: list[str] = []

    async def approve(context: Any, params: Any) -> Any:
        from mcp.types import ElicitResult

        asked.append(params.message)
        if "Which colour" in params.message:
            return ElicitResult(action="accept", content={"colour": "teal"})
        return ElicitResult(action="accept", content={})

    async def with_elicitation() -> None:
        async with proxy_session(tmp_path, elicitation_callback=approve) as session:
            ran = await session.call_tool("mcp_up_note", {"text": "hi"})
            assert text_of(ran) == "noted hi", text_of(ran)
            assert len(asked) == 1 and "untrusted" in asked[0] and "'note'" in asked[0]
            assert text_of(await session.call_tool("mcp_up_peek", {})) == "peeked"
            assert len(asked) == 1  # a read-only tool is not asked about
            # An upstream server's own question goes to the downstream client too.
            colour = await session.call_tool("mcp_up_ask", {})
            assert text_of(colour) == "colour teal"

    async def without() -> None:
        async with proxy_session(tmp_path) as session:
            refused = await session.call_tool("mcp_up_note", {"text": "hi"})
            assert refused.is_error and "was NOT run" in text_of(refused)
            assert text_of(await session.call_tool("mcp_up_ask", {})) == "no colour (decline)"

    asyncio.run(with_elicitation())
    asyncio.run(without())


@pytest.mark.network
def test_http_a_token_per_profile_and_none_without_one(tmp_path: Path) -> None:
    import sys
    import urllib.error
    import urllib.request

    from servers.net import free_port, stop, wait_for_port

    token = "readers-token-0123456789"
    profiles = PROFILES.replace("      servers: [files, up]\n", "      servers: [up]\n")
    profiles += "      token: ${READERS_TOKEN}\n"
    write_config(
        tmp_path,
        servers={"up": {"command": sys.executable, "args": [str(UPSTREAM)]}},
        extra=profiles,
    )
    (tmp_path / ".env").write_text(f"READERS_TOKEN={token}\n")
    port = free_port()
    proc = start_http(tmp_path, port)
    try:
        wait_for_port(port, 60)
        main = (tmp_path / "proxy-token").read_text().strip()
        assert oct((tmp_path / "proxy-token").stat().st_mode & 0o777) == "0o600"
        url = f"http://127.0.0.1:{port}/mcp"

        def status(bearer: str | None) -> int:
            request = urllib.request.Request(url, method="POST", data=b"{}")
            if bearer:
                request.add_header("Authorization", f"Bearer {bearer}")
            try:
                with urllib.request.urlopen(request, timeout=30) as answer:
                    return int(answer.status)
            except urllib.error.HTTPError as exc:
                return exc.code

        assert status(None) == 401 and status("wrong") == 401 and status(token + "x") == 401
        printed = (tmp_path / "proxy.err").read_text()
        assert "profiles: (all), readers" in printed and token not in printed

        async def scenario() -> None:
            async with http_session(url, main) as session:
                names = {t.name for t in (await session.list_tools()).tools}
                assert {"mcp_up_note", "mcp_up_peek", "mcp_up_hang"} <= names
                assert text_of(await session.call_tool("mcp_up_note", {"text": "a"})) == "noted a"
            async with http_session(url, token) as session:
                names = {t.name for t in (await session.list_tools()).tools}
                assert names == {"mcp_up_peek"}
                hidden = await session.call_tool("mcp_up_note", {"text": "a"})
                assert hidden.is_error and "unknown tool" in text_of(hidden)

        asyncio.run(scenario())
    finally:
        stop(proc)


def test_a_server_that_fails_costs_only_its_own_tools(tmp_path: Path) -> None:
    import sys

    write_config(
        tmp_path,
        servers={
            "up": {"command": sys.executable, "args": [str(UPSTREAM)]},
            "broken": {"command": sys.executable, "args": ["-c", "raise SystemExit(3)"]},
        },
    )

    errlog = tmp_path / "proxy.err"

    async def scenario() -> None:
        async with proxy_session(tmp_path, errlog=errlog) as session:
            names = {t.name for t in (await session.list_tools()).tools}
            assert "mcp_up_peek" in names
            assert not any(name.startswith("mcp_broken_") for name in names)
            assert text_of(await session.call_tool("mcp_up_peek", {})) == "peeked"
            gone = await session.call_tool("mcp_broken_anything", {})
            assert gone.is_error and "unknown tool" in text_of(gone)

    asyncio.run(scenario())
    # The client sees only that the tools are missing: the proxy's stderr says why.
    said = errlog.read_text()
    assert "hermes mcp proxy: server 'broken' offers no tools: " in said, said
    assert "hermes mcp proxy: 1 of 2 servers offer their tools" in said


def test_sigterm_ends_the_proxy_cleanly_and_no_audit_line_is_lost(tmp_path: Path) -> None:
    """The audit lines wait off the call's path; ``SIGTERM`` still writes them (the host is
    closed as on a clean exit)."""
    import json
    import signal
    import subprocess
    import sys

    from hermes_core.host.calls.audit import read_audit
    from support.proxy import proxy_argv, proxy_env

    write_config(tmp_path, servers={"up": {"command": sys.executable, "args": [str(UPSTREAM)]}})
    proc = subprocess.Popen(
        proxy_argv(),
        env=proxy_env(tmp_path),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    reply = proc.stdout

    def send(message: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        proc.stdin.flush()

    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
        hello["clientInfo"] = {"name": "t", "version": "1"}
        send({"id": 1, "method": "initialize", "params": hello})
        assert json.loads(reply.readline())["id"] == 1
        send({"method": "notifications/initialized"})
        for index in range(2, 5):
            send({"id": index, "method": "tools/call", "params": {"name": "mcp_up_peek"}})
        answers = [json.loads(reply.readline()) for _ in range(3)]
        assert all(a["result"]["content"][0]["text"] == "peeked" for a in answers), answers
        proc.send_signal(signal.SIGTERM)  # at once: the lines are still waiting
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()  # (closes the pipes)
    tools = [r["tool"] for r in read_audit(tmp_path)]
    assert tools == ["peek"] * 3, tools
