"""hermes-llm on the real ``llm`` library with the ``llm-echo`` debug model (offline)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from hermes_llm import complete, list_models
from hermes_llm import plugin as llm_plugin

from hermes_core.plugins.manager import create_plugin_manager
from hermes_core.sampling.backend import (
    ChatMessage,
    CompletionRequest,
    SamplingTool,
    TextPart,
    ToolResultPart,
    ToolUsePart,
)
from hermes_core.testing import check_plugin


@pytest.fixture(autouse=True)
def _llm_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_USER_PATH", str(tmp_path))


def test_the_plugin_contributes_the_llm_backend_through_its_entry_point() -> None:
    (spec,) = check_plugin(llm_plugin, "llm")["sampling_provider"]
    assert spec.name == "llm"
    assert "llm" in create_plugin_manager(strict=True).sampling_providers()


def test_models_are_llms_async_models_with_their_aliases(tmp_path: Path) -> None:
    (tmp_path / "aliases.json").write_text(json.dumps({"parrot": "echo"}))
    echo = next(m for m in list_models() if m.id == "echo")
    assert echo.aliases == ("parrot",)
    assert echo.supports_tools and echo.supports_images


def test_a_completion_by_alias_with_system_prompt() -> None:
    request = CompletionRequest(
        model="echo",
        messages=(ChatMessage("user", (TextPart("hello"),)),),
        max_tokens=10,
        system="be brief",
        temperature=0.5,
        stop_sequences=("END",),
    )
    answer = asyncio.run(complete(request))
    echoed = json.loads(answer.text)
    assert echoed["prompt"] == "hello" and echoed["system"] == "be brief"
    assert answer.model == "echo" and answer.tool_calls == ()
    assert answer.input_tokens == 3 and answer.output_tokens and answer.output_tokens > 0


def test_tools_come_back_as_tool_calls_and_results_go_in() -> None:
    ask = json.dumps({"prompt": "x", "tool_calls": [{"name": "add", "arguments": {"a": 1}}]})
    tool = SamplingTool("add", "Add", {"type": "object", "properties": {"a": {"type": "number"}}})
    first = asyncio.run(
        complete(
            CompletionRequest(
                model="echo",
                messages=(ChatMessage("user", (TextPart(ask),)),),
                max_tokens=10,
                tools=(tool,),
            )
        )
    )
    (call,) = first.tool_calls
    assert call.name == "add" and dict(call.arguments) == {"a": 1} and call.id
    second = asyncio.run(
        complete(
            CompletionRequest(
                model="echo",
                messages=(
                    ChatMessage("user", (TextPart(ask),)),
                    ChatMessage("assistant", (ToolUsePart(call.id, "add", {"a": 1}),)),
                    ChatMessage("user", (ToolResultPart(call.id, "add", "1"),)),
                ),
                max_tokens=10,
                tools=(tool,),
            )
        )
    )
    echoed = json.loads(second.text)
    assert echoed["tool_results"] == [{"name": "add", "output": "1", "tool_call_id": call.id}]
