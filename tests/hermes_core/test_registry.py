"""ToolRegistry: listing is a cached snapshot, kept equal to a full sort of the registry."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_core.host.tools.registry import ToolEntry, ToolRegistry


def entry(server: str, tool: str, name: str | None = None) -> ToolEntry:
    return ToolEntry(
        name=name or f"mcp_{server}_{tool}",
        server=server,
        tool=tool,
        description="",
        input_schema={"type": "object", "properties": {}},
        toolset=f"mcp-{server}",
    )


class Reference:
    """The registry as it was: a dict, sorted on every listing."""

    def __init__(self) -> None:
        self.tools: dict[str, ToolEntry] = {}

    def replace_server(self, server: str, entries: list[ToolEntry]) -> tuple[list[str], list[str]]:
        old = {n for n, e in self.tools.items() if e.server == server}
        new = {e.name for e in entries}
        for item in entries:
            self.tools[item.name] = item
        for name in old - new:
            del self.tools[name]
        return sorted(new - old), sorted(old - new)

    def entries(self, server: str | None = None) -> list[ToolEntry]:
        values = sorted(self.tools.values(), key=lambda e: e.name)
        return [e for e in values if server is None or e.server == server]


SERVERS = ["a", "a_b", "b", "my-api", "my_api"]
# Names shared across servers on purpose: "my-api" and "my_api" both register mcp_my_api_*.
_ENTRY = st.builds(
    lambda server, tool, shared: entry(server, tool, f"mcp_my_api_{tool}" if shared else None),
    st.sampled_from(SERVERS),
    st.sampled_from(["x", "y", "b_x", "z", "q"]),
    st.booleans(),
)
_OPS = st.lists(
    st.tuples(st.sampled_from(SERVERS), st.lists(_ENTRY, max_size=5)), min_size=1, max_size=12
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(_OPS)
def test_listings_match_a_full_sort_after_any_sequence_of_replacements(
    ops: list[tuple[str, list[ToolEntry]]],
) -> None:
    registry, reference = ToolRegistry(), Reference()
    for server, entries in ops:
        # Entries of a replacement belong to the server being replaced, as the host sends them.
        entries = [entry(server, e.tool, e.name.replace(e.server, server, 1)) for e in entries]
        assert registry.replace_server(server, entries) == reference.replace_server(server, entries)
        assert registry.entries() == reference.entries()
        for name in SERVERS:
            assert registry.entries(name) == reference.entries(name)
        assert registry.names() == set(reference.tools)
        for name, item in reference.tools.items():
            assert registry.get(name) is item


def test_a_name_taken_over_by_another_server_moves_to_it() -> None:
    registry, reference = ToolRegistry(), Reference()
    for target in (registry, reference):
        target.replace_server("my-api", [entry("my-api", "q", "mcp_my_api_q")])
        target.replace_server("my_api", [entry("my_api", "q", "mcp_my_api_q")])
    assert registry.entries("my-api") == reference.entries("my-api") == []
    assert [e.server for e in registry.entries()] == ["my_api"]
    assert registry.drop_server("my-api") == reference.replace_server("my-api", [])[1] == []
    assert registry.drop_server("my_api") == ["mcp_my_api_q"]
    assert registry.entries() == []


def test_an_unchanged_registry_is_listed_from_the_same_snapshot() -> None:
    registry = ToolRegistry()
    registry.replace_server("b", [entry("b", f"t{i:04}") for i in range(3_300)])
    registry.replace_server("a", [entry("a", "only")])
    first = registry.snapshot()
    b_run = registry.snapshot("b")
    assert registry.snapshot() is first  # no sort, no copy while nothing changed
    assert registry.snapshot("b") is registry.snapshot("b")
    assert [e.name for e in first] == sorted(e.name for e in first)
    registry.replace_server("a", [entry("a", "other")])
    assert registry.snapshot() is not first
    assert registry.snapshot("b") is b_run  # another server's change leaves b's run alone
    assert registry.snapshot() == (entry("a", "other"), *b_run)
    assert registry.toolsets()["mcp-a"] == ["mcp_a_other"]


def test_listing_while_another_thread_replaces_a_server_never_sees_a_half_change() -> None:
    registry = ToolRegistry()
    registry.replace_server("steady", [entry("steady", f"s{i}") for i in range(50)])
    one = [entry("flip", f"t{i}") for i in range(0, 200, 2)]
    two = [entry("flip", f"t{i}") for i in range(1, 200, 3)]
    steady = [e.name for e in registry.entries("steady")]
    allowed = {
        tuple(sorted(steady + [e.name for e in one])),
        tuple(sorted(steady + [e.name for e in two])),
    }
    registry.replace_server("flip", one)
    rounds = 400
    seen: list[Any] = []
    listing_done = threading.Event()

    def replace() -> None:
        turn = 0
        while not listing_done.is_set():
            registry.replace_server("flip", two if turn % 2 == 0 else one)
            turn += 1

    writer = threading.Thread(target=replace)
    writer.start()
    try:
        for _ in range(rounds):
            names = tuple(e.name for e in registry.entries())
            seen.append(names)
            flip = [e.name for e in registry.entries("flip")]
            assert flip == sorted(flip)
            assert registry.get("mcp_steady_s0") is not None
    finally:
        listing_done.set()
        writer.join()
    for names in seen:
        assert names in allowed
