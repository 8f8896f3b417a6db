"""What a server sends reaches the user: tool metadata, every page of a listing, templates,
progress and log messages; structured results are checked; task-only tools are not offered."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from hermes_core.host.host import HostServer, MCPHost
from hermes_core.host.sync import SyncMCPHost
from hermes_core.host.tools.utility_tools import LIST_MAX_PAGES
from servers.reference import EVERYTHING, node
from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.node, pytest.mark.cli, pytest.mark.slow]

SERVER = Path(__file__).parents[1] / "servers" / "fidelity_server.py"
TAG_A = "\U000e0041"


def fidelity(env: dict[str, str] | None = None, **kwargs: Any) -> HostServer:
    return HostServer(
        "fidelity", command=sys.executable, args=[str(SERVER)], env=env or {}, **kwargs
    )


def everything() -> HostServer:
    return HostServer("everything", command=node(), args=[str(EVERYTHING), "stdio"])


def test_tool_metadata_is_kept_and_sanitised() -> None:
    async def scenario() -> dict[str, Any]:
        async with MCPHost([fidelity(supports_parallel_tool_calls=True)]) as host:
            return {t.tool: t for t in host.tools()}

    tools = asyncio.run(scenario())
    shaped = tools["shaped"]
    assert shaped.title == "Shaped Result"  # the TAG character is gone
    assert shaped.annotations == {
        "title": "Shaped (annotation title)",
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    assert shaped.read_only is True
    assert shaped.output_schema == {
        "type": "object",
        "properties": {"total": {"type": "integer"}},
        "required": ["total"],
    }
    assert tools["slow"].title is None and tools["slow"].annotations is None
    assert all(t.supports_parallel_tool_calls for t in tools.values())


def test_structured_content_breaking_the_output_schema_is_a_clear_error() -> None:
    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        async with MCPHost([fidelity()]) as host:
            good = await host.call_tool("mcp_fidelity_shaped")
            bad = await host.call_tool("mcp_fidelity_misshapen")
            return good, bad

    good, bad = asyncio.run(scenario())
    assert good["structuredContent"] == {"total": 3}
    assert bad["state"] == "invalid_output"
    assert bad["server"] == "fidelity" and bad["tool"] == "misshapen"
    assert "does not match the tool's outputSchema" in bad["error"]
    assert "'three' is not of type 'integer'" in bad["error"]
    assert "Traceback" not in bad["error"] and "\n" not in bad["error"]


def test_a_task_only_tool_of_a_server_without_tasks_is_not_offered_and_says_why() -> None:
    """``researcher`` needs a task, and the fidelity server does not declare task-augmented
    calls (server-everything does: its task tool is offered, see test_tasks.py)."""

    async def scenario() -> tuple[set[str], dict[str, dict[str, str]], dict[str, Any]]:
        async with MCPHost([fidelity(), everything()]) as host:
            names = {t.tool for t in host.tools()}
            called = await host.call_tool("mcp_fidelity_researcher")
            return names, host.unoffered_tools, called

    names, unoffered, called = asyncio.run(scenario())
    assert "researcher" not in names and "simulate-research-query" in names
    reason = unoffered["fidelity"]["researcher"]
    assert "taskSupport: required" in reason and "does not declare" in reason
    assert "simulate-research-query" not in unoffered["everything"]
    assert called["state"] == "not_offered" and "taskSupport: required" in called["error"]


def test_listings_page_through_every_page() -> None:
    async def scenario() -> list[dict[str, Any]]:
        async with MCPHost([fidelity()]) as host:
            return [
                await host.call_tool(f"mcp_fidelity_{name}")
                for name in ("list_resources", "list_prompts", "list_resource_templates")
            ]

    resources, prompts, templates = (r["structuredContent"] for r in asyncio.run(scenario()))
    assert [r["uri"] for r in resources["resources"]] == [f"fidelity://item/{i}" for i in range(23)]
    assert resources["pages"] == 5 and "truncated" not in resources
    assert [p["name"] for p in prompts["prompts"]] == [f"prompt-{i}" for i in range(12)]
    assert prompts["pages"] == 3
    assert [t["uriTemplate"] for t in templates["resourceTemplates"]] == [
        f"fidelity://tpl{i}/{{id}}" for i in range(7)
    ]


def test_a_server_without_templates_lists_none() -> None:
    async def scenario() -> dict[str, Any]:
        async with MCPHost([fidelity({"NO_TEMPLATES": "1"})]) as host:
            return await host.call_tool("mcp_fidelity_list_resource_templates")

    result = asyncio.run(scenario())
    assert result["structuredContent"] == {"resourceTemplates": [], "pages": 1}
    assert result["content"] == [
        {"type": "text", "text": "MCP server 'fidelity' lists no resource templates."}
    ]


def test_a_server_paging_forever_is_cut_short_and_says_so() -> None:
    async def scenario() -> dict[str, Any]:
        async with MCPHost([fidelity({"ENDLESS": "1"})]) as host:
            return await host.call_tool("mcp_fidelity_list_resources")

    listed = asyncio.run(scenario())["structuredContent"]
    assert listed["truncated"] is True
    assert listed["pages"] == LIST_MAX_PAGES == len(listed["resources"])
    assert f"more than {LIST_MAX_PAGES} pages" in listed["note"]
    assert isinstance(listed["nextCursor"], str)  # where a next call goes on


@pytest.mark.parametrize(
    ("tool", "arguments", "problem"),
    [
        ("get_prompt", {"name": "prompt-1", "arguments": "x"}, "'arguments' must be an object"),
        ("get_prompt", {"arguments": {}}, "missing required argument 'name'"),
        ("get_prompt", {"name": "p", "arguments": {"a": [1]}}, "arguments.a must be a string"),
        ("read_resource", {}, "missing required argument 'uri'"),
        ("read_resource", {"uri": ""}, "'uri' must not be empty"),
        ("read_resource", {"uri": 7}, "'uri' must be a string, not int"),
        ("list_resources", {"page": 2}, "unknown argument(s) 'page' (valid: cursor)"),
        ("list_prompts", {"cursor": 7}, "'cursor' must be a string, not int"),
    ],
)
def test_utility_arguments_are_checked_before_anything_is_sent(
    tool: str, arguments: dict[str, Any], problem: str
) -> None:
    async def scenario() -> dict[str, Any]:
        async with MCPHost([fidelity()]) as host:
            return await host.call_tool(f"mcp_fidelity_{tool}", arguments)

    result = asyncio.run(scenario())
    assert result["state"] == "invalid_arguments"
    assert result["error"].startswith(f"{tool} of MCP server 'fidelity' was not called: {problem}")


def test_prompt_arguments_that_are_numbers_are_sent_as_text() -> None:
    async def scenario() -> dict[str, Any]:
        async with MCPHost([fidelity()]) as host:
            return await host.call_tool(
                "mcp_fidelity_get_prompt", {"name": "prompt-1", "arguments": {"n": 2, "b": True}}
            )

    got = asyncio.run(scenario())["structuredContent"]
    assert got["messages"][0]["content"]["text"] == "prompt-1 with [('b', 'true'), ('n', '2')]"


def test_progress_reaches_the_callback_cleaned() -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def scenario() -> dict[str, Any]:
        async with MCPHost([fidelity()]) as host:
            return await host.call_tool(
                "mcp_fidelity_slow", on_progress=lambda p, t, m: seen.append((p, t, m))
            )

    result = asyncio.run(scenario())
    assert result["content"][0]["text"] == "done"
    assert seen == [(1.0, 3.0, "step 1[31m"), (2.0, 3.0, "step 2[31m"), (3.0, 3.0, "step 3[31m")]


def test_progress_through_the_sync_facade_runs_on_the_host_thread() -> None:
    threads: set[str] = set()
    steps: list[float] = []

    def on_progress(progress: float, total: float | None, message: str | None) -> None:
        threads.add(threading.current_thread().name)
        steps.append(progress)

    with SyncMCPHost([fidelity()]) as host:
        result = host.call_tool("mcp_fidelity_slow", on_progress=on_progress)
    assert result["content"][0]["text"] == "done"
    assert steps == [1.0, 2.0, 3.0] and threads == {"hermes-mcp"}


def test_a_failing_progress_callback_does_not_break_the_call() -> None:
    def broken(progress: float, total: float | None, message: str | None) -> None:
        raise ValueError("display gone")

    async def scenario() -> dict[str, Any]:
        async with MCPHost([fidelity()]) as host:
            return await host.call_tool("mcp_fidelity_slow", on_progress=broken)

    assert asyncio.run(scenario())["content"][0]["text"] == "done"


def test_server_log_messages_go_to_the_servers_logger(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        async with MCPHost([fidelity()]) as host:
            await host.call_tool("mcp_fidelity_slow")

    with caplog.at_level(logging.DEBUG, logger="hermes.mcp.fidelity"):
        asyncio.run(scenario())
    records = [(r.name, r.levelno, r.getMessage()) for r in caplog.records]
    assert (
        "hermes.mcp.fidelity",
        logging.INFO,
        "MCP server log [fidelity/worker]: starting the slow work",
    ) in records
    assert (
        "hermes.mcp.fidelity",
        logging.WARNING,
        'MCP server log [fidelity]: {"disk": "nearly full"}',
    ) in records


def test_everything_long_running_operation_reports_progress() -> None:
    seen: list[tuple[float, float | None]] = []

    async def scenario() -> dict[str, Any]:
        async with MCPHost([everything()]) as host:
            return await host.call_tool(
                "mcp_everything_trigger_long_running_operation",
                {"duration": 0.2, "steps": 4},
                on_progress=lambda p, t, m: seen.append((p, t)),
            )

    result = asyncio.run(scenario())
    assert "completed" in result["content"][0]["text"]
    assert seen == [(1.0, 4.0), (2.0, 4.0), (3.0, 4.0), (4.0, 4.0)]


def test_everything_metadata_templates_and_logs() -> None:
    got_log = threading.Event()
    lines: list[str] = []

    class Catch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())
            got_log.set()

    logger = logging.getLogger("hermes.mcp.everything")
    handler = Catch()
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        async with MCPHost([everything()]) as host:
            tools = {t.tool: t for t in host.tools()}
            templates = await host.call_tool("mcp_everything_list_resource_templates")
            await host.call_tool("mcp_everything_toggle_simulated_logging")
            # The server logs on a timer: wait for the first message (an event, not a sleep).
            arrived = await asyncio.to_thread(got_log.wait, 60)
            assert arrived, "server-everything sent no log message within 60 s"
            return {n: tools[n] for n in ("get-structured-content",)}, templates

    try:
        tools, templates = asyncio.run(scenario())
    finally:
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)
    structured = tools["get-structured-content"]
    assert structured.output_schema is not None and structured.title
    assert structured.annotations is not None and "readOnlyHint" in structured.annotations
    assert structured.execution == {"taskSupport": "forbidden"}
    uris = [t["uriTemplate"] for t in templates["structuredContent"]["resourceTemplates"]]
    assert "demo://resource/dynamic/text/{resourceId}" in uris
    assert lines[0].startswith("MCP server log [everything")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n"
        "  fidelity:\n"
        f"    command: {sys.executable}\n"
        f"    args: [{str(SERVER)!r}]\n"
        "    supports_parallel_tool_calls: true\n"
    )
    return tmp_path


def test_cli_tools_json_keeps_metadata_and_says_why_a_tool_is_missing(home: Path) -> None:
    done = run_hermes("mcp", "tools", "--json", env={"HERMES_HOME": str(home)})
    assert done.returncode == 0, done.stderr
    tools = {t["tool"]: t for t in json.loads(done.stdout)}
    assert tools["shaped"]["title"] == "Shaped Result"
    assert tools["shaped"]["annotations"]["destructiveHint"] is False
    assert tools["shaped"]["output_schema"]["required"] == ["total"]
    assert tools["shaped"]["supports_parallel_tool_calls"] is True
    assert "researcher" not in tools
    assert "# fidelity: tool 'researcher' not offered: it can only run as a task" in done.stderr
    assert TAG_A not in done.stdout


def test_cli_call_shows_progress_and_with_v_the_servers_logs(home: Path) -> None:
    quiet = run_hermes("mcp", "call", "--json", "mcp_fidelity_slow", env={"HERMES_HOME": str(home)})
    assert quiet.returncode == 0, quiet.stderr
    assert json.loads(quiet.stdout)["content"][0]["text"] == "done"
    assert "progress: 1/3 (33%) step 1[31m" in quiet.stderr  # the first line shows at once
    assert "progress: 3/3 (100%) step 3[31m" in quiet.stderr  # and the last always
    assert "\x1b" not in quiet.stderr and TAG_A not in quiet.stderr
    assert "MCP server log" not in quiet.stderr

    loud = run_hermes(
        "mcp", "call", "--json", "mcp_fidelity_slow", "-v", env={"HERMES_HOME": str(home)}
    )
    assert loud.returncode == 0, loud.stderr
    assert "INFO MCP server log [fidelity/worker]: starting the slow work" in loud.stderr
    assert 'WARNING MCP server log [fidelity]: {"disk": "nearly full"}' in loud.stderr


def test_cli_call_with_bad_utility_arguments_exits_1_with_the_reason(home: Path) -> None:
    done = run_hermes(
        "mcp",
        "call",
        "--json",
        "mcp_fidelity_get_prompt",
        "--args",
        '{"name": "prompt-1", "arguments": "x"}',
        env={"HERMES_HOME": str(home)},
    )
    assert done.returncode == 1
    assert json.loads(done.stdout)["state"] == "invalid_arguments"
    assert "Traceback" not in done.stderr
