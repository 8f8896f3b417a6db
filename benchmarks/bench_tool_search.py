"""Tool search, measured: what ``hermes chat`` offers a model with and without it, how long one
search takes over thousands of tools, and whether the right tool comes up.

::

    python benchmarks/bench_tool_search.py            # 3,300 and 10,000 tools, 20 rounds
    python benchmarks/bench_tool_search.py --rounds 5 # fewer timing rounds

Every figure comes from this run, on real servers over stdio through :class:`MCPHost`:
``benchmarks/many_tools_server.py`` (3,300 tools, then 10,000), server-everything, and
``benchmarks/ops_tools_server.py`` (60 everyday operations tools: DNS, mail, calendars …).

* **Tokens**: the estimate (:func:`hermes_core.chat.offering.estimate_tokens`, JSON length / 4)
  of every offered tool's schema, against what ``tool_search: auto`` offers: the search tool
  alone at first, and after the 20 searches below (each adds the tools it found).
* **Search time**: ``MCPHost.search_tools(query, 5)`` for each of the 20 phrasings, over all
  the registered tools, timed one by one over the rounds (median, 90th percentile, max); the
  first search, which builds the index, is shown apart.
  The same for four queries in ``many_tools_server``'s own words, which match thousands of
  its look-alike tools: the worst case.
* **Rank**: the position of the right tool among the results of each phrasing (goal: in the
  top 5 for at least 18 of the 20).

The machine's load average is printed before and after: on a loaded machine the times spread.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tests"))

from hermes_core.chat.offering import ToolOffer  # noqa: E402
from hermes_core.config.chat import ChatSettings  # noqa: E402
from hermes_core.host.host import HostServer, MCPHost  # noqa: E402
from servers.reference import EVERYTHING, node  # noqa: E402

#: (what a user asks, the tool of ops_tools_server.py that does it).
PHRASINGS: tuple[tuple[str, str], ...] = (
    ("delete a DNS record", "dns_delete_record"),
    ("email the quarterly report to alice", "mail_send"),
    ("schedule a meeting with the team tomorrow at 10", "calendar_create_event"),
    ("when are Ada and Bob both free this week", "calendar_find_free_time"),
    ("upload this file to the backups bucket", "storage_upload_object"),
    ("show me the logs of the crashing pod", "k8s_get_logs"),
    ("scale the web deployment to 5 replicas", "k8s_scale_deployment"),
    ("restart the api deployment", "k8s_rollout_restart"),
    ("take a snapshot of the build VM", "vm_snapshot"),
    ("run a SQL query to count yesterday's orders", "db_run_query"),
    ("refund the customer's last payment", "billing_refund_payment"),
    ("cancel my subscription", "billing_cancel_subscription"),
    ("reset the password for bob", "user_reset_password"),
    ("open a support ticket about the outage", "ticket_create"),
    ("post a message in the ops channel", "chat_post_message"),
    ("mute the disk space alert for an hour", "monitor_silence_alert"),
    ("clear the CDN cache for /images", "cdn_purge_cache"),
    ("renew the certificate for example.com", "tls_renew_certificate"),
    ("why did the CI job fail? show its log", "ci_get_job_log"),
    ("translate this paragraph to French", "translate_text"),
)
#: Queries in many_tools_server's own words: each matches a third or more of its tools, the
#: most work one search can be given there (shown apart, as the worst case).
CROWDED: tuple[str, ...] = (
    "archive the pull request",
    "delete an issue",
    "update a ci-job record",
    "list repo records with a limit",
)
TOP = 5
GOAL_IN_TOP = 18
TIME_GOAL_MS = 10.0


def servers(count: int) -> list[HostServer]:
    return [
        HostServer(
            "many",
            command=sys.executable,
            args=[str(HERE / "many_tools_server.py"), str(count)],
            connect_timeout=120,
        ),
        HostServer("everything", command=node(), args=[str(EVERYTHING), "stdio"]),
        HostServer("ops", command=sys.executable, args=[str(HERE / "ops_tools_server.py")]),
    ]


def rank(host: MCPHost, query: str, tool: str) -> int | None:
    found = [e.name for e in host.search_tools(query, 100)]
    wanted = f"mcp_ops_{tool}"
    return found.index(wanted) + 1 if wanted in found else None


async def measure(count: int, rounds: int) -> dict[str, object]:
    async with MCPHost(servers(count)) as host:
        errors = [row.last_error for row in host.status() if row.last_error]
        if errors:
            raise SystemExit(f"a server failed: {errors}")
        tools = len(host.tools())
        offer = ToolOffer(host, ChatSettings())
        before = offer.offered_tokens()
        started = time.perf_counter()
        host.search_tools(PHRASINGS[0][0], TOP)
        first_ms = (time.perf_counter() - started) * 1000
        times: list[float] = []
        for _ in range(rounds):
            for query, _tool in PHRASINGS:
                started = time.perf_counter()
                host.search_tools(query, TOP)
                times.append((time.perf_counter() - started) * 1000)
        crowded: list[float] = []
        for _ in range(rounds):
            for query in CROWDED:
                started = time.perf_counter()
                host.search_tools(query, TOP)
                crowded.append((time.perf_counter() - started) * 1000)
        crowded.sort()
        ranks = {query: rank(host, query, tool) for query, tool in PHRASINGS}
        for query, _tool in PHRASINGS:
            offer.search({"query": query})
        after = offer.offered_tokens()
        times.sort()
        return {
            "tools": tools,
            "all_tokens": offer.all_tokens,
            "searching": offer.searching,
            "offered_tokens_before_search": before,
            "offered_tokens_after_20_searches": after,
            "tools_offered_after_20_searches": len(offer.tools()),
            "first_search_ms": first_ms,
            "median_ms": statistics.median(times),
            "p90_ms": times[int(len(times) * 0.9) - 1],
            "max_ms": times[-1],
            "crowded_median_ms": statistics.median(crowded),
            "crowded_max_ms": crowded[-1],
            "ranks": ranks,
        }


def report(result: dict[str, object], show_ranks: bool) -> None:
    print(f"\n## {result['tools']} tools (many_tools_server + server-everything + ops)")
    print(f"tokens of every schema:            ~{result['all_tokens']}")
    print(f"tool_search: auto offers at first: ~{result['offered_tokens_before_search']}")
    print(
        f"… after the 20 searches:           ~{result['offered_tokens_after_20_searches']} "
        f"({result['tools_offered_after_20_searches']} tools found and offered)"
    )
    print(f"first search (builds the index):   {result['first_search_ms']:.1f} ms")
    print(
        f"one search: median {result['median_ms']:.2f} ms, p90 {result['p90_ms']:.2f} ms, "
        f"max {result['max_ms']:.2f} ms (goal ≤ {TIME_GOAL_MS:g} ms)"
    )
    print(
        f"worst case (queries matching thousands): median {result['crowded_median_ms']:.2f} ms, "
        f"max {result['crowded_max_ms']:.2f} ms"
    )
    ranks = result["ranks"]
    assert isinstance(ranks, dict)
    in_top = sum(1 for r in ranks.values() if r is not None and r <= TOP)
    first = sum(1 for r in ranks.values() if r == 1)
    verdict = "met" if in_top >= GOAL_IN_TOP else "NOT met"
    print(
        f"right tool in the top {TOP}: {in_top}/20 (goal {GOAL_IN_TOP}: {verdict}); "
        f"first: {first}/20"
    )
    if show_ranks:
        for query, position in ranks.items():
            print(f"  {position if position is not None else '-':>3}  {query}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    for count, show in ((3300, True), (10000, False)):
        report(asyncio.run(measure(count, args.rounds)), show)
    print(f"\nload average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
