"""``hermes chat``'s conversation in process: the tool offer (every schema or ``tool_search``,
its budget, ``always_load``) and the turn loop on the real ``llm`` library with its offline
``echo`` model (llm-echo), over in-process MCP servers (tests/support/memory.py).

The echo model calls the tools its prompt names (``{"tool_calls": [...]}``) and answers with a
JSON echo of what it was sent, tool results included: what the model saw is in its answer.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any

import pytest

from hermes_core.chat.offering import SEARCH_TOOL, ToolOffer, estimate_tokens, tool_schema
from hermes_core.chat.session import UNSEEN_MEDIA, ChatError, ChatSession, result_text
from hermes_core.cli.chat_output import TerminalOutput
from hermes_core.config.chat import ChatSettings, ToolSearchMode
from hermes_core.host.host import MCPHost
from support.memory import MEMORY, MemoryTransport, ToyServer, error_result, memory_server


@pytest.fixture(autouse=True)
def _llm_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """llm reads keys, aliases and its default model from LLM_USER_PATH: never the developer's."""
    monkeypatch.setenv("LLM_USER_PATH", str(tmp_path_factory.mktemp("llm")))


class Shown:
    """What the session showed (the terminal's side, kept for the test to read)."""

    def __init__(self) -> None:
        self.answer: list[str] = []
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.results: list[tuple[str, str, bool]] = []
        self.notices: list[str] = []

    def text(self, chunk: str) -> None:
        self.answer.append(chunk)

    def end_of_answer(self) -> None:
        self.answer.append("\n")

    def tool_call(self, name: str, arguments: Mapping[str, Any]) -> None:
        self.calls.append((name, dict(arguments)))

    def tool_result(self, name: str, text: str, failed: bool) -> None:
        self.results.append((name, text, failed))

    def progress(self, progress: float, total: float | None, message: str | None) -> None:
        self.notices.append(f"progress {progress}")

    def notice(self, text: str) -> None:
        self.notices.append(text)


def ops_server() -> ToyServer:
    def boom(_: dict[str, Any]) -> str:
        raise RuntimeError("the zone is locked")

    return (
        ToyServer("ops")
        .tool("dns_delete_record", "deleted", description="Delete a DNS record from a zone.")
        .tool("dns_list_records", "a.example. 300 IN A 1.2.3.4", description="List DNS records.")
        .tool("dns_lock", boom, description="Lock a DNS zone.")
        .tool("refuse", lambda _: error_result("not allowed"), description="Always refuses.")
    )


def with_host(
    scenario: Callable[[MCPHost], Coroutine[Any, Any, None]], **servers: ToyServer
) -> None:
    async def main() -> None:
        transport = MemoryTransport(servers)
        entries = [memory_server(name) for name in servers]
        async with MCPHost(entries, transports={MEMORY: transport}) as host:
            await scenario(host)

    asyncio.run(main())


def calls(*named: tuple[str, dict[str, Any]]) -> str:
    return json.dumps({"tool_calls": [{"name": n, "arguments": a} for n, a in named]})


def echoed(shown: Shown) -> list[dict[str, Any]]:
    """Each JSON echo of the model's answer, in order."""
    text, found, at = "".join(shown.answer), [], 0
    decoder = json.JSONDecoder()
    while (start := text.find("{", at)) != -1:
        value, at = decoder.raw_decode(text, start)
        found.append(value)
    return found


# -- the offer --------------------------------------------------------------------------------


def test_auto_offers_every_schema_within_the_budget_and_searches_past_it() -> None:
    async def scenario(host: MCPHost) -> None:
        total = estimate_tokens([tool_schema(e) for e in host.tools()])
        within = ToolOffer(host, ChatSettings(tool_search_budget=total))
        assert not within.searching and within.tools() == host.tools()
        assert within.all_tokens == total == within.offered_tokens()
        past = ToolOffer(host, ChatSettings(tool_search_budget=total - 1))
        assert past.searching and past.tools() == []
        assert [s["name"] for s in past.schemas()] == [SEARCH_TOOL]
        assert past.offered_tokens() < total  # the search tool is smaller than 40 tools
        on = ToolOffer(host, ChatSettings(tool_search=ToolSearchMode.ON))
        assert on.searching
        off = ToolOffer(host, ChatSettings(tool_search=ToolSearchMode.OFF, tool_search_budget=0))
        assert not off.searching and len(off.schemas()) == len(host.tools())

    many = ops_server()
    for i in range(40):
        many.tool(f"zone_{i}", description=f"Manage zone number {i} of the DNS service.")
    with_host(scenario, ops=many)


def test_always_load_servers_and_found_tools_are_offered_in_full() -> None:
    async def scenario(host: MCPHost) -> None:
        on = ChatSettings(tool_search=ToolSearchMode.ON)
        offer = ToolOffer(host, on, always_load=["mail"])
        assert [e.name for e in offer.tools()] == ["mcp_mail_send"]
        found = offer.search({"query": "delete a DNS record", "limit": 1})
        assert [t["name"] for t in found["tools"]] == ["mcp_ops_dns_delete_record"]
        assert [e.name for e in offer.tools()] == ["mcp_mail_send", "mcp_ops_dns_delete_record"]
        assert offer.search({"query": "zzzz"})["tools"] == []
        assert "error" in offer.search({"query": "  "})
        assert "error" in offer.search({})
        offer.reconfigure(on, always_load=[])  # /reload-mcp: what was found stays found
        assert [e.name for e in offer.tools()] == ["mcp_ops_dns_delete_record"]

    mail = ToyServer("mail").tool("send", description="Send an email.")
    with_host(scenario, ops=ops_server(), mail=mail)


def test_tool_search_takes_a_bounded_regular_expression_over_names() -> None:
    async def scenario(host: MCPHost) -> None:
        offer = ToolOffer(host, ChatSettings(tool_search=ToolSearchMode.ON))
        found = offer.search({"pattern": "^MCP_OPS_dns_.*record$"})
        names = [t["name"] for t in found["tools"]]
        assert names and all(n.startswith("mcp_ops_dns_") for n in names)
        assert [e.name for e in offer.tools()] == names  # found: offered from now on
        assert "not a regular expression" in offer.search({"pattern": "([x"})["error"]
        assert "'pattern'" in offer.search({"pattern": ""})["error"]

    with_host(scenario, ops=ops_server())


def test_result_text_is_what_the_model_reads() -> None:
    text, failed = result_text({"content": [{"type": "text", "text": "a"}], "isError": False})
    assert (text, failed) == ("a", False)
    assert result_text({"content": [], "structuredContent": {"n": 1}}) == ('{\n  "n": 1\n}', False)
    assert result_text({"error": "down", "server": "s"}) == ("error: down", True)
    assert result_text({"content": [{"type": "text", "text": "no"}], "isError": True})[1]
    image = {"type": "image", "mimeType": "image/png", "data": "aGVsbG8="}
    text, failed = result_text({"content": [{"type": "text", "text": "a"}, image]})
    assert text == f"a\n[image: image/png, 5 bytes]\n{UNSEEN_MEDIA}" and not failed


# -- the turn loop ----------------------------------------------------------------------------


def test_a_tool_call_runs_through_the_host_and_its_result_reaches_the_model() -> None:
    async def scenario(host: MCPHost) -> None:
        shown, kept = Shown(), []
        offer = ToolOffer(host, ChatSettings())
        session = ChatSession(
            host, offer, "echo", shown, record=lambda role, text: kept.append((role, text))
        )
        await session.ask(calls(("mcp_ops_dns_list_records", {"zone": "example."})))
        assert shown.calls == [("mcp_ops_dns_list_records", {"zone": "example."})]
        first, second = echoed(shown)
        assert first["system"].startswith("You are Hermes")
        (result,) = second["tool_results"]
        assert result["output"] == "a.example. 300 IN A 1.2.3.4"
        assert ops.calls == [("dns_list_records", {"zone": "example."})]
        assert [role for role, _ in kept] == ["user", "tool", "assistant"]
        assert session.tokens[0] > 0 and session.tokens[1] > 0

    ops = ops_server()
    with_host(scenario, ops=ops)


def test_tool_failures_are_the_tools_result_and_the_session_goes_on() -> None:
    async def scenario(host: MCPHost) -> None:
        shown = Shown()
        session = ChatSession(host, ToolOffer(host, ChatSettings()), "echo", shown)
        await session.ask(
            calls(("mcp_ops_dns_lock", {}), ("mcp_ops_refuse", {}), ("mcp_nope_x", {}))
        )
        lock, refuse, unknown = echoed(shown)[1]["tool_results"]
        assert "the zone is locked" in lock["output"]
        assert refuse["output"] == "not allowed"
        assert unknown["output"].startswith("error: unknown tool 'mcp_nope_x'")
        assert [failed for _, _, failed in shown.results] == [True, True, True]
        shown.answer.clear()
        await session.ask("still there?")
        assert echoed(shown)[0]["prompt"] == "still there?"

    with_host(scenario, ops=ops_server())


def test_tool_search_finds_a_tool_that_the_next_turn_calls() -> None:
    async def scenario(host: MCPHost) -> None:
        shown = Shown()
        offer = ToolOffer(host, ChatSettings(tool_search=ToolSearchMode.ON))
        session = ChatSession(host, offer, "echo", shown)
        await session.ask(calls(("mcp_ops_dns_delete_record", {})))  # not offered yet
        (refused,) = echoed(shown)[1]["tool_results"]
        assert f"call {SEARCH_TOOL} to find tools" in refused["output"]
        assert ops.calls == []
        shown.answer.clear()
        await session.ask(calls((SEARCH_TOOL, {"query": "delete a DNS record", "limit": 2})))
        (search,) = echoed(shown)[1]["tool_results"]
        assert json.loads(search["output"])["tools"][0]["name"] == "mcp_ops_dns_delete_record"
        shown.answer.clear()
        await session.ask(calls(("mcp_ops_dns_delete_record", {"name": "www"})))
        (deleted,) = echoed(shown)[1]["tool_results"]
        assert deleted["output"] == "deleted"
        assert ops.calls == [("dns_delete_record", {"name": "www"})]

    ops = ops_server()
    with_host(scenario, ops=ops)


def test_switching_model_keeps_the_conversation_and_unknown_models_are_errors() -> None:
    async def scenario(host: MCPHost) -> None:
        shown = Shown()
        session = ChatSession(host, ToolOffer(host, ChatSettings()), "echo", shown)
        await session.ask("first")
        with pytest.raises(ChatError, match=r"unknown model .no-such-model.*llm models"):
            await session.switch_model("no-such-model")
        await session.switch_model("echo")
        shown.answer.clear()
        await session.ask("second")
        assert echoed(shown)[0]["prompt"] == "second"
        with pytest.raises(ChatError, match=r"needs-key.*llm keys set"):
            ChatSession(host, ToolOffer(host, ChatSettings()), "echo-needs-key", shown)

    with_host(scenario, ops=ops_server())


def test_a_model_that_keeps_calling_tools_is_stopped(tmp_path: Path) -> None:
    async def scenario(host: MCPHost) -> None:
        shown = Shown()
        session = ChatSession(host, ToolOffer(host, ChatSettings()), "echo", shown, max_rounds=0)
        await session.ask(calls(("mcp_ops_dns_list_records", {})))
        assert shown.notices == ["stopped: the model called tools 0 rounds running"]
        assert ops.calls == []

    ops = ops_server()
    with_host(scenario, ops=ops)


def test_a_tools_progress_reaches_the_output_and_the_terminal_line_is_clean() -> None:
    async def three_steps(_args: dict[str, Any], ctx: Any) -> str:
        for step in (1, 2, 3):
            await ctx.session.report_progress(step, 3, f"step {step}\x1b[31m")
        return "done"

    async def scenario(host: MCPHost) -> None:
        shown = Shown()
        session = ChatSession(host, ToolOffer(host, ChatSettings()), "echo", shown)
        await session.ask(calls(("mcp_s_work", {})))
        assert shown.notices == ["progress 1.0", "progress 2.0", "progress 3.0"]
        terminal = TerminalOutput(out=io.StringIO(), err=io.StringIO())
        terminal.progress(1, 3, "step 1\x1b[31m\n")
        terminal.text("answer \x1b[2Jtext")
        assert terminal.err.getvalue() == "progress: 1/3 (33%) step 1[31m \n"
        assert terminal.out.getvalue() == "answer [2Jtext"

    with_host(scenario, s=ToyServer("s").tool("work", three_steps, context=True))
