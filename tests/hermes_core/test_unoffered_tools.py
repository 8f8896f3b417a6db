"""What the host does not offer is refused by every path, with the reason ``status`` gives.

server-everything lists ``trigger-sampling-request`` only to a host that offers sampling, and
the fidelity server's ``researcher`` can only run as a task while the server does not declare
task-augmented calls (the host does not offer it; server-everything's task tool, which it can
call, is tested in test_tasks.py).  Without a
terminal, sampling with ``approval: ask`` cannot be offered (no one to ask): ``hermes mcp
tools`` hides the sampling tool, and ``hermes mcp call`` must refuse it for the same reason
rather than run it (issue 27, item 5).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from hermes_core.host.host import HostServer, MCPHost
from hermes_core.plugins.manager import create_plugin_manager
from hermes_core.sampling.settings import SamplingSettings
from servers.reference import EVERYTHING, node
from support.cli import run_hermes

SAMPLING_TOOL = "mcp_everything_trigger_sampling_request"
TASK_TOOL = "mcp_fidelity_researcher"
FIDELITY = Path(__file__).parents[1] / "servers" / "fidelity_server.py"
NO_ONE_TO_ASK = "approval: ask, but this host has no way to ask the user"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LLM_USER_PATH", str(tmp_path / "llm"))  # never the developer's own
    (tmp_path / "config.yaml").write_text(
        "sampling:\n  model: echo\n  approval: ask\nmcp_servers:\n  everything:\n"
        f"    command: {node()}\n    args: [{EVERYTHING}, stdio]\n"
        f"  fidelity:\n    command: {sys.executable}\n    args: [{FIDELITY}]\n"
    )
    return tmp_path


def cli(home: Path, *args: str) -> tuple[int, str, str]:
    done = run_hermes(*args, env={"HERMES_HOME": str(home)})
    return done.returncode, done.stdout, done.stderr


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.node
@pytest.mark.slow
def test_the_cli_refuses_the_sampling_tool_that_tools_hides(home: Path) -> None:
    code, out, _ = cli(home, "mcp", "tools", "--json")
    assert code == 0
    assert SAMPLING_TOOL not in [t["name"] for t in json.loads(out)]
    code, out, _ = cli(home, "mcp", "status")
    assert f"not offered: {NO_ONE_TO_ASK}" in out  # (the sampling line of every server)
    code, out, err = cli(
        home, "mcp", "call", "--json", SAMPLING_TOOL, "--args", '{"prompt": "hi", "maxTokens": 5}'
    )
    assert code == 1
    result = json.loads(out)
    assert result["state"] == "not_offered"
    assert NO_ONE_TO_ASK in result["error"]
    assert "content" not in result  # the server's tool never ran
    assert "wants model" not in err  # nor asked anything


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.node
@pytest.mark.slow
def test_the_cli_refuses_a_task_only_tool_with_its_reason(home: Path) -> None:
    code, out, _ = cli(home, "mcp", "call", "--json", TASK_TOOL, "--args", "{}")
    assert code == 1
    result = json.loads(out)
    assert result["state"] == "not_offered"
    assert "only run as a task" in result["error"]


@pytest.mark.process
@pytest.mark.node
@pytest.mark.slow
def test_the_host_refuses_both_with_the_status_reason(home: Path) -> None:
    server = HostServer(
        "everything",
        command=node(),
        args=[str(EVERYTHING), "stdio"],
        sampling=SamplingSettings(model="echo", approval="ask"),
    )
    fidelity = HostServer("fidelity", command=sys.executable, args=[str(FIDELITY)])
    providers = create_plugin_manager(strict=True).sampling_providers()

    async def calls() -> tuple[dict[str, object], dict[str, object], object]:
        async with MCPHost([server, fidelity], sampling_providers=providers) as host:
            sampled = await host.call_tool(SAMPLING_TOOL, {"prompt": "hi"})
            task = await host.call_tool(TASK_TOOL, {})
            typo = await host.call_tool("mcp_other_tool", {})
            return sampled, task, typo

    sampled, task, typo = asyncio.run(calls())
    assert sampled["state"] == "not_offered"
    assert NO_ONE_TO_ASK in str(sampled["error"])
    assert task["state"] == "not_offered"
    assert typo == {
        "error": "unknown tool 'mcp_other_tool'",
        "state": "unknown_tool",
        "retryable": False,
    }
