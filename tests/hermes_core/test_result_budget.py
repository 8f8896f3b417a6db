"""The ``result_budget`` interceptor: what is cut, what is kept, where the whole goes, and the
tool's own hint (unit tests on the interceptor, then through :class:`MCPHost`)."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time
from pathlib import Path
from typing import Any

from hermes_core.host.calls.intercept.table import InterceptorTable
from hermes_core.host.calls.result_budget import ResultBudget, clean_results, result_chars
from hermes_core.host.host import MCPHost
from hermes_core.plugins.types import InterceptedCall, InterceptorSetup
from support.memory import MEMORY, MemoryTransport, ToyServer, memory_server


def view(budget: int, tool: str = "dump") -> InterceptedCall:
    return InterceptedCall(
        name=f"mcp_s_{tool}",
        server="s",
        tool=tool,
        arguments={},
        annotations={},
        trust="full",
        transport="stdio",
        url=None,
        command="x",
        max_result_tokens=budget,
    )


def text_result(*texts: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": t} for t in texts], "isError": False}


def test_a_result_within_its_budget_is_left_alone(tmp_path: Path) -> None:
    budget = ResultBudget(tmp_path)
    assert budget.after(view(100), text_result("x" * 400)) is None
    assert budget.after(view(0), text_result("x" * 10**6)) is None  # 0: no budget
    assert budget.after(view(100), {"error": "y" * 10**6}) is None  # our errors are ours
    assert not (tmp_path / "results").exists()


def test_a_larger_result_is_cut_to_a_preview_and_saved_whole(tmp_path: Path) -> None:
    budget = ResultBudget(tmp_path)
    original = text_result("a" * 3000, "b" * 3000)
    cut = budget.after(view(1000), original)
    assert cut is not None
    texts = [item["text"] for item in cut["content"]]
    assert texts[0] == "a" * 3000 and set(texts[1]) == {"b"}
    assert result_chars(cut) <= 1000 * 4
    note = texts[-1]
    assert "it was about 1,500 tokens, over the budget of 1,000" in note
    (saved,) = (tmp_path / "results" / "s").iterdir()
    assert f"saved in {saved}" in note
    assert json.loads(saved.read_text()) == original
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "results").stat().st_mode) == 0o700


def test_structured_content_is_kept_whole_when_it_fits(tmp_path: Path) -> None:
    budget = ResultBudget(tmp_path)
    structured = {"rows": list(range(50))}
    cut = budget.after(
        view(200),
        {"content": [{"type": "text", "text": "t" * 5000}], "structuredContent": structured},
    )
    assert cut is not None and cut["structuredContent"] == structured
    assert "did not fit" not in cut["content"][-1]["text"]
    too_big = {"rows": ["r" * 100] * 100}
    cut = budget.after(view(200), {"content": [], "structuredContent": too_big})
    assert cut is not None and "structuredContent" not in cut
    assert "Its structured content did not fit" in cut["content"][-1]["text"]


def test_images_that_do_not_fit_are_left_out_and_counted(tmp_path: Path) -> None:
    image = {"type": "image", "data": "A" * 8000, "mimeType": "image/png"}
    cut = ResultBudget(tmp_path).after(view(500), {"content": [image], "isError": True})
    assert cut is not None and cut["isError"] is True
    assert [item["type"] for item in cut["content"]] == ["text"]
    assert "(1 content item left out)" in cut["content"][0]["text"]


def test_old_saved_results_are_removed_when_a_host_sets_the_budget_up(tmp_path: Path) -> None:
    folder = tmp_path / "results" / "s"
    folder.mkdir(parents=True)
    old, new = folder / "old.json", folder / "new.json"
    old.write_text("{}")
    new.write_text("{}")
    week_ago = time.time() - 8 * 86400
    os.utime(old, (week_ago, week_ago))
    (folder / "link.json").symlink_to(new)
    ResultBudget.create(InterceptorSetup(tmp_path, {"max_age_days": 7}))
    assert sorted(p.name for p in folder.iterdir()) == ["link.json", "new.json"]
    assert clean_results(tmp_path / "nowhere", 1) == 0


def test_through_the_host_the_tools_own_hint_lowers_its_budget(tmp_path: Path) -> None:
    server = ToyServer("s")
    server.tool("dump", "z" * 20_000)
    listed = server._on_list_tools  # the toy lists plain tools: add the hint to its listing

    async def with_hint(ctx: Any, params: Any) -> Any:
        result = await listed(ctx, params)
        for tool in result.tools:
            tool.meta = {"anthropic/maxResultSizeChars": 2000}
        return result

    server.sdk = type(server.sdk)("s", on_list_tools=with_hint, on_call_tool=server._on_call_tool)
    table = InterceptorTable.builtin(tmp_path)

    async def scenario() -> dict[str, Any]:
        entry = memory_server("s", interceptors=("result_budget",))
        async with MCPHost(
            [entry], transports={MEMORY: MemoryTransport({"s": server})}, interceptors=table
        ) as host:
            (tool,) = host.tools()
            assert tool.max_result_chars == 2000
            return await host.call_tool("mcp_s_dump")

    result = asyncio.run(scenario())
    assert "over the budget of 500" in result["content"][-1]["text"]  # 2,000 chars = 500 tokens


def test_a_resource_or_prompt_result_over_its_budget_is_cut_as_json(tmp_path: Path) -> None:
    read = {"contents": [{"uri": "file:///big.txt", "text": "r" * 20_000}]}
    assert ResultBudget(tmp_path).after(view(10_000, "read_resource"), read) is None
    cut = ResultBudget(tmp_path).after(view(1000, "read_resource"), read)
    assert cut is not None
    start, note = (item["text"] for item in cut["content"])
    assert start.startswith('{"contents": [{"uri": "file:///big.txt"')
    assert len(start) + len(note) <= 1000 * 4
    assert "(the start of its JSON)" in note and "over the budget of 1,000" in note
    (saved,) = (tmp_path / "results" / "s").iterdir()
    assert json.loads(saved.read_text()) == read
