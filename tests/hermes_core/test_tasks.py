"""Task-augmented tool calls against real servers, on both protocol revisions.

* 2025-11-25: server-everything's ``simulate-research-query`` (``taskSupport: required``; the
  server declares ``tasks.requests.tools.call``), over stdio and Streamable HTTP;
* 2026-07-28: ``modern_task_server.py``, an SDK server that speaks only 2026-07-28 and answers
  ``tools/call`` with task handles through the tasks extension, over stdio and HTTP.

Each test checks what a caller sees (the final result, the status lines, the task log) and what
the server saw (a cancelled or timed-out call's ``tasks/cancel``).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_core._sdk_compat import send_raw_request
from hermes_core.host.host import HostServer, MCPHost
from hermes_core.host.tasks import TaskStatus
from servers.net import PORT, free_port, http_server, wait_for_port
from servers.reference import EVERYTHING, LOOPBACK, node
from support.approvers import Answers
from support.cli import run_hermes
from support.home import clean_env

pytestmark = [pytest.mark.process, pytest.mark.slow]

MODERN_TASKS = str(Path(__file__).parents[1] / "servers" / "modern_task_server.py")
RESEARCH = "mcp_everything_simulate_research_query"


def everything(**kwargs: Any) -> HostServer:
    return HostServer("everything", command=node(), args=[str(EVERYTHING), "stdio"], **kwargs)


def modern(**kwargs: Any) -> HostServer:
    return HostServer("m", command=sys.executable, args=[MODERN_TASKS], **kwargs)


def text(result: dict[str, Any]) -> str:
    assert "error" not in result, result
    return str(result["content"][0]["text"])


async def server_status(host: MCPHost, server: str, task_id: str) -> str:
    """The task's status as the server reports it now (``tasks/get`` on the host's session)."""
    session = host._connections[server].session
    answer = await send_raw_request(session, "tasks/get", {"taskId": task_id}, name=task_id)
    return str(answer["status"])


# -- 2025-11-25: server-everything ------------------------------------------------------------
@pytest.mark.node
def test_a_task_only_tool_is_offered_and_called_to_its_final_result() -> None:
    async def scenario() -> None:
        async with MCPHost([everything()]) as host:
            assert host.registry.get(RESEARCH) is not None
            assert "simulate-research-query" not in host.unoffered_tools.get("everything", {})
            lines: list[str] = []
            result = await host.call_tool(
                RESEARCH, {"topic": "bees"}, on_progress=lambda p, t, m: lines.append(str(m))
            )
            assert "# Research Report: bees" in text(result)
            assert "task working: Gathering sources..." in lines
            assert any("Generating report" in line for line in lines)
            (record,) = host.tasks()
            assert (record.server, record.tool) == ("everything", "simulate-research-query")
            assert record.status is TaskStatus.COMPLETED

    asyncio.run(scenario())


@pytest.mark.node
def test_a_started_task_is_cancelled_on_the_server() -> None:
    async def scenario() -> None:
        async with MCPHost([everything()]) as host:
            run = host.start_task(RESEARCH, {"topic": "wasps"})
            task_id = await run.created()
            assert task_id is not None and run.status() is TaskStatus.WORKING
            await run.cancel()
            assert run.done() and run.status() is TaskStatus.CANCELLED
            assert await server_status(host, "everything", task_id) == "cancelled"

    asyncio.run(scenario())


@pytest.mark.node
def test_a_task_past_the_calls_timeout_fails_it_and_is_cancelled_on_the_server() -> None:
    async def scenario() -> None:
        async with MCPHost([everything(timeout=1.5)]) as host:
            result = await host.call_tool(RESEARCH, {"topic": "slow"})  # takes about 4 s
            assert "timed out after 1.5 s" in result["error"]
            (record,) = host.tasks()
            assert record.status is TaskStatus.CANCELLED
            assert await server_status(host, "everything", record.task_id) == "cancelled"

    asyncio.run(scenario())


@pytest.mark.node
def test_a_tasks_question_is_answered_through_the_hosts_elicitor() -> None:
    answers = Answers(interpretation="snake")

    async def scenario() -> None:
        async with MCPHost([everything()], elicitor=answers) as host:
            result = await host.call_tool(RESEARCH, {"topic": "python", "ambiguous": True})
            assert "Clarification**: snake" in text(result)
            assert answers.asked and "python" in answers.asked[0]

    asyncio.run(scenario())


@pytest.fixture(scope="module")
def everything_http() -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [node(), "-r", str(LOOPBACK), str(EVERYTHING), "streamableHttp"],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.node
@pytest.mark.network
def test_a_task_over_streamable_http(everything_http: str) -> None:
    async def scenario() -> None:
        server = HostServer("remote", url=everything_http, transport="streamable_http")
        async with MCPHost([server]) as host:
            result = await host.call_tool("mcp_remote_simulate_research_query", {"topic": "http"})
            assert "# Research Report: http" in text(result)

    asyncio.run(scenario())


# -- 2026-07-28: the tasks extension ----------------------------------------------------------
def test_a_modern_task_is_followed_to_its_result_with_its_status_lines() -> None:
    async def scenario() -> None:
        async with MCPHost([modern()]) as host:
            assert host.status()[0].protocol == "2026-07-28"
            lines: list[str] = []
            result = await host.call_tool(
                "mcp_m_research",
                {"topic": "bees"},
                on_progress=lambda p, t, m: lines.append(str(m)),
            )
            assert text(result) == "report on bees"
            assert "task working: Analysing (2/3)" in lines
            assert host.tasks()[0].status is TaskStatus.COMPLETED
            assert text(await host.call_tool("mcp_m_echo", {"text": "plain"})) == "plain"

    asyncio.run(scenario())


def test_a_modern_tasks_input_request_is_answered_with_tasks_update() -> None:
    answers = Answers(meaning="insects")

    async def scenario() -> None:
        async with MCPHost([modern()], elicitor=answers) as host:
            result = await host.call_tool("mcp_m_clarify", {"topic": "bees"})
            assert text(result) == "report on bees: insects"
            assert answers.asked == ["Which bees do you mean?"]  # asked once, not per poll

    asyncio.run(scenario())


def test_a_modern_task_that_fails_or_cannot_be_answered_is_the_calls_error() -> None:
    async def scenario() -> None:
        async with MCPHost([modern()]) as host:  # no elicitor: the question cannot be asked
            failed = await host.call_tool("mcp_m_broken", {})
            assert "failed: the research failed" in failed["error"]
            unanswered = await host.call_tool("mcp_m_clarify", {"topic": "bees"})
            assert "could not answer its request" in unanswered["error"]
            hostile = await host.call_tool("mcp_m_hostile", {})
            assert "the server's task is malformed: the task's taskId" in hostile["error"]
            assert "X-Injected" not in hostile["error"]

    asyncio.run(scenario())


def test_a_modern_task_cancelled_or_timed_out_is_cancelled_on_the_server() -> None:
    async def scenario() -> None:
        async with MCPHost([modern(timeout=1.0)]) as host:
            run = host.start_task("mcp_m_forever", {})
            started = await run.created()
            await run.cancel()
            timed_out = await host.call_tool("mcp_m_forever", {})
            assert "timed out after 1 s" in timed_out["error"]
            later = host.tasks()[0].task_id
            asked = json.loads(text(await host.call_tool("mcp_m_cancelled", {})))
            assert asked == [started, later]

    asyncio.run(scenario())


@pytest.fixture(scope="module")
def modern_http() -> Iterator[str]:
    with http_server([sys.executable, MODERN_TASKS, PORT]) as url:
        yield url


@pytest.mark.network
def test_a_modern_task_over_streamable_http(modern_http: str) -> None:
    async def scenario() -> None:
        server = HostServer("web", transport="streamable_http", url=modern_http)
        async with MCPHost([server]) as host:
            result = await host.call_tool("mcp_web_research", {"topic": "http"})
            assert text(result) == "report on http"

    asyncio.run(scenario())


# -- the CLI ----------------------------------------------------------------------------------
def _home(tmp_path: Path, entry: str) -> dict[str, str]:
    (tmp_path / "config.yaml").write_text(f"mcp_servers:\n{entry}")
    return {"HERMES_HOME": str(tmp_path)}


@pytest.mark.node
@pytest.mark.cli
def test_hermes_mcp_call_shows_the_tasks_status_and_mcp_tasks_lists_it(tmp_path: Path) -> None:
    env = _home(
        tmp_path, f"  everything:\n    command: {node()}\n    args: [{str(EVERYTHING)!r}, stdio]\n"
    )
    done = run_hermes("mcp", "call", "--json", RESEARCH, "--args", '{"topic": "bees"}', env=env)
    assert done.returncode == 0, done.stderr
    assert "# Research Report: bees" in json.loads(done.stdout)["content"][0]["text"]
    assert "task working: Gathering sources..." in done.stderr
    listed = run_hermes("mcp", "tasks", "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    (row,) = json.loads(listed.stdout)
    assert (row["server"], row["tool"], row["status"]) == (
        "everything",
        "simulate-research-query",
        "completed",
    )
    shown = run_hermes("mcp", "tasks", "--server", "everything", env=env)
    assert shown.stdout.startswith("completed") and row["task_id"] in shown.stdout
    assert "no tasks recorded" in run_hermes("mcp", "tasks", "--server", "x", env=env).stdout


@pytest.mark.network
@pytest.mark.cli
def test_ctrl_c_during_hermes_mcp_call_cancels_the_task_and_exits_130(
    tmp_path: Path, modern_http: str
) -> None:
    env = _home(tmp_path, f"  web:\n    url: {modern_http}\n    transport: streamable_http\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "hermes_core", "mcp", "call", "--json", "mcp_web_forever"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(os.environ, env),
    )
    assert process.stderr is not None
    for line in process.stderr:  # wait until the task runs (its first status line)
        if "task working" in line:
            break
    process.send_signal(signal.SIGINT)
    _, rest = process.communicate(timeout=30)
    assert process.returncode == 130, rest
    tasks = json.loads(run_hermes("mcp", "tasks", "--json", env=env).stdout)
    assert tasks[0]["status"] == "cancelled"
    asked = run_hermes("mcp", "call", "--json", "mcp_web_cancelled", env=env)
    assert tasks[0]["task_id"] in json.loads(asked.stdout)["content"][0]["text"]
