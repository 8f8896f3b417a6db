"""Starting N servers does work linear in N: counted, never timed (issue 14, startup).

Every server that connects re-applies the registry's names over all servers (the names depend
on the whole set of tools).  Each listing's plain names are computed once and, with no
collision, a server whose listing is unchanged keeps its entries: these tests count what the
host computes while starting several server-everything servers and check the outcome is the
one :func:`assign_names` gives over the whole set.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hermes_core.host.host import HostServer, MCPHost
from hermes_core.host.tools import registration as naming_module
from hermes_core.host.tools.naming import assign_names
from servers.reference import EVERYTHING, node

pytestmark = [pytest.mark.process, pytest.mark.node, pytest.mark.slow]

SERVERS = 6


def _everything(name: str, **extra: Any) -> HostServer:
    return HostServer(name, command=node(), args=[str(EVERYTHING), "stdio"], **extra)


def _count_names(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    named: list[tuple[str, str]] = []
    real = naming_module.registered_tool_name

    def counted(server: str, tool: str) -> str:
        named.append((server, tool))
        return real(server, tool)

    monkeypatch.setattr(naming_module, "registered_tool_name", counted)
    return named


def _names(tools: list[Any]) -> dict[tuple[str, str, bool], str]:
    return {(e.server, e.tool, e.utility): e.name for e in tools}


def _expected(tools: list[Any]) -> dict[tuple[str, str, bool], str]:
    assignment = assign_names(
        [(e.server, e.tool) for e in tools if not e.utility],
        [(e.server, e.tool) for e in tools if e.utility],
    )
    return {(a.server, a.tool, a.utility): a.name for a in assignment.entries}


def test_each_listing_is_named_once_while_n_servers_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    named = _count_names(monkeypatch)
    entries_built = 0
    real_entry = naming_module.ToolEntry

    def counted_entry(*args: Any, **kwargs: Any) -> Any:
        nonlocal entries_built
        entries_built += 1
        return real_entry(*args, **kwargs)

    monkeypatch.setattr(naming_module, "ToolEntry", counted_entry)

    async def scenario() -> None:
        servers = [_everything(f"every{i}") for i in range(SERVERS)]
        async with MCPHost(servers) as host:
            tools = host.tools()
            assert {e.server for e in tools} == {s.name for s in servers}
            assert len(tools) > 5 * SERVERS
            # One plain name and one entry per tool (once more for a server whose second
            # listing really changed something), never one per tool per server that connected
            # after it (the whole set renamed on every connection: 21 times the tools' names
            # for six servers).
            assert set(named) == {(e.server, e.tool) for e in tools}
            assert len(named) <= 2 * len(tools)
            assert len(tools) <= entries_built <= 2 * len(tools)
            assert _names(tools) == _expected(tools)
            assert host.collisions == []

    asyncio.run(scenario())


def test_colliding_names_still_take_the_full_assignment() -> None:
    """Two servers whose names sanitise alike ("a-b" and "a_b") collide on every tool: the
    whole set is named by assign_names (suffixes, collisions listed) as before."""

    async def scenario() -> None:
        async with MCPHost([_everything("a-b"), _everything("a_b")]) as host:
            tools = host.tools()
            assert _names(tools) == _expected(tools)
            assert len(host.collisions) == len(tools) // 2 > 5
            assert "mcp_a_b_echo" not in {e.name for e in tools}  # suffixed on both servers

    asyncio.run(scenario())
