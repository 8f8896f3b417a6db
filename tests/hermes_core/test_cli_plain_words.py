"""What the CLI says when something goes wrong, and the flags people bring from other clients,
run as a user runs them: a crashed Node server's error line kept in front of its stack, a
refused port said in words (never an exception's class name), Claude Code's ``-s/--scope``,
an existing name naming ``--replace``, and ``hermes --profile NAME`` as the value an
``identity_header`` with ``value_from: profile`` sends."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from hermes_core.host.connection.network_words import network_words
from hermes_core.host.connection.stderr_tail import tail_lines
from servers.net import PORT, free_port, http_server
from servers.reference import node
from support.cli import run_hermes

HEADERS = Path(__file__).parents[1] / "servers" / "headers_server.py"

NODE_CRASH = [
    "node:internal/modules/cjs/loader:1210",
    "  throw err;",
    "  ^",
    "",
    "Error: Cannot find module '/x.js'",
    *[f"    at frame{i} (node:internal/x:{i})" for i in range(6)],
    "  code: 'MODULE_NOT_FOUND',",
    "}",
    "",
    "Node.js v20.20.2",
]


def hermes(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_hermes(*args, env={"HERMES_HOME": str(home), **env})


def test_the_error_line_goes_first_when_the_tail_would_cut_it() -> None:
    shown = tail_lines(NODE_CRASH, 8)
    assert shown[:2] == ["Error: Cannot find module '/x.js'", "…"]
    assert shown[-1] == "Node.js v20.20.2" and len(shown) == 10
    python = ["Traceback (most recent call last):", '  File "x.py"', "ImportError: no x"]
    assert tail_lines(python, 8) == python  # in the tail already: as it is


def test_network_failures_in_words() -> None:
    unresolved = httpx2.ConnectError("[Errno -2] Name or service not known")
    unresolved.__cause__ = socket.gaierror(-2, "Name or service not known")
    assert network_words(unresolved) == "the host name did not resolve (Name or service not known)"
    refused = httpx2.ConnectError("All connection attempts failed")
    refused.__context__ = ConnectionRefusedError(111, "Connection refused")
    assert network_words(refused) == "the connection was refused (nothing listens on that port)"
    assert network_words(httpx2.ConnectTimeout("")) == "timed out"
    bare = network_words(httpx2.ConnectError("All connection attempts failed"))
    assert bare == "the connection failed (refused, unreachable or dropped)"


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.node
def test_a_crashed_server_and_a_refused_port_say_why(tmp_path: Path) -> None:
    port = free_port()  # nothing listens on it
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n"
        f"  broken: {{command: {node()}, args: [{str(tmp_path / 'x.js')!r}]}}\n"
        f"  refused: {{url: 'http://127.0.0.1:{port}/mcp'}}\n"
    )
    status = hermes(tmp_path, "mcp", "status")
    assert status.returncode == 1
    lines = status.stdout.splitlines()
    at = lines.index("    Error: Cannot find module '" + str(tmp_path / "x.js") + "'")
    assert lines[at + 1] == "    …"  # then the tail
    assert f"cannot connect to http://127.0.0.1:{port}/mcp: the connection was refused" in (
        status.stdout
    )
    assert "All connection attempts failed" not in status.stdout + status.stderr
    assert "ConnectError" not in status.stdout + status.stderr


@pytest.mark.process
@pytest.mark.cli
def test_scope_and_an_existing_name(tmp_path: Path) -> None:
    project = hermes(tmp_path, "mcp", "add", "-s", "project", "x", "--", "npx", "y")
    assert project.returncode == 2
    (line,) = project.stderr.splitlines()
    assert line.startswith("error: --scope project: Hermes keeps no per-project server file")
    assert "hermes mcp import claude-code" in line
    local = hermes(tmp_path, "mcp", "add", "--scope", "local", "x", "--", "npx", "y")
    assert local.returncode == 2 and "per-directory" in local.stderr
    assert not (tmp_path / "config.yaml").exists()  # nothing written
    user = hermes(tmp_path, "mcp", "add", "-s", "user", "--no-probe", "x", "--", "npx", "y")
    assert user.returncode == 0, user.stderr
    again = hermes(tmp_path, "mcp", "add", "--no-probe", "x", "--", "npx", "z")
    assert again.returncode == 2
    assert "mcp_servers.x already exists: add --replace to overwrite it" in again.stderr
    unknown = hermes(tmp_path, "mcp", "add", "--bogus", "x", "--", "npx", "y")
    assert unknown.returncode == 2 and "go after `--`" not in unknown.stderr


@pytest.mark.process
@pytest.mark.cli
def test_profile_is_what_identity_header_value_from_profile_sends(tmp_path: Path) -> None:
    with http_server([sys.executable, str(HEADERS), PORT]) as url:
        (tmp_path / "config.yaml").write_text(
            "mcp_servers:\n"
            f"  h:\n    url: {url}\n"
            "    identity_header: {name: X-Hermes-User, value_from: profile}\n"
        )
        alice = hermes(tmp_path, "--profile", "alice", "mcp", "call", "mcp_h_headers_seen")
        by_env = hermes(tmp_path, "mcp", "call", "mcp_h_headers_seen", HERMES_PROFILE="bob")
        unset = hermes(tmp_path, "mcp", "call", "mcp_h_headers_seen")
    assert alice.returncode == 0, alice.stderr
    assert "x-hermes-user: alice" in alice.stdout.splitlines()
    assert "x-hermes-user: bob" in by_env.stdout.splitlines()
    assert "x-hermes-user: default" in unset.stdout.splitlines()
    bad = hermes(tmp_path, "--profile", "a\nb", "mcp", "list")
    assert bad.returncode == 2 and "a profile is 1-64 letters" in bad.stderr
