"""Tool search: the FTS5 BM25 index of the registered tools (hermes_core.host.tools.search),
``MCPHost.search_tools`` on in-process servers, and ``hermes mcp tools --search`` through the
CLI against a real SDK server."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from hermes_core.host.host import MCPHost
from hermes_core.host.sync import SyncMCPHost
from hermes_core.host.tools.name_pattern import PatternError, match_names
from hermes_core.host.tools.registry import ToolEntry
from hermes_core.host.tools.search import COMMON_FROM, ToolSearchIndex, query_words
from hermes_core.host.tools.search_words import analyse
from support.cli import run_hermes
from support.memory import MEMORY, MemoryTransport, ToyServer, memory_server

ASKING = Path(__file__).parents[1] / "servers" / "asking_server.py"


def entry(name: str, description: str, server: str = "ops", title: str | None = None) -> ToolEntry:
    return ToolEntry(
        name=f"mcp_{server}_{name}",
        server=server,
        tool=name,
        description=description,
        input_schema={"type": "object"},
        toolset=f"mcp-{server}",
        title=title,
    )


TOOLS = (
    entry("dns_delete_record", "Delete a DNS record from a zone."),
    entry("dns_create_record", "Create a DNS record in a zone."),
    entry("dns_list_records", "List the DNS records of a zone."),
    entry("sendEmail", "Send an email message to recipients."),
    entry("calendar_create_event", "Create an event in the user's calendar."),
    entry("billing_refund", "Refund an invoice payment.", title="Refund a payment"),
    entry("delete_file", "Delete a file from the workspace.", server="fs"),
)


def names(found: list[ToolEntry]) -> list[str]:
    return [e.name for e in found]


def test_the_best_match_comes_first_over_names_and_descriptions() -> None:
    index = ToolSearchIndex()
    assert names(index.search(TOOLS, "delete a DNS record", 3))[0] == "mcp_ops_dns_delete_record"
    # camelCase names are split into words, and the stemmer matches "emails" to "email".
    assert names(index.search(TOOLS, "emails", 1)) == ["mcp_ops_sendEmail"]
    # The title counts too ("payment" is in both; "refunding" stems to "refund").
    assert names(index.search(TOOLS, "refunding", 5)) == ["mcp_ops_billing_refund"]
    assert names(index.search(TOOLS, "meeting in my calendar", 1)) == [
        "mcp_ops_calendar_create_event"
    ]


def test_limit_hidden_servers_and_queries_without_words() -> None:
    index = ToolSearchIndex()
    assert len(index.search(TOOLS, "delete", 10)) == 2
    assert names(index.search(TOOLS, "delete", 10, hidden_servers=["ops"])) == [
        "mcp_fs_delete_file"
    ]
    assert index.search(TOOLS, "delete", 0) == []
    assert index.search(TOOLS, "  ?! ", 5) == []
    assert index.search(TOOLS, "nothing-here-matches", 5) == []
    assert index.search((), "delete", 5) == []
    # FTS5 syntax in a query is text, never an operator or an error.
    assert names(index.search(TOOLS, 'zone" OR NOT (*', 1))[0].startswith("mcp_ops_dns_")


def test_query_words_drop_stop_words_but_never_every_word() -> None:
    assert query_words("Delete a DNS record, please") == ["delete", "dns", "record"]
    assert query_words("the a") == ["the", "a"]
    assert len(query_words("word " * 500)) == 1
    assert len(query_words(" ".join(f"w{i}" for i in range(100)))) == 32


def test_a_word_in_most_tools_does_not_drown_the_telling_ones() -> None:
    many = tuple(entry(f"thing_{i}", f"Get a record number {i}.") for i in range(COMMON_FROM))
    haystack = (*many, entry("dns_delete", "Delete a DNS record."))
    index = ToolSearchIndex()
    assert names(index.search(haystack, "delete record", 3)) == ["mcp_ops_dns_delete"]
    # Only words most tools contain: they are searched for all the same.
    assert len(index.search(haystack, "get record", 3)) == 3
    # A telling word that matches nothing does not leave the common ones out.
    assert len(index.search(haystack, "zebra record", 3)) == 3


def test_the_index_follows_the_registry_snapshot() -> None:
    index = ToolSearchIndex()
    assert names(index.search(TOOLS[:1], "zone", 5)) == ["mcp_ops_dns_delete_record"]
    assert len(index.search(TOOLS, "zone", 5)) == 3  # a new snapshot: indexed again
    index.close()
    assert len(index.search(TOOLS, "zone", 5)) == 3


def test_mcp_host_search_tools_ranks_the_offered_tools() -> None:
    async def scenario() -> None:
        ops = (
            ToyServer("ops")
            .tool("dns_delete_record", description="Delete a DNS record.")
            .tool("dns_list_records", description="List DNS records.")
        )
        other = ToyServer("mail").tool("send", description="Send an email.")
        transport = MemoryTransport({"ops": ops, "mail": other})
        servers = [memory_server("ops"), memory_server("mail")]
        async with MCPHost(servers, transports={MEMORY: transport}) as host:
            found = host.search_tools("delete a dns record", 1)
            assert names(found) == ["mcp_ops_dns_delete_record"]
            assert names(host.search_tools("email", 5)) == ["mcp_mail_send"]
            ops.tool("dns_purge_cache", description="Purge the DNS cache.")
            await host.refresh_tools("ops")
            # purge says its own verb first; delete is one of its action's other words
            assert names(host.search_tools("purge", 5))[0] == "mcp_ops_dns_purge_cache"

    asyncio.run(scenario())


def test_sync_mcp_host_searches_from_any_thread() -> None:
    ops = ToyServer("ops").tool("dns_delete_record", description="Delete a DNS record.")
    transport = MemoryTransport({"ops": ops})
    with SyncMCPHost([memory_server("ops")], transports={MEMORY: transport}) as host:
        assert names(host.search_tools("delete dns", 3)) == ["mcp_ops_dns_delete_record"]


@pytest.mark.process
@pytest.mark.cli
def test_cli_mcp_tools_search_prints_the_best_matches_first(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        f"mcp_servers:\n  asking:\n    command: {sys.executable}\n    args: [{ASKING}]\n"
    )
    env = {"HERMES_HOME": str(tmp_path)}
    found = run_hermes("mcp", "tools", "--search", "reserve a table to book", env=env)
    assert found.returncode == 0, found.stderr
    lines = found.stdout.splitlines()
    assert lines[0].startswith("mcp_asking_book(")  # the signature, then the description
    assert "Book a table" in lines[1]
    assert len(lines) < len(run_hermes("mcp", "tools", env=env).stdout.splitlines())
    as_json = run_hermes("mcp", "tools", "--json", "--search", "open a page", env=env)
    assert as_json.returncode == 0 and '"name": "mcp_asking_visit"' in as_json.stdout
    none = run_hermes("mcp", "tools", "--search", "zzzz", env=env)
    assert none.returncode == 1 and none.stdout == ""


# --- a person's words find the API's (issue 44 item 3) -----------------------------------------
_FAMILIES = (
    ("github", ("issue", "pull_request", "branch")),
    ("dns", ("record", "zone")),
    ("security", ("finding",)),
    ("iam", ("api_key", "session")),
)
_VERBS = ("create", "get", "list", "search", "update", "delete", "archive", "approve")
DENSE = (
    *(
        entry(f"{verb}_{thing}", f"{verb.capitalize()} a {thing.replace('_', ' ')}.", server=server)
        for server, things in _FAMILIES
        for thing in things
        for verb in _VERBS
    ),
    entry("revoke_api_key", "Revoke an API key so it can no longer be used.", server="iam"),
    entry("purge_cache", "Purge cached content at the edge.", server="cdn"),
)


@pytest.mark.parametrize(
    ("request_", "wanted"),
    [
        ("add a DNS record", "mcp_dns_create_record"),
        ("file a bug about the crash", "mcp_github_create_issue"),
        ("show me the open pull requests", "mcp_github_list_pull_request"),
        ("get rid of the old branch", "mcp_github_delete_branch"),
        ("take the stale zone down", "mcp_dns_delete_zone"),  # a separated phrasal verb
        ("revoke the leaked key", "mcp_iam_revoke_api_key"),  # its own verb before delete's
        ("clear the CDN cache for /images", "mcp_cdn_purge_cache"),
        ("look up security findings", "mcp_security_search_finding"),
        ("change the record for api.example.com", "mcp_dns_update_record"),  # values left out
    ],
)
def test_the_tool_whose_action_the_request_says_comes_first(request_: str, wanted: str) -> None:
    assert names(ToolSearchIndex().search(DENSE, request_, 3))[0] == wanted


def test_a_verb_is_never_taken_for_a_description_word() -> None:
    # "find" is a verb: it does not match the security scanner's "findings" in a description.
    haystack = (
        entry("list_findings", "List the security findings.", server="security"),
        entry("search_issues", "Search issues by text.", server="github"),
    )
    assert (
        names(ToolSearchIndex().search(haystack, "find bugs", 2))[0] == "mcp_github_search_issues"
    )
    assert analyse("find bugs", 32).verbs == ("find",)
    assert "issue" in analyse("find bugs", 32).words


def test_what_a_request_carries_is_not_taken_for_what_it_asks() -> None:
    # A contraction's remains are no words; "#1050" is an order number, "#launch" a channel.
    assert analyse("What's on my calendar?", 32).words == ("calendar", "event", "gcal")
    assert "s" not in analyse("we'll see what's new", 32).words
    assert "channel" not in analyse("ship order #1050", 32).words
    assert "channel" in analyse("post in #launch", 32).words


def test_a_phrasal_verb_in_a_tool_name_is_its_action() -> None:
    haystack = (
        entry("flag_turn_on", "Serve the flag's variations.", server="flags"),
        entry("flag_turn_off", "Serve the flag's off variation.", server="flags"),
        entry("flag_get", "Get a flag.", server="flags"),
        entry("assignIssue", "Assign the issue to a user.", server="jira"),
        entry("createIssueComment", "Comment on an issue.", server="jira"),
        entry("incident_acknowledge", "Acknowledge the incident.", server="pager"),
        entry("incident_resolve", "Resolve the incident.", server="pager"),
    )
    index = ToolSearchIndex()
    assert names(index.search(haystack, "switch on the checkout flag", 1)) == [
        "mcp_flags_flag_turn_on"
    ]
    assert names(index.search(haystack, "switch off the checkout flag", 1)) == [
        "mcp_flags_flag_turn_off"
    ]
    assert names(index.search(haystack, "hand PAY-301 over to Dana", 1)) == ["mcp_jira_assignIssue"]
    assert names(index.search(haystack, "leave a comment on PAY-77", 1)) == [
        "mcp_jira_createIssueComment"
    ]
    assert names(index.search(haystack, "ack the incident", 1)) == [
        "mcp_pager_incident_acknowledge"
    ]


def test_a_word_that_also_names_a_thing_does_not_make_a_tool_a_creator() -> None:
    # "leave", "store", "call" name things in tool names (a channel left, a shop, a call log):
    # the action tables hold only words that say what a tool does wherever they stand.
    haystack = (
        entry("slack_leave_channel", "Leave a channel.", server="slack"),
        entry("slack_create_channel", "Create a channel.", server="slack"),
        entry("call_log_list", "List the call logs.", server="phone"),
        entry("store_list_products", "List the products of a store.", server="shop"),
    )
    index = ToolSearchIndex()
    assert names(index.search(haystack, "make a new channel", 1)) == [
        "mcp_slack_slack_create_channel"
    ]
    assert names(index.search(haystack, "leave the #general channel", 1)) == [
        "mcp_slack_slack_leave_channel"
    ]
    assert names(index.search(haystack, "show the call logs", 1)) == ["mcp_phone_call_log_list"]


def test_the_index_is_updated_incrementally_and_forgets_removed_tools() -> None:
    index = ToolSearchIndex()
    assert names(index.search(DENSE, "purge the cache", 1)) == ["mcp_cdn_purge_cache"]
    db = index._db
    smaller = tuple(e for e in DENSE if e.server != "cdn")
    assert "mcp_cdn_purge_cache" not in names(index.search(smaller, "purge the cache", 20))
    renewed = (*smaller, entry("renew_cert", "Renew a certificate.", server="cdn"))
    assert names(index.search(renewed, "extend the cert", 1)) == ["mcp_cdn_renew_cert"]
    assert index._db is db  # the same index, changed in place
    assert len(index._entries) == len(renewed)


# --- a regular expression over names (issue 44 item 4) -----------------------------------------
def test_a_pattern_matches_names_in_order_and_leaves_hidden_servers_out() -> None:
    found = match_names(DENSE, r"^mcp_iam_.*api_KEY$", 20)
    assert names(found) == [
        e.name for e in DENSE if e.name.startswith("mcp_iam_") and e.name.endswith("api_key")
    ]
    assert match_names(DENSE, "api_key", 20, hidden_servers=["iam"]) == []
    assert len(match_names(DENSE, "issue", 3)) == 3


@pytest.mark.parametrize(
    ("pattern", "said"),
    [
        ("(a|aa)+$" + "", "took longer than"),  # backtracks for ever under re
        ("x" * 201, "longer than 200 characters"),
        ("([unclosed", "not a regular expression"),
    ],
)
def test_a_hostile_pattern_is_one_clear_error_within_its_time(pattern: str, said: str) -> None:
    haystack = tuple(entry("a" * 60 + f"!{i}", "x") for i in range(50))
    with pytest.raises(PatternError, match=said):
        match_names(haystack, pattern, 5)
