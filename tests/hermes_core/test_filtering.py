"""``tools.include`` / ``tools.exclude`` and the utility tools, including the reported traps."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_core.host.tools.filtering import UTILITY_TOOLS, ToolFilter, is_glob, utility_tools

TOOLS = ["create_issue", "list_issues", "delete_issue", "docs", "docs_search", "Create_Repo"]


def test_no_filter_allows_everything() -> None:
    f = ToolFilter()
    assert f.is_unrestricted
    assert f.select(TOOLS) == TOOLS


def test_include_is_an_allowlist() -> None:
    f = ToolFilter(include=("create_issue", "list_issues"))
    assert f.select(TOOLS) == ["create_issue", "list_issues"]


def test_exclude_is_a_denylist() -> None:
    f = ToolFilter(exclude=("delete_issue",))
    assert f.select(TOOLS) == [t for t in TOOLS if t != "delete_issue"]


def test_include_wins_over_exclude() -> None:
    # The seed's precedence example.
    f = ToolFilter(include=("create_issue",), exclude=("create_issue", "delete_issue"))
    assert f.allows("create_issue")
    assert not f.allows("delete_issue")
    assert not f.allows("list_issues")  # exclude is ignored, include still restricts


def test_plain_entries_are_exact() -> None:
    assert ToolFilter(exclude=("docs",)).select(["docs", "docs_search"]) == ["docs_search"]
    assert ToolFilter(include=("docs",)).select(["docs", "docs_search"]) == ["docs"]


def test_globs_in_include_and_exclude() -> None:
    names = ["zones_dns_list", "zones_dns_get", "radar_http", "accounts_dlp_x", "ok"]
    assert ToolFilter(include=("*_dns_*",)).select(names) == ["zones_dns_list", "zones_dns_get"]
    assert ToolFilter(exclude=("radar_*", "*_dlp_*")).select(names) == [
        "zones_dns_list",
        "zones_dns_get",
        "ok",
    ]
    assert ToolFilter(include=("zones_dns_???",)).select(names) == ["zones_dns_get"]
    assert ToolFilter(include=("[rz]*",)).select(names) == names[:3]


def test_exclude_globs_filter_whatever_the_transport() -> None:
    # #75309: an exclude glob that did not filter.  The filter sees only names.
    f = ToolFilter.from_config(exclude=["*_radar_*"])
    assert not f.allows("cf_radar_http")
    assert f.allows("cf_zones_list")


def test_matching_is_case_sensitive() -> None:
    f = ToolFilter(include=("create_*",))
    assert f.allows("create_issue")
    assert not f.allows("Create_Repo")
    assert not ToolFilter(include=("CREATE_ISSUE",)).allows("create_issue")


def test_matching_uses_the_server_spelling_not_the_registry_name() -> None:
    f = ToolFilter(include=("query.data",))
    assert f.allows("query.data")
    assert not f.allows("query_data")
    assert not ToolFilter(include=("mcp_api_query_data",)).allows("query.data")


def test_a_tool_named_like_a_glob_matches_itself() -> None:
    # As a glob, "get[1]" matches only "get1"; the exact check lets the literal name through too.
    f = ToolFilter(include=("get[1]",))
    assert f.allows("get[1]")
    assert f.allows("get1")
    assert not f.allows("get2")


def test_empty_include_blocks_every_native_tool() -> None:
    # include: [] is what the install checklist writes when nothing is ticked (decision: keep it).
    f = ToolFilter(include=())
    assert f.blocks_all_native
    assert f.select(TOOLS) == []
    assert not f.is_unrestricted


def test_empty_include_is_not_the_same_as_unset() -> None:
    # rwlove/home-ops#14082: the trap is real, so it is flagged for the host to report, not
    # silently reinterpreted.
    assert not ToolFilter(include=None).blocks_all_native
    assert ToolFilter.from_config(include=[]).blocks_all_native
    assert not ToolFilter.from_config(include=None, exclude=[]).blocks_all_native


def test_empty_include_with_exclude_still_blocks() -> None:
    f = ToolFilter(include=(), exclude=("delete_issue",))
    assert f.select(TOOLS) == []


def test_empty_exclude_allows_everything() -> None:
    assert ToolFilter(exclude=()).select(TOOLS) == TOOLS


def test_from_config_accepts_a_single_string() -> None:
    f = ToolFilter.from_config(include="create_issue", exclude="create_issue")
    assert f.include == ("create_issue",)
    assert f.select(TOOLS) == ["create_issue"]


def test_glob_entries_are_written_back_verbatim() -> None:
    # PR #72290: a checklist must not turn globs into literal lists; the filter keeps them as-is.
    f = ToolFilter.from_config(exclude=["*_dns_*", "delete_issue"])
    assert f.exclude == ("*_dns_*", "delete_issue")


@pytest.mark.parametrize("bad", ["create_issue", ["a"], ("a", 1)])
def test_constructor_rejects_non_tuples(bad: object) -> None:
    with pytest.raises(TypeError):
        ToolFilter(include=bad)  # type: ignore[arg-type]


def test_is_glob() -> None:
    assert is_glob("a*") and is_glob("a?") and is_glob("[ab]")
    assert not is_glob("plain_name") and not is_glob("a.b-c")


def test_utility_tools_need_capability_and_config() -> None:
    both = {"resources": True, "prompts": True}
    assert utility_tools(both, True, True) == list(UTILITY_TOOLS)
    assert utility_tools(both, False, True) == ["list_prompts", "get_prompt"]
    assert utility_tools(both, True, False) == [
        "list_resources",
        "list_resource_templates",
        "read_resource",
    ]
    assert utility_tools(both, False, False) == []


def test_utility_tools_follow_advertised_capabilities() -> None:
    assert utility_tools({"resources": True, "prompts": False}, True, True) == [
        "list_resources",
        "list_resource_templates",
        "read_resource",
    ]
    assert utility_tools({"prompts": True}, True, True) == ["list_prompts", "get_prompt"]
    assert utility_tools({}, True, True) == []  # nothing advertised → nothing offered


def test_utility_tools_are_not_affected_by_include() -> None:
    # Filtering applies to native tools only; an include list naming none of them does not
    # remove the utilities (they have their own switches).
    f = ToolFilter(include=())
    assert f.select(TOOLS) == []
    assert utility_tools({"resources": True}, True, True) == [
        "list_resources",
        "list_resource_templates",
        "read_resource",
    ]


_names = st.text(alphabet="abc_.-*?[]", max_size=8)


@settings(max_examples=150, deadline=None)
@given(st.lists(_names, max_size=4), st.lists(_names, max_size=4), _names)
def test_include_wins_property(include: list[str], exclude: list[str], name: str) -> None:
    with_exclude = ToolFilter(include=tuple(include), exclude=tuple(exclude))
    assert with_exclude.allows(name) == ToolFilter(include=tuple(include)).allows(name)


@settings(max_examples=150, deadline=None)
@given(st.lists(_names, max_size=4), _names)
def test_exclude_is_the_complement_of_include(entries: list[str], name: str) -> None:
    assert ToolFilter(exclude=tuple(entries)).allows(name) != ToolFilter(
        include=tuple(entries)
    ).allows(name)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="abcABC_.-", max_size=10), st.text(alphabet="abcABC_.-", max_size=10))
def test_plain_entries_match_only_themselves(entry: str, name: str) -> None:
    assert ToolFilter(include=(entry,)).allows(name) == (entry == name)
