"""The one refusal record (``CallError``) and the call states (``CallState``), and
``hermes mcp call`` reading its config, policy and arguments once."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from hermes_core.cli import call_args
from hermes_core.host.calls.breaker import CircuitBreaker
from hermes_core.host.calls.refusals import (
    CallError,
    CallState,
    RefusalKind,
    refusal_of,
    unknown_tool,
)
from hermes_core.host.calls.result_text import render_text
from hermes_core.host.setup import config_source
from hermes_core.testing import HermesRunner

T = TypeVar("T")


def test_the_record_renders_the_keys_that_are_set_in_the_doors_order() -> None:
    full = CallError(
        "refused",
        CallState.REFUSED,
        "notes",
        retryable=False,
        tool="delete",
        details={"interceptor": "deny", "retry_after": 3},
    ).result()
    assert list(full) == [
        "error",
        "server",
        "tool",
        "state",
        "interceptor",
        "retry_after",
        "retryable",
    ]
    assert CallError("gone").result() == {"error": "gone"}
    assert list(CallError("x", server="s", retryable=True).result()) == [
        "error",
        "server",
        "retryable",
    ]


def test_a_state_is_the_same_word_in_json_as_the_literal_was() -> None:
    result = CallError("no", CallState.POLICY, "notes", retryable=False).result()
    assert type(result["state"]) is str  # a plain word, not the enum, in every result
    literal = {"error": "no", "server": "notes", "state": "policy", "retryable": False}
    assert json.dumps(result) == json.dumps(literal)
    assert result == literal
    assert CallState("not_offered") is CallState.NOT_OFFERED
    shown = refusal_of(result)
    assert shown is not None and shown.kind is RefusalKind.POLICY


def test_an_app_gate_keeps_the_availability_state() -> None:
    gate = CallError(
        "Install it.",
        "not_installed",
        "notes",
        details={"app": {"name": "Notes"}, "user_action": "Install it.", "retry": "never"},
    ).result()
    assert gate["state"] == "not_installed"
    shown = refusal_of(gate)
    assert shown is not None and shown.kind is RefusalKind.APP_GATE


def test_builders_give_the_results_they_always_gave() -> None:
    assert unknown_tool("mcp_a_x", ["mcp_a_y"]) == {
        "error": "unknown tool 'mcp_a_x'; did you mean mcp_a_y?",
        "state": "unknown_tool",
        "retryable": False,
    }
    breaker = CircuitBreaker("notes", threshold=1, cooldown=30, clock=lambda: 0.0)
    assert breaker.admit() is None
    breaker.record("transport")
    refused = breaker.admit()
    assert refused is not None
    assert list(refused) == ["error", "server", "state", "reason", "retry_after", "retryable"]
    assert refused["state"] == "circuit_open" and refused["retry_after"] == 30
    assert render_text(refused).host_error


@pytest.mark.cli
def test_mcp_call_reads_config_policy_and_arguments_once(
    hermes: HermesRunner, hermes_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One ``hermes mcp call`` reads ``config.yaml`` and the policy once (the warm and the
    cold handler share what the first read) and reads its ``key=value`` words once."""
    (hermes_home / "config.yaml").write_text(
        "mcp_servers:\n  broken:\n    command: /nonexistent/mcp-server\n"
    )
    counts = {"config": 0, "policy": 0, "pairs": 0}

    def counted(name: str, real: Callable[..., T]) -> Callable[..., T]:
        def wrapper(*args: object, **kwargs: object) -> T:
            counts[name] += 1
            return real(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(config_source, "load_config", counted("config", config_source.load_config))
    monkeypatch.setattr(config_source, "load_policy", counted("policy", config_source.load_policy))
    monkeypatch.setattr(call_args, "parse_pairs", counted("pairs", call_args.parse_pairs))
    result = hermes.in_process(
        "mcp", "call", "mcp_broken_read", "path=/x", env={"HERMES_WARM": "0"}
    )
    assert result.exit_code == 1, result.stderr
    assert "MCP server 'broken'" in result.stderr
    assert counts == {"config": 1, "policy": 1, "pairs": 1}
