"""Sampling end to end: server-everything and our SDK server ask the host's LLM.

The LLM is the ``llm`` library's ``echo`` debug model (PyPI ``llm-echo``) behind the
first-party ``hermes-llm`` plugin: deterministic and offline.  A backend that never answers
(for the timeout) and one that records what it was sent are inline ``sampling_provider``
plugins, because no real LLM can be slow or introspected on demand here.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path

import pytest

from hermes_core.host.host import HostServer, MCPHost
from hermes_core.offers.elicitation import ElicitationAnswer, ElicitationRequest
from hermes_core.plugins.manager import create_plugin_manager
from hermes_core.plugins.types import SamplingProvider
from hermes_core.sampling.backend import Completion, CompletionRequest, ModelInfo
from hermes_core.sampling.settings import SamplingSettings
from servers.reference import EVERYTHING, node
from support.cli import run_hermes
from support.home import clean_env

SERVER = str(Path(__file__).parents[1] / "servers" / "sampling_server.py")


@pytest.fixture(autouse=True)
def _llm_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """llm reads keys and aliases from LLM_USER_PATH: never the developer's own."""
    monkeypatch.setenv("LLM_USER_PATH", str(tmp_path_factory.mktemp("llm")))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path


def env(home: Path) -> dict[str, str]:
    import os

    return {"HERMES_HOME": str(home), "LLM_USER_PATH": os.environ["LLM_USER_PATH"]}


def write(home: Path, text: str) -> None:
    (home / "config.yaml").write_text(text)


def ours(name: str = "s", sampling: str = "") -> str:
    block = f"    sampling: {sampling}\n" if sampling else ""
    return f"  {name}:\n    command: {sys.executable}\n    args: [{SERVER}]\n{block}"


def everything(sampling: str = "") -> str:
    block = f"    sampling: {sampling}\n" if sampling else ""
    return f"  everything:\n    command: {node()}\n    args: [{EVERYTHING}, stdio]\n{block}"


def tool_text(stdout: str) -> str:
    return str(json.loads(stdout)["content"][0]["text"])


def llm_providers() -> dict[str, SamplingProvider]:
    return create_plugin_manager(strict=True).sampling_providers()


# --------------------------------------------------------------------------- config


@pytest.mark.process
@pytest.mark.cli
def test_a_bad_sampling_block_is_an_error_at_its_line(home: Path) -> None:
    write(home, "mcp_servers:\n" + ours(sampling='{max_rpm: "lots", bogus: 1}'))
    done = run_hermes("mcp", "list", env=env(home))
    assert done.returncode == 2, done.stderr
    assert "config.yaml:5: mcp_servers.s.sampling.bogus: unknown key" in done.stderr
    assert "the keys here are: allowed_models, approval, backend, enabled" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("enabled", "maybe", "must be true or false"),
        ("model", "''", "must be a non-empty name"),
        ("max_tokens_cap", "0", "must be 1 or more"),
        ("timeout", "-3", "must be a positive number of seconds"),
        ("max_rpm", "lots", "must be a whole number"),
        ("max_tool_rounds", "-1", "must be 0 or more"),
        ("allowed_models", "{a: 1}", "must be a list of model names"),
        ("log_level", "loud", "must be one of debug, info, warning"),
        ("approval", "always", "must be one of auto, ask"),
        ("max_rmp", "3", "unknown key (did you mean 'max_rpm'?"),
    ],
)
def test_every_sampling_key_is_checked(key: str, value: str, reason: str) -> None:
    from hermes_core.config.loader import parse_config_text
    from hermes_core.config.models import ConfigError

    text = f"sampling:\n  {key}: {value}\nmcp_servers: {{}}\n"
    with pytest.raises(ConfigError) as caught:
        parse_config_text(text, "config.yaml")
    assert str(caught.value).startswith(f"config.yaml:2: sampling.{key}: {reason}")


def test_server_values_win_over_the_host_wide_block() -> None:
    from hermes_core.config.loader import parse_config_text
    from hermes_core.host.setup.from_config import host_servers

    loaded = parse_config_text(
        "sampling:\n  model: echo\n  max_rpm: 3\n  log_level: warning\nmcp_servers:\n"
        + ours(sampling="{max_rpm: 7, approval: ask, allowed_models: [echo]}")
    )
    (server,) = host_servers(loaded)
    assert server.sampling == SamplingSettings(
        model="echo",
        max_rpm=7,
        log_level="warning",
        approval="ask",
        allowed_models=("echo",),
    )


@pytest.mark.process
@pytest.mark.cli
def test_an_unknown_backend_is_an_error_listing_the_registered_ones(home: Path) -> None:
    write(home, "sampling:\n  backend: openrouter\n  model: echo\nmcp_servers:\n" + ours())
    done = run_hermes("mcp", "status", env=env(home))
    assert done.returncode == 2
    assert "config.yaml:2: sampling.backend: no sampling backend named 'openrouter'" in done.stderr
    assert "(registered: llm)" in done.stderr


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_the_host_wide_block_is_expanded_like_a_servers_own(home: Path) -> None:
    """``${VAR}`` in the top-level ``sampling:`` block resolves from the environment (and
    ``.env``); an unset one fails the servers that inherit it, naming the file, line and key."""
    write(home, 'sampling:\n  model: "${HERMES_TEST_MODEL}"\nmcp_servers:\n' + ours())
    with_model = {**env(home), "HERMES_TEST_MODEL": "echo"}
    status = run_hermes("mcp", "status", "--json", env=with_model)
    assert status.returncode == 0, status.stderr
    (row,) = json.loads(status.stdout)
    assert row["sampling"]["offered"] is True, row
    unset = run_hermes("mcp", "status", env=env(home))
    assert unset.returncode != 0
    assert "config.yaml:2: sampling.model: ${HERMES_TEST_MODEL} is not set" in unset.stdout


# --------------------------------------------------------------------------- server-everything


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_server_everything_samples_through_hermes_mcp_call(home: Path) -> None:
    write(home, "sampling:\n  model: echo\nmcp_servers:\n" + everything())
    done = run_hermes(
        "mcp",
        "call",
        "--json",
        "mcp_everything_trigger_sampling_request",
        "--args",
        '{"prompt": "Say hi", "maxTokens": 50}',
        env=env(home),
    )
    assert done.returncode == 0, done.stderr
    text = tool_text(done.stdout)
    result = json.loads(text.split("\n", 1)[1])
    assert result["model"] == "echo"
    assert result["stopReason"] == "endTurn"
    echoed = json.loads(result["content"]["text"])
    assert echoed["prompt"] == "Resource trigger-sampling-request context: Say hi"
    assert echoed["system"] == "You are a helpful test server."


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
@pytest.mark.parametrize(
    ("top", "block", "why"),
    [
        ("sampling:\n  model: echo\n", "{enabled: false}", "disabled"),
        ("", "", "no model configured"),
        ("sampling:\n  model: gpt-9\n", "", "model 'gpt-9' is not offered"),
    ],
)
def test_without_sampling_the_sampling_tool_does_not_appear(
    home: Path, top: str, block: str, why: str
) -> None:
    # The server's entry is written here, not at collection: collecting needs no node.
    write(home, top + "mcp_servers:\n" + everything(block))
    listed = run_hermes("mcp", "tools", "--json", env=env(home))
    assert listed.returncode == 0, listed.stderr
    names = [t["name"] for t in json.loads(listed.stdout)]
    assert "mcp_everything_echo" in names
    assert "mcp_everything_trigger_sampling_request" not in names
    status = run_hermes("mcp", "status", env=env(home))
    if why == "no model configured":  # nothing asked for sampling: no line about it
        assert "sampling" not in status.stdout, status.stdout
    else:
        assert f"sampling: not offered: {why}" in status.stdout


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_no_backend_installed_is_said_in_status(home: Path) -> None:
    write(home, "sampling:\n  model: echo\nmcp_servers:\n" + everything())
    status = run_hermes("--no-plugins", "mcp", "status", "--json", env=env(home))
    (row,) = json.loads(status.stdout)
    assert row["sampling"] == {
        "offered": False,
        "reason": "no sampling backend is installed (pip install hermes-llm)",
    }
    assert row["tools"] > 0


# --------------------------------------------------------------------------- our SDK server


def call_ours(home: Path, tool: str, args: dict[str, object]) -> object:
    done = run_hermes(
        "mcp", "call", "--json", f"mcp_s_{tool}", "--args", json.dumps(args), env=env(home)
    )
    assert done.returncode == 0, done.stderr
    return json.loads(tool_text(done.stdout))


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_tool_enabled_sampling_over_several_rounds_stops_at_max_tool_rounds(home: Path) -> None:
    write(
        home,
        "sampling:\n  model: echo\n  backend: llm\nmcp_servers:\n"
        + ours(sampling="{max_tool_rounds: 3}"),
    )
    done = run_hermes(
        "mcp", "call", "--json", "mcp_s_tool_loop", "--args", '{"rounds": 5}', env=env(home)
    )
    assert done.returncode == 0, done.stderr
    assert (
        "# s sampling: model echo · 4 requests, 3 completed, 1 refused (tool_rounds 1), "
        "0 errors, 0 timeouts · tokens " in done.stderr
    )
    trace = json.loads(tool_text(done.stdout))
    rounds = {"tool_use": ["add"], "stop": "toolUse"}
    assert trace == [
        rounds,
        rounds,
        rounds,
        {
            "refused": "tool_rounds",
            "message": "Tool loop limit exceeded for server 's' (max_tool_rounds: 3)",
        },
    ]


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_max_tool_rounds_zero_refuses_tools(home: Path) -> None:
    write(home, "sampling:\n  model: echo\nmcp_servers:\n" + ours(sampling="{max_tool_rounds: 0}"))
    # The sampling.tools capability is not advertised: the SDK server does not even send tools.
    trace = call_ours(home, "tool_loop", {"rounds": 1})
    assert trace == [
        {"refused": None, "message": "Client does not support sampling tools capability"}
    ]


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_the_eleventh_request_in_a_minute_is_refused(home: Path) -> None:
    write(home, "sampling:\n  model: echo\nmcp_servers:\n" + ours())
    assert call_ours(home, "burst", {"count": 11}) == ["ok"] * 10 + ["rate_limited"]


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_max_rpm_from_config_sets_the_window(home: Path) -> None:
    write(
        home, "sampling:\n  model: echo\n  max_rpm: 9\nmcp_servers:\n" + ours("s", "{max_rpm: 3}")
    )
    assert call_ours(home, "burst", {"count": 4}) == ["ok", "ok", "ok", "rate_limited"]


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_a_disallowed_model_is_refused_and_an_allowed_hint_is_taken(home: Path) -> None:
    write(home, "mcp_servers:\n" + ours(sampling="{allowed_models: [echo]}"))
    refused = call_ours(home, "ask", {"prompt": "hi", "hint": "gpt-4o"})
    assert refused == {
        "refused": -1,
        "reason": "model_not_allowed",
        "message": "Model 'gpt-4o' not allowed for server 's'. Allowed: echo",
    }
    taken = call_ours(home, "ask", {"prompt": "hi", "hint": "ECH"})
    assert isinstance(taken, dict) and taken["model"] == "echo"


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_approval_ask_without_a_terminal_offers_no_sampling(home: Path) -> None:
    # No one to ask: sampling is not offered (as `status` says), so the server's request is
    # refused by the SDK as unsupported; nothing is shown for approval, nothing is sent.
    write(home, "sampling:\n  model: echo\n  approval: ask\nmcp_servers:\n" + ours())
    done = run_hermes(
        "mcp", "call", "--json", "mcp_s_ask", "--args", '{"prompt": "hi"}', env=env(home)
    )
    assert json.loads(tool_text(done.stdout)) == {
        "refused": -32600,
        "reason": None,
        "message": "Sampling not supported",
    }
    assert "wants model 'echo' to answer:" not in done.stderr


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_the_audit_line_never_holds_the_prompt_above_debug(home: Path) -> None:
    write(
        home,
        "sampling:\n  model: echo\n  log_level: warning\n  max_tokens_cap: 64\nmcp_servers:\n"
        + ours(),
    )
    done = run_hermes(
        "mcp",
        "call",
        "--json",
        "mcp_s_ask",
        "--args",
        '{"prompt": "my secret plans", "max_tokens": 500}',
        env=env(home),
    )
    assert done.returncode == 0
    assert "sampling: server 's', model echo, 1 message(s), max 64 tokens, tokens in" in (
        done.stderr
    )
    assert "completed" in done.stderr
    assert "secret plans" not in done.stderr


# --------------------------------------------------------------------------- in process


def sdk_server(**sampling: object) -> HostServer:
    settings = SamplingSettings(**{"model": "echo", **sampling})  # type: ignore[arg-type]
    return HostServer("s", command=sys.executable, args=[SERVER], sampling=settings)


async def call_tool(host: MCPHost, tool: str, **args: object) -> object:
    result = await host.call_tool(f"mcp_s_{tool}", args)
    return json.loads(result["content"][0]["text"])


@pytest.mark.process
@pytest.mark.slow
def test_metrics_and_the_sliding_window_reopening() -> None:
    now = [1000.0]

    async def scenario() -> None:
        async with MCPHost(
            [sdk_server()], sampling_providers=llm_providers(), sampling_clock=lambda: now[0]
        ) as host:
            assert await call_tool(host, "burst", count=11) == ["ok"] * 10 + ["rate_limited"]
            now[0] += 59.0
            assert await call_tool(host, "burst", count=1) == ["rate_limited"]
            now[0] += 1.0  # the first ten are a minute old now
            assert await call_tool(host, "burst", count=2) == ["ok", "ok"]
            (row,) = host.status()
            info = row.sampling
            assert info is not None
            assert info["offered"] and info["model"] == "echo" and info["backend"] == "llm"
            assert info["requests"] == 14 and info["completed"] == 12
            assert info["refused"] == {"rate_limited": 2}
            assert info["errors"] == 0 and info["timeouts"] == 0
            assert info["tokens_in"] >= 24 and info["tokens_out"] > 0
            assert info["last_model"] == "echo"

    asyncio.run(scenario())


class Recording:
    """A backend that records each request and answers from the last text (or never)."""

    def __init__(self, *, hang: bool = False) -> None:
        self.requests: list[CompletionRequest] = []
        self.hang = hang

    def provider(self) -> SamplingProvider:
        def models() -> list[ModelInfo]:
            return [ModelInfo("rec-1", aliases=("rec",), supports_images=True)]

        async def complete(request: CompletionRequest) -> Completion:
            self.requests.append(request)
            if self.hang:
                await asyncio.Event().wait()
            return Completion(text="recorded", model="rec-1", input_tokens=3, output_tokens=1)

        return SamplingProvider("recorder", models=models, complete=complete)


@pytest.mark.process
@pytest.mark.slow
def test_request_fields_reach_the_backend_clamped() -> None:
    backend = Recording()

    async def scenario() -> object:
        server = sdk_server(model="rec", max_tokens_cap=64)
        async with MCPHost([server], sampling_providers={"recorder": backend.provider()}) as host:
            return await call_tool(
                host, "ask", prompt="look", max_tokens=5000, image=True, stop=["END"]
            )

    assert asyncio.run(scenario()) == {
        "ok": True,
        "model": "rec-1",
        "stop_reason": "endTurn",
        "text": "recorded",
        "content": [{"type": "text", "text": "recorded"}],
    }
    (request,) = backend.requests
    assert request.model == "rec-1"
    assert request.max_tokens == 64
    assert request.system == "You are terse."
    assert request.temperature == 0.2
    assert request.stop_sequences == ("END",)
    (message,) = request.messages
    assert [type(p).__name__ for p in message.parts] == ["TextPart", "ImagePart"]


@pytest.mark.process
def test_a_backend_past_the_timeout_is_refused_and_counted() -> None:
    backend = Recording(hang=True)

    async def scenario() -> tuple[object, dict[str, object] | None]:
        server = sdk_server(model="rec", timeout=0.2)
        async with MCPHost([server], sampling_providers={"recorder": backend.provider()}) as host:
            answer = await call_tool(host, "ask", prompt="wait")
            return answer, host.status()[0].sampling

    answer, info = asyncio.run(scenario())
    assert answer == {
        "refused": -1,
        "reason": "timeout",
        "message": "Sampling LLM call timed out after 0.2 s for server 's'",
    }
    assert info is not None and info["timeouts"] == 1 and info["completed"] == 0


@pytest.mark.process
def test_approval_shows_server_model_and_messages(caplog: pytest.LogCaptureFixture) -> None:
    seen: list[ElicitationRequest] = []
    answers = ["accept", "decline"]

    async def approver(request: ElicitationRequest) -> ElicitationAnswer:
        seen.append(request)
        return ElicitationAnswer(answers.pop(0))  # type: ignore[arg-type]

    async def scenario() -> tuple[object, object]:
        server = sdk_server(approval="ask", log_level="debug")
        async with MCPHost([server], elicitor=approver, sampling_providers=llm_providers()) as host:
            return (
                await call_tool(host, "ask", prompt="tell me a story"),
                await call_tool(host, "ask", prompt="another"),
            )

    with caplog.at_level(logging.DEBUG, logger="hermes_core.sampling"):
        first, second = asyncio.run(scenario())
    assert isinstance(first, dict) and first["ok"]
    assert isinstance(second, dict) and second["reason"] == "declined"
    assert seen[0].kind == "approval" and seen[0].fields == ()
    assert "MCP server 's' wants model 'echo' to answer:" in seen[0].message
    assert "[user] tell me a story" in seen[0].message
    assert "[system] You are terse." in seen[0].message
    debug = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG]
    assert any("prompt: tell me a story" in line for line in debug)


@pytest.mark.parametrize(
    ("typed", "action"), [("y\n", "accept"), ("\n", "decline"), ("", "cancel")]
)
def test_the_terminal_approves_only_on_an_explicit_yes(typed: str, action: str) -> None:
    import io

    from hermes_core.cli.ask import TerminalElicitor

    out = io.StringIO()
    lines = iter([typed])
    terminal = TerminalElicitor(interactive=True, read_line=lambda: next(lines), out=out)
    request = ElicitationRequest(
        server="s",
        message="MCP server 's' wants model 'echo' to answer:",
        fields=(),
        schema={},
        kind="approval",
    )
    assert asyncio.run(terminal(request)).action == action
    assert (
        out.getvalue()
        == "Hermes asks: MCP server 's' wants model 'echo' to answer:\nRun it? [y/N]: "
    )


@pytest.mark.slow
@pytest.mark.parametrize(("typed", "outcome"), [("y", "ok"), ("n", "declined")])
def test_approval_ask_on_a_real_terminal(home: Path, typed: str, outcome: str) -> None:
    import os

    import pexpect

    write(home, "sampling:\n  model: echo\n  approval: ask\nmcp_servers:\n" + ours())
    base = clean_env(os.environ)
    child = pexpect.spawn(
        sys.executable,
        [
            "-m",
            "hermes_core",
            "mcp",
            "call",
            "--json",
            "mcp_s_ask",
            "--args",
            '{"prompt": "a poem"}',
        ],
        env={**base, **env(home), "TERM": "xterm"},
        encoding="utf-8",
        timeout=90,
    )
    child.expect_exact("Hermes asks: MCP server 's' wants model 'echo' to answer:")
    child.expect_exact("[user] a poem")
    child.expect_exact("Run it? [y/N]: ")
    child.sendline(typed)
    child.expect(pexpect.EOF)
    child.close()
    printed = child.before.replace("\r\n", "\n")  # stdout and stderr share the terminal
    result, _ = json.JSONDecoder().raw_decode(printed[printed.index("{") :])
    answer = json.loads(result["content"][0]["text"])
    assert (answer.get("reason") or "ok") == outcome


SLOTH = '''
"""sloth-hermes: a sampling backend that never answers (the timeout's real peer)."""

import asyncio

from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import SamplingProvider
from hermes_core.sampling.backend import ModelInfo


async def _never(request):
    await asyncio.Event().wait()


@hookimpl
def sampling_provider():
    return [SamplingProvider("sloth", models=lambda: [ModelInfo("sloth-1")], complete=_never)]
'''


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_cli_hook_sampling_provider_past_its_timeout_is_refused(
    home: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    import os

    site = tmp_path_factory.mktemp("site")
    (site / "sloth_hermes.py").write_text(SLOTH.lstrip())
    info = site / "sloth_hermes-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sloth-hermes\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[hermes.plugins]\nsloth = sloth_hermes\n")
    write(
        home,
        "sampling:\n  backend: sloth\n  model: sloth-1\n  timeout: 0.5\nmcp_servers:\n" + ours(),
    )
    pythonpath = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    done = run_hermes(
        "mcp",
        "call",
        "--json",
        "mcp_s_ask",
        "--args",
        '{"prompt": "hurry"}',
        env={**env(home), "PYTHONPATH": pythonpath},
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(tool_text(done.stdout)) == {
        "refused": -1,
        "reason": "timeout",
        "message": "Sampling LLM call timed out after 0.5 s for server 's'",
    }
    assert "0 completed, 0 refused, 0 errors, 1 timeouts" in done.stderr
