"""MCP roots (``roots:`` in config.yaml) against servers that really ask for them.

``asking_server.py`` (handshake era) sends ``roots/list`` from its ``roots`` tool and reports
whether the host advertised the capability; ``modern_asking_server.py`` (2026-07-28 only)
asks in an ``InputRequiredResult`` round; server-everything lists ``get-roots-list`` only to
a host that offers roots.  Everything goes through the real CLI except the one host-level
check of the 2026 round.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from hermes_core.host.host import HostServer, MCPHost
from hermes_core.offers.roots import Root
from servers.reference import EVERYTHING, node
from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

SERVERS = Path(__file__).parents[1] / "servers"
ASKING = str(SERVERS / "asking_server.py")
MODERN = str(SERVERS / "modern_asking_server.py")


def _entry(name: str, script: str, roots: str | None) -> str:
    text = (
        f"  {name}:\n    command: {json.dumps(sys.executable)}\n    args: [{json.dumps(script)}]\n"
    )
    return text + (f"    roots:\n{roots}" if roots else "")


def _said(proc: Any) -> str:
    assert proc.returncode == 0, proc.stderr
    return str(json.loads(proc.stdout)["content"][0]["text"])


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    (folder / "src").mkdir(parents=True)
    return folder


def test_a_handshake_era_server_receives_the_configured_roots(
    tmp_path: Path, workspace: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    roots = (
        '      - "${workspaceFolder}"\n'
        "      - path: src\n"
        "        name: Sources\n"
        '      - "${NOTES}/../notes"\n'
        "      - ~/docs\n"
    )
    (home / "config.yaml").write_text(
        "mcp_servers:\n" + _entry("asking", ASKING, roots) + _entry("plain", ASKING, None)
    )
    env = {"HERMES_HOME": str(home), "NOTES": "/srv/team", "HOME": str(tmp_path / "me")}
    said = json.loads(
        _said(run_hermes("mcp", "call", "--json", "mcp_asking_roots", env=env, cwd=workspace))
    )
    assert said == {
        "advertised": True,
        "roots": [
            {"uri": workspace.as_uri(), "name": None},
            {"uri": (workspace / "src").as_uri(), "name": "Sources"},
            {"uri": "file:///srv/notes", "name": None},
            {"uri": (tmp_path / "me" / "docs").as_uri(), "name": None},
        ],
    }
    # No roots: configured (the default): the capability is not advertised and a server that
    # asks anyway is refused with a clear message, not given the workspace.
    said = json.loads(
        _said(run_hermes("mcp", "call", "--json", "mcp_plain_roots", env=env, cwd=workspace))
    )
    assert said == {"advertised": False, "refused": "List roots not supported"}

    status = run_hermes("mcp", "status", "--json", env=env, cwd=workspace)
    rows = {row["server"]: row for row in json.loads(status.stdout)}
    assert rows["asking"]["roots"][1] == {
        "path": str(workspace / "src"),
        "uri": (workspace / "src").as_uri(),
        "name": "Sources",
    }
    assert rows["plain"]["roots"] is None
    text = run_hermes("mcp", "status", env=env, cwd=workspace).stdout
    assert f"roots: {workspace}, {workspace / 'src'} (Sources), /srv/notes, " in text
    assert text.count("roots:") == 1


def test_a_2026_server_gets_the_roots_in_an_input_required_round(
    tmp_path: Path, workspace: Path
) -> None:
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n" + _entry("modern", MODERN, '      - "${workspaceFolder}/src"\n')
    )
    proc = run_hermes(
        "mcp",
        "call",
        "--json",
        "mcp_modern_roots",
        env={"HERMES_HOME": str(tmp_path)},
        cwd=workspace,
    )
    assert json.loads(_said(proc)) == [(workspace / "src").as_uri()]

    async def scenario() -> None:
        root = Root(path="/data", uri="file:///data", name="Data")
        served = HostServer("m", command=sys.executable, args=[MODERN], roots=(root,))
        bare = HostServer("n", command=sys.executable, args=[MODERN])
        async with MCPHost([served, bare]) as host:
            result = await host.call_tool("mcp_m_roots")
            assert json.loads(result["content"][0]["text"]) == ["file:///data"]
            refused = await host.call_tool("mcp_n_roots")
            assert "List roots not supported" in str(refused["error"])

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("roots", "line", "message"),
    [
        ("    roots: /srv\n", 4, "roots: must be a list of folders"),
        ("    roots:\n      - /a\n      - 7\n", 6, "roots[1]: must be text (got a number)"),
        ("    roots:\n      - pth: /a\n", 5, "roots[0].pth: unknown key (did you mean 'path'?"),
        ("    roots:\n      - name: A\n", 5, "roots[0]: needs a 'path'"),
        ('    roots: [""]\n', 4, "roots[0]: must not be empty"),
        ("    rots: [/a]\n", 4, "rots: unknown key (did you mean 'roots'?)"),
    ],
)
def test_a_bad_roots_value_is_an_error_at_file_and_line(
    tmp_path: Path, roots: str, line: int, message: str
) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("mcp_servers:\n  s:\n    command: x\n" + roots)
    proc = run_hermes("mcp", "tools", env={"HERMES_HOME": str(tmp_path)})
    assert proc.returncode == 2, proc.stderr
    assert f"{config}:{line}: mcp_servers.s.{message}" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_an_unset_variable_in_roots_fails_that_server_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n" + _entry("asking", ASKING, "      - /a\n      - ${NO_SUCH_ROOT}\n")
    )
    proc = run_hermes("mcp", "status", env={"HERMES_HOME": str(tmp_path)})
    assert proc.returncode == 1
    assert "config.yaml:7: mcp_servers.asking.roots[1]: ${NO_SUCH_ROOT} is not set" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_server_everything_lists_and_reads_the_roots_only_when_offered(tmp_path: Path) -> None:
    entry = f"  ev:\n    command: {json.dumps(node())}\n    args: [{json.dumps(str(EVERYTHING))}]\n"
    config = tmp_path / "config.yaml"
    config.write_text("mcp_servers:\n" + entry)
    env = {"HERMES_HOME": str(tmp_path)}
    tools = run_hermes("mcp", "tools", env=env)
    assert tools.returncode == 0, tools.stderr
    assert "mcp_ev_echo" in tools.stdout
    assert "get_roots_list" not in tools.stdout  # registered only for a host offering roots
    config.write_text(
        "mcp_servers:\n" + entry + "    roots:\n      - path: /srv/app\n        name: App\n"
    )
    said = _said(run_hermes("mcp", "call", "--json", "mcp_ev_get_roots_list", env=env))
    assert "1. App\n   URI: file:///srv/app" in said


def test_export_says_roots_are_left_out(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("mcp_servers:\n  s:\n    command: x\n    roots: [/a]\n")
    proc = run_hermes(
        "mcp", "export", "--format", "claude-code", env={"HERMES_HOME": str(tmp_path)}
    )
    assert proc.returncode == 0, proc.stderr
    assert "s.roots: claude-code has no equivalent; left out" in proc.stderr
    assert "roots" not in proc.stdout
