"""Resource bounds against hostile servers: messages, stdout garbage, process groups.

Each server here sends without end (a stdio line, a JSON body, an SSE event) or misbehaves
on stdout; the host must fail that server with a clear reason while its own memory stays
bounded, and leave no process of the server behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_core.host.connection.server_log import MAX_CHARS, MAX_LINES, ServerLog
from hermes_core.host.transports.stdio import LineFramer, MessageTooLarge
from servers.net import free_port, wait_for_port
from support.cli import run_hermes
from support.home import clean_env

SERVERS = Path(__file__).parents[1] / "servers"
HOSTILE = SERVERS / "hostile_server.py"
LIMIT = 1024 * 1024
MEMORY_BOUND_KB = 400 * 1024  # the CLI process, everything included


def peak_of_cli(home: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], int]:
    """Run the CLI in a fresh parent and return its result and peak RSS (KiB)."""
    script = (
        "import json, resource, subprocess, sys\n"
        "r = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=300)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(json.dumps([r.returncode, r.stdout, r.stderr, peak]))\n"
    )
    base = clean_env(os.environ)
    outer = subprocess.run(
        [sys.executable, "-c", script, sys.executable, "-m", "hermes_core", *args],
        capture_output=True,
        text=True,
        env={**base, "HERMES_HOME": str(home)},
        timeout=320,
    )
    code, out, err, peak = json.loads(outer.stdout)
    return subprocess.CompletedProcess(args, code, out, err), int(peak)


def stdio_home(tmp_path: Path, **env: str) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    lines = ["mcp_servers:", "  evil:", f"    command: {sys.executable}"]
    lines += [f"    args: [{str(HOSTILE)!r}]", f"    max_message_bytes: {LIMIT}", "    env:"]
    lines += [f"      {k}: {v!r}" for k, v in {"HOSTILE_FLOOD": "1", **env}.items()]
    (home / "config.yaml").write_text("\n".join(lines) + "\n")
    return home


@pytest.mark.process
@pytest.mark.slow
def test_an_endless_stdio_line_fails_the_server_with_bounded_memory(tmp_path: Path) -> None:
    result, peak = peak_of_cli(stdio_home(tmp_path), "mcp", "call", "--json", "mcp_evil_flood")
    assert result.returncode == 1, result.stderr
    error = json.loads(result.stdout)["error"]
    assert f"the server sent a message larger than max_message_bytes ({LIMIT} bytes)" in error
    assert "Traceback" not in result.stderr
    assert peak < MEMORY_BOUND_KB


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_garbage_on_stdout_and_bogus_notifications_are_one_warning_each(tmp_path: Path) -> None:
    result = run_hermes(
        "mcp", "call", "--json", "mcp_evil_garbage", env={"HERMES_HOME": str(stdio_home(tmp_path))}
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["content"][0]["text"] == "after garbage"
    assert "Traceback" not in result.stderr
    warnings = [line for line in result.stderr.splitlines() if "MCP server 'evil'" in line]
    assert any("not JSON-RPC" in line for line in warnings)
    assert any("invalid 'notifications/progress' notification" in line for line in warnings)
    assert len(warnings) <= 6  # 400 bad lines: rate-limited, not one line each


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_a_grandchild_does_not_outlive_the_host(tmp_path: Path) -> None:
    marker = tmp_path / "grandchild.pid"
    home = stdio_home(tmp_path, HOSTILE_PID_FILE=str(marker))
    result = run_hermes("mcp", "call", "--json", "mcp_evil_spawn", env={"HERMES_HOME": str(home)})
    assert result.returncode == 0, result.stderr
    pid = int(marker.read_text())
    deadline = time.monotonic() + 30  # the kill is done when the CLI exits; reaping is async
    while Path(f"/proc/{pid}").exists() and _state(pid) != "Z":
        assert time.monotonic() < deadline, f"grandchild {pid} is still running"
        time.sleep(0.05)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "gone"


@pytest.fixture
def http_server(request: pytest.FixtureRequest) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(SERVERS / "hostile_http.py"), str(port), request.param]
    )
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait()


@pytest.mark.process
@pytest.mark.network
@pytest.mark.slow
@pytest.mark.parametrize(
    "http_server", ["endless-json", "huge-length", "endless-sse", "endless-line"], indirect=True
)
def test_an_endless_http_answer_fails_the_server_with_bounded_memory(
    tmp_path: Path, http_server: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        f"mcp_servers:\n  evil:\n    url: {http_server}\n    max_message_bytes: {LIMIT}\n"
        "    connect_timeout: 120\n"
    )
    result, peak = peak_of_cli(home, "mcp", "status", "--json")
    assert result.returncode == 1, result.stderr
    (row,) = json.loads(result.stdout)
    assert row["connection"] == "failed"
    assert "max_message_bytes" in row["last_error"]
    assert f"{LIMIT} byte" in row["last_error"]
    assert "Traceback" not in result.stderr  # no reader left for the event loop to finalise
    assert peak < MEMORY_BOUND_KB


@pytest.mark.process
@pytest.mark.cli
def test_max_message_bytes_is_validated(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        "mcp_servers:\n  s:\n    command: x\n    max_message_bytes: 0\n"
    )
    result = run_hermes("mcp", "list", env={"HERMES_HOME": str(home)})
    assert result.returncode == 2
    assert "mcp_servers.s.max_message_bytes: must be between 4096 and" in result.stderr


def test_the_line_framer_is_linear_and_bounded() -> None:
    framer = LineFramer(10)
    assert framer.feed(b"ab") == []
    assert framer.feed(b"c\nde\n\nf") == [b"abc", b"de", b""]
    with pytest.raises(MessageTooLarge):
        framer.feed(b"0123456789")
    big = LineFramer(64 * 1024 * 1024)
    chunk = b"x" * 65536
    for _ in range(256):  # 16 MiB in one line: each chunk is searched once
        assert big.feed(chunk) == []
    assert big.feed(b"\n") == [b"x" * (65536 * 256)]


def test_the_server_log_keeps_a_bounded_tail() -> None:
    log = ServerLog()
    log.write("y" * 50_000_000 + "\n")
    for number in range(MAX_LINES * 3):
        log.write(f"line {number}\n")
    mark = log.seek(0, 2)
    log.write("HTTP 500 after the mark\n")
    log.seek(mark)
    assert log.read() == "HTTP 500 after the mark\n"
    log.seek(0)
    text = log.read()
    assert len(text) <= MAX_CHARS and text.count("\n") <= MAX_LINES
    assert text.endswith(f"line {MAX_LINES * 3 - 1}\nHTTP 500 after the mark\n")


@pytest.mark.process
@pytest.mark.slow
def test_a_tools_list_changed_storm_is_coalesced() -> None:
    import asyncio

    from hermes_core.host.host import HostServer, MCPHost

    async def scenario() -> None:
        spec = HostServer(
            "evil", command=sys.executable, args=[str(HOSTILE)], env={"HOSTILE_FLOOD": "1"}
        )
        async with MCPHost([spec]) as host:
            before = await host.call_tool("mcp_evil_lists")
            assert (await host.call_tool("mcp_evil_storm"))["content"][0]["text"] == "stormed"
            connection = host._connections["evil"]
            worker = connection._tools_worker
            assert worker is not None
            await worker  # every re-list the storm caused is over
            after = await host.call_tool("mcp_evil_lists")
            relists = int(after["content"][0]["text"]) - int(before["content"][0]["text"])
            assert 1 <= relists <= 4, relists  # 500 notifications, a handful of re-lists

    asyncio.run(scenario())


def _big_answer(text_json: bytes) -> bytes:
    """A JSON-RPC answer over 64 KiB (read the careful way) whose text is *text_json*."""
    pad = b"x" * 70_000
    return (
        b'{"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "'
        + pad
        + text_json
        + b'"}]}}'
    )


def _text_of(line: bytes) -> str | None:
    from hermes_core.host.connection.server_warnings import ServerWarnings
    from hermes_core.host.transports.stdio import parse_message

    message = parse_message(line, ServerWarnings("t"))
    if message is None:
        return None
    return str(message.message.result["content"][0]["text"])


def test_a_large_answer_with_bad_bytes_or_a_lone_surrogate_is_still_read() -> None:
    """A large line is parsed from its bytes; what that parser refuses (bytes that are not
    UTF-8, a lone surrogate escape) is read as before: bad bytes replaced, the escape kept."""
    text = _text_of(_big_answer(b"caf\xe9 \\ud800 ok"))
    assert text is not None and text.endswith("caf\ufffd \ud800 ok")
    assert _text_of(_big_answer(b"plain")) == "x" * 70_000 + "plain"
    assert _text_of(b"   " + _big_answer(b"spaced") + b"  \r") is not None
    assert _text_of(b"{" * 70_000) is None  # garbage: dropped (with a warning)
