"""Tool search: the FTS5 BM25 index of the registered tools (hermes_core.host.tool_search),
``MCPHost.search_tools`` on in-process servers, and ``hermes mcp tools --search`` through the
CLI against a real SDK server."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from hermes_core.host.host import MCPHost
from hermes_core.host.registry import ToolEntry
from hermes_core.host.sync import SyncMCPHost
from hermes_core.host.tool_search import COMMON_FROM, ToolSearchIndex, query_words
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
            assert names(host.search_tools("purge", 5)) == ["mcp_ops_dns_purge_cache"]

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
