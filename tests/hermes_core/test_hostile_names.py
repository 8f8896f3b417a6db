"""Tool identity against hostile servers: no server takes another's tool name, none vanishes.

Server ``my`` publishing ``api_echo`` sanitises to the same ``mcp_my_api_echo`` as server
``my-api``'s ``echo``; a server tool named ``list_resources`` collides with the host's utility
tool of that name.  Names are assigned over the whole registry, independent of order.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from hermes_core.host.host import HostServer, MCPHost
from support.cli import hermes_at as hermes

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

HOSTILE = Path(__file__).parents[1] / "servers" / "hostile_server.py"


def server_yaml(name: str, **env: str) -> str:
    lines = [f"  {name}:", f"    command: {sys.executable}", f"    args: [{str(HOSTILE)!r}]"]
    lines += ["    tools:", "      include: [echo, api_echo, list_resources]"]
    if env:
        lines.append("    env:")
        lines += [f"      {key}: {value!r}" for key, value in env.items()]
    return "\n".join(lines) + "\n"


def hijack_home(tmp_path: Path, reverse: bool = False) -> Path:
    home = tmp_path / ("reverse" if reverse else "home")
    home.mkdir()
    servers = [
        server_yaml("my", HOSTILE_EXTRA_TOOLS="api_echo", HOSTILE_ID="my"),
        server_yaml("my-api"),
    ]
    if reverse:
        servers.reverse()
    (home / "config.yaml").write_text("mcp_servers:\n" + "".join(servers))
    return home


def test_a_server_cannot_hijack_another_servers_tool_name(tmp_path: Path) -> None:
    home = hijack_home(tmp_path)
    listed = hermes(home, "mcp", "tools", "--json")
    assert listed.returncode == 0, listed.stderr
    entries = {(e["server"], e["tool"]): e["name"] for e in json.loads(listed.stdout)}
    assert "mcp_my_api_echo" not in entries.values()  # neither server holds the contested name
    mine, theirs = entries[("my", "api_echo")], entries[("my-api", "echo")]
    assert mine != theirs

    echoed = hermes(home, "mcp", "call", "--json", theirs, "--args", '{"text": "for my-api"}')
    assert echoed.returncode == 0, echoed.stderr
    assert json.loads(echoed.stdout)["content"][0]["text"] == "for my-api"
    hijacker = hermes(home, "mcp", "call", "--json", mine)
    assert json.loads(hijacker.stdout)["content"][0]["text"] == "api_echo from my"
    gone = hermes(home, "mcp", "call", "--json", "mcp_my_api_echo", "--args", '{"text": "x"}')
    assert gone.returncode == 1
    assert "unknown tool 'mcp_my_api_echo'" in gone.stdout

    # Same names whichever server is configured (and so connects) first.
    reverse = hermes(hijack_home(tmp_path, reverse=True), "mcp", "tools", "--json")
    assert {(e["server"], e["tool"]): e["name"] for e in json.loads(reverse.stdout)} == entries

    status = hermes(home, "mcp", "status", "--json")
    rows = {row["server"]: row for row in json.loads(status.stdout)}
    for server in ("my", "my-api"):
        (collision,) = rows[server]["name_collisions"]
        assert "mcp_my_api_echo" in collision and mine in collision and theirs in collision
    text = hermes(home, "mcp", "status")
    assert text.stdout.count("tool name collision on 'mcp_my_api_echo'") == 2


def test_a_server_tool_named_like_a_utility_tool_does_not_vanish(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        "mcp_servers:\n"
        + server_yaml(
            "res", HOSTILE_EXTRA_TOOLS="list_resources", HOSTILE_RESOURCES="1", HOSTILE_ID="res"
        )
    )
    listed = hermes(home, "mcp", "tools", "--json")
    assert listed.returncode == 0, listed.stderr
    entries = json.loads(listed.stdout)
    own = [e for e in entries if e["tool"] == "list_resources" and not e["utility"]]
    utility = [e for e in entries if e["tool"] == "list_resources" and e["utility"]]
    assert [e["name"] for e in own] == ["mcp_res_list_resources"]
    assert len(utility) == 1 and utility[0]["name"].startswith("mcp_res_list_resources_")

    from_server = hermes(home, "mcp", "call", "--json", "mcp_res_list_resources")
    assert json.loads(from_server.stdout)["content"][0]["text"] == "list_resources from res"
    from_host = hermes(home, "mcp", "call", "--json", utility[0]["name"])
    listed = json.loads(from_host.stdout)["structuredContent"]["resources"]
    assert listed[0]["uri"] == "hostile://one"
    status = json.loads(hermes(home, "mcp", "status", "--json").stdout)
    assert "(utility)" in status[0]["name_collisions"][0]


def test_names_return_when_the_colliding_server_is_removed() -> None:
    def spec(name: str, extra: str = "") -> HostServer:
        env = {"HOSTILE_EXTRA_TOOLS": extra} if extra else {}
        return HostServer(
            name, command=sys.executable, args=[str(HOSTILE)], env=env, include=("echo", extra)
        )

    async def scenario() -> None:
        async with MCPHost([spec("my-api"), spec("my", "api_echo")]) as host:
            names = {(e.server, e.tool): e.name for e in host.tools()}
            assert "mcp_my_api_echo" not in names.values()
            assert len(host.collisions) == 1
            await host.reload([spec("my-api")])
            assert {e.name for e in host.tools()} == {"mcp_my_api_echo"}
            assert host.collisions == []
            assert host.status()[0].name_collisions == []

    asyncio.run(scenario())
