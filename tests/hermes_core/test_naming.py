"""Registry names: ``mcp_<server>_<tool>``, the 64-character clamp, deterministic collisions."""

from __future__ import annotations

import hashlib
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_core.host.tools.naming import (
    MAX_NAME_LENGTH,
    AssignedName,
    NameAssignment,
    assign_names,
    registered_tool_name,
    sanitize_component,
    toolset_name,
)

VALID_NAME = re.compile(r"^[A-Za-z0-9_]{1,64}$")


def test_seed_example() -> None:
    assert registered_tool_name("my-api", "query.data") == "mcp_my_api_query_data"


@pytest.mark.parametrize(
    ("server", "tool", "expected"),
    [
        ("github", "create_issue", "mcp_github_create_issue"),
        ("my-api", "list-items.v2", "mcp_my_api_list_items_v2"),
        ("ai.exa/exa", "search", "mcp_ai_exa_exa_search"),
        ("srv", "a  b", "mcp_srv_a__b"),  # underscores are not collapsed
        ("srv", "日本語", "mcp_srv____"),  # one "_" per character, ASCII only
        ("", "", "mcp__"),
    ],
)
def test_sanitiser(server: str, tool: str, expected: str) -> None:
    assert registered_tool_name(server, tool) == expected


def test_sanitize_component_keeps_safe_characters() -> None:
    assert sanitize_component("Az09_") == "Az09_"
    assert sanitize_component("a-b.c/d e") == "a_b_c_d_e"


def test_toolset_uses_the_raw_server_name() -> None:
    assert toolset_name("my-api") == "mcp-my-api"


def test_exactly_64_is_not_clamped() -> None:
    tool = "t" * (MAX_NAME_LENGTH - len("mcp_s_"))
    name = registered_tool_name("s", tool)
    assert len(name) == 64
    assert name == f"mcp_s_{tool}"


def test_long_names_are_clamped_with_a_stable_hash() -> None:
    server, tool = "a-very-long-server-name", "x" * 80
    name = registered_tool_name(server, tool)
    plain = f"mcp_a_very_long_server_name_{'x' * 80}"
    digest = hashlib.sha256(f"{server}/{tool}".encode()).hexdigest()[:8]
    assert name == f"{plain[:55]}_{digest}"
    assert len(name) == 64
    assert registered_tool_name(server, tool) == name  # same on every call


def test_clamp_hashes_the_unsanitised_names() -> None:
    # Same sanitised 65+ character name, different originals: different clamped names.
    a = registered_tool_name("srv", "a.b" + "x" * 70)
    b = registered_tool_name("srv", "a-b" + "x" * 70)
    assert a[:55] == b[:55]
    assert a != b


def test_collision_on_one_server() -> None:
    result = assign_names([("s", "a_b"), ("s", "a.b")])
    assert result.name_for("s", "a.b") == "mcp_s_a_b"  # "a.b" sorts first
    other = result.name_for("s", "a_b")
    assert other.startswith("mcp_s_a_b_") and len(other) == len("mcp_s_a_b_") + 8
    (collision,) = result.collisions
    assert collision.base_name == "mcp_s_a_b"
    assert collision.members == (
        AssignedName("s", "a.b", "mcp_s_a_b"),
        AssignedName("s", "a_b", other),
    )
    message = collision.message()
    assert "'a.b'" in message and "'a_b'" in message and other in message


def test_collision_across_servers_suffixes_every_member() -> None:
    result = assign_names([("my_api", "query"), ("my-api", "query")])
    assert result.name_for("my-api", "query") != "mcp_my_api_query"
    assert result.name_for("my_api", "query") != "mcp_my_api_query"
    assert result.origin_of(result.name_for("my_api", "query")) == ("my_api", "query")
    assert result.origin_of("mcp_my_api_query") is None
    assert len(result.collisions) == 1


def test_a_server_cannot_take_another_servers_tool_name() -> None:
    # Server "my" publishing "api_echo" against server "my-api"'s "echo" (the hijack).
    alone = assign_names([("my-api", "echo")])
    assert alone.name_for("my-api", "echo") == "mcp_my_api_echo"
    both = assign_names([("my-api", "echo"), ("my", "api_echo")])
    assert both.origin_of("mcp_my_api_echo") is None
    assert both.origin_of(both.name_for("my-api", "echo")) == ("my-api", "echo")
    assert both.origin_of(both.name_for("my", "api_echo")) == ("my", "api_echo")
    (collision,) = both.collisions
    assert {m.server for m in collision.members} == {"my", "my-api"}
    assert [c.base_name for c in both.for_server("my")] == ["mcp_my_api_echo"]
    assert both.for_server("other") == ()


def test_a_server_tool_named_like_a_utility_keeps_its_name() -> None:
    result = assign_names([("s", "list_resources"), ("s", "x")], [("s", "list_resources")])
    assert result.name_for("s", "list_resources") == "mcp_s_list_resources"
    utility = result.name_for("s", "list_resources", utility=True)
    assert utility.startswith("mcp_s_list_resources_") and utility != "mcp_s_list_resources"
    (collision,) = result.collisions
    assert "(utility)" in collision.message()
    plain = assign_names([("s", "x")], [("s", "list_resources")])
    assert plain.name_for("s", "list_resources", utility=True) == "mcp_s_list_resources"


def test_no_collision_reports_nothing() -> None:
    result = assign_names([("s", "a"), ("s", "b"), ("t", "a")])
    assert result.collisions == ()
    assert dict(result.names) == {
        ("s", "a"): "mcp_s_a",
        ("s", "b"): "mcp_s_b",
        ("t", "a"): "mcp_t_a",
    }


def test_duplicates_count_once() -> None:
    result = assign_names([("s", "a"), ("s", "a")])
    assert len(result) == 1
    assert result.collisions == ()


def test_ambiguous_slash_joins_still_get_distinct_names() -> None:
    # "a/b" + "c" and "a" + "b/c" sanitise *and* hash-join identically.
    long = "c" * 70
    result = assign_names([("a/b", long), ("a", f"b/{long}")])
    names = set(result.names.values())
    assert len(names) == 2
    assert all(VALID_NAME.match(n) for n in names)
    assert len(result.collisions) == 1


def test_suffix_never_steals_another_tools_plain_name() -> None:
    # A hostile tool named exactly like the suffix the collision would produce.
    suffixed = assign_names([("s", "a.b"), ("s", "a_b")]).name_for("s", "a_b")
    squatter = suffixed.removeprefix("mcp_s_")
    result = assign_names([("s", "a.b"), ("s", "a_b"), ("s", squatter)])
    assert result.name_for("s", squatter) == suffixed  # its plain name, untouched
    assert len(set(result.names.values())) == 3


def test_clamped_entries_are_listed() -> None:
    result = assign_names([("s", "x" * 100), ("s", "short")])
    assert [e.tool for e in result.clamped] == ["x" * 100]


def test_assignment_rejects_duplicate_names() -> None:
    with pytest.raises(ValueError):
        NameAssignment(
            entries=(AssignedName("s", "a", "n"), AssignedName("s", "b", "n")),
            collisions=(),
        )


def test_origin_of_unknown_name() -> None:
    assert assign_names([("s", "a")]).origin_of("mcp_s_b") is None


# Names that sanitise alike, so collisions are frequent.
_parts = st.text(alphabet="ab_.-/é", max_size=6) | st.text(max_size=80)
_pairs = st.lists(st.tuples(_parts, _parts), max_size=25)


@settings(max_examples=150, deadline=None)
@given(st.text(), st.text())
def test_registered_names_are_always_valid(server: str, tool: str) -> None:
    assert VALID_NAME.match(registered_tool_name(server, tool))


@settings(max_examples=150, deadline=None)
@given(_pairs)
def test_assignment_is_injective_and_valid(pairs: list[tuple[str, str]]) -> None:
    result = assign_names(pairs)
    assert set(result.names) == set(pairs)
    names = list(result.names.values())
    assert len(set(names)) == len(names)
    assert all(VALID_NAME.match(n) for n in names)
    for pair, name in result.names.items():
        assert result.origin_of(name) == pair


@settings(max_examples=150, deadline=None)
@given(_pairs, st.randoms(use_true_random=False))
def test_assignment_is_order_independent(pairs: list[tuple[str, str]], rnd: random.Random) -> None:
    shuffled = list(pairs) + list(pairs[:3])
    rnd.shuffle(shuffled)
    assert assign_names(shuffled) == assign_names(pairs)


@settings(max_examples=150, deadline=None)
@given(_pairs)
def test_collisions_cover_every_suffixed_name(pairs: list[tuple[str, str]]) -> None:
    result = assign_names(pairs)
    reported = {m.origin for c in result.collisions for m in c.members}
    for entry in result.entries:
        if entry.name != registered_tool_name(entry.server, entry.tool):
            assert entry.origin in reported
    for collision in result.collisions:
        assert len(collision.members) >= 2
        one_server = len({m.server for m in collision.members}) == 1
        assert (collision.members[0].name == collision.base_name) == one_server
        assert list(collision.members) == sorted(collision.members, key=lambda m: m.origin)
