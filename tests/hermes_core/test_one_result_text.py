"""One result text and one refusal, at every door: the host's resource and prompt tools answer
a valid ``CallToolResult`` that ``hermes mcp call`` (text and ``--json``), ``hermes chat`` and
``hermes mcp proxy`` (the raw SDK client) show, a refused call reads the same everywhere, and
chat runs a round's calls side by side where the server allows it.

Real subprocesses, real servers: server-everything and tests/servers/meeting_server.py (its
``meet`` answers only once two calls are in progress together: no timing)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from hermes_core.chat.session import UNSEEN_MEDIA
from hermes_core.host.calls.result_text import render_text
from hermes_core.host.host import MCPHost
from hermes_core.host.server_spec import HostServer
from hermes_core.host.tools.utility_tools import LIST_MAX_PAGES
from servers.reference import EVERYTHING, node
from support.cli import run_hermes
from support.dashboard import chromium, running_dashboard
from support.proxy import proxy_session, text_of, write_config

pytestmark = [pytest.mark.process, pytest.mark.cli]

MEETING = Path(__file__).parents[1] / "servers" / "meeting_server.py"
FIDELITY = MEETING.with_name("fidelity_server.py")


@pytest.fixture(autouse=True)
def _llm_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_USER_PATH", str(tmp_path_factory.mktemp("llm")))


def meeting(**settings: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(MEETING)], **settings}


def env(home: Path) -> dict[str, str]:
    return {"HERMES_HOME": str(home), "LLM_USER_PATH": os.environ["LLM_USER_PATH"]}


def chat(home: Path, *calls: tuple[str, dict[str, Any]]) -> Any:
    prompt = json.dumps({"tool_calls": [{"name": n, "arguments": a} for n, a in calls]})
    done = run_hermes("chat", "-m", "echo", "-q", prompt, env=env(home))
    assert done.returncode == 0, done.stderr
    decoder, found, at = json.JSONDecoder(), [], 0
    while (start := done.stdout.find("{", at)) != -1:
        value, at = decoder.raw_decode(done.stdout, start)
        found.append(value)
    return found[1]["tool_results"], done.stderr


def call(home: Path, *args: str) -> Any:
    return run_hermes("mcp", "call", *args, env={"HERMES_HOME": str(home)})


# -- the utility tools' results -----------------------------------------------------------------


@pytest.mark.node
def test_resource_tools_print_their_answer_in_text_and_json(tmp_path: Path) -> None:
    write_config(tmp_path, servers={"everything": {"command": node(), "args": [str(EVERYTHING)]}})
    listed = call(tmp_path, "mcp_everything_list_resources")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].startswith("MCP server 'everything' lists ") and "resources:" in lines[0]
    uri = next(line.split()[1] for line in lines if "demo://resource/static/document/" in line)

    as_json = call(tmp_path, "--json", "mcp_everything_list_resources")
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)
    assert data["isError"] is False
    assert data["content"] == [{"type": "text", "text": listed.stdout.rstrip("\n")}]
    assert uri in [r["uri"] for r in data["structuredContent"]["resources"]]

    read = call(tmp_path, "mcp_everything_read_resource", f"uri={uri}")
    assert read.returncode == 0, read.stderr
    assert read.stdout.startswith(f"[resource: {uri}, ")
    templates = call(tmp_path, "mcp_everything_list_resource_templates")
    assert "demo://resource/dynamic/text/{resourceId}" in templates.stdout


def test_prompt_tools_print_their_answer(tmp_path: Path) -> None:
    write_config(tmp_path, servers={"meeting": meeting()})
    listed = call(tmp_path, "mcp_meeting_list_prompts")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == [
        "MCP server 'meeting' lists 1 prompts:",
        "- minutes(topic): Write the minutes of a meeting about TOPIC.",
    ]
    got = call(tmp_path, "mcp_meeting_get_prompt", "name=minutes", 'arguments:={"topic": "tea"}')
    assert got.returncode == 0, got.stderr
    assert "user:\nWrite the minutes of the meeting about tea." in got.stdout


def test_the_proxy_forwards_a_valid_result_of_the_resource_tools(tmp_path: Path) -> None:
    write_config(tmp_path, servers={"meeting": meeting()})

    async def scenario() -> None:
        async with proxy_session(tmp_path) as session:
            listed = await session.call_tool("mcp_meeting_list_resources", {})
            assert not listed.is_error, text_of(listed)
            assert "- meeting://agenda  agenda (text/plain)" in text_of(listed)
            assert listed.structured_content["resources"][0]["uri"] == "meeting://agenda"
            read = await session.call_tool("mcp_meeting_read_resource", {"uri": "meeting://agenda"})
            assert not read.is_error and read.content[0].resource.text == "1. coffee\n2. plans"
            prompts = await session.call_tool("mcp_meeting_list_prompts", {})
            assert "minutes(topic)" in text_of(prompts)
            # The proxy's own resources and prompts read the same answers.
            (resource,) = (await session.list_resources()).resources
            contents = (await session.read_resource(resource.uri)).contents
            assert contents[0].text == "1. coffee\n2. plans"
            got = await session.get_prompt("mcp_meeting_minutes", {"topic": "tea"})
            assert "about tea" in got.messages[0].content.text

    asyncio.run(scenario())


def test_chat_hands_the_model_the_same_text(tmp_path: Path) -> None:
    write_config(tmp_path, servers={"meeting": meeting()})
    results, stderr = chat(tmp_path, ("mcp_meeting_list_resources", {}))
    (listed,) = results
    assert listed["output"].startswith("MCP server 'meeting' lists 1 resources:\n")
    assert "[tool] mcp_meeting_list_resources done: MCP server 'meeting' lists" in stderr
    cold = call(tmp_path, "mcp_meeting_list_resources")
    assert cold.stdout.rstrip("\n") == listed["output"]


def test_the_one_text_of_each_content_kind() -> None:
    data = "aGVsbG8="  # five bytes
    result = {
        "content": [
            {"type": "text", "text": "hi\x1b[31m"},
            {"type": "image", "mimeType": "image/png", "data": data},
            {"type": "audio", "mimeType": "audio/wav", "data": data},
            {"type": "resource", "resource": {"uri": "a://t", "mimeType": "text/x", "text": "ab"}},
            {"type": "resource", "resource": {"uri": "a://b", "blob": data}},
            {"type": "resource_link", "uri": "a://l", "name": "link"},
        ],
        "structuredContent": {"n": 1},
        "isError": True,
    }
    shown = render_text(result)
    assert shown.text.splitlines() == [
        "hi[31m",
        "[image: image/png, 5 bytes]",
        "[audio: audio/wav, 5 bytes]",
        "[resource: a://t, text/x, 2 characters]",
        "ab",
        "[resource: a://b, unknown type, 5 bytes]",
        "[resource link: a://l (link)]",
    ]  # structured content shown only where no block is text
    assert shown.failed and shown.media == ("image", "audio") and shown.refusal is None
    only = render_text({"content": [{"type": "image", "mimeType": "image/png", "data": data}]})
    assert only.text == "[image: image/png, 5 bytes]" and UNSEEN_MEDIA.startswith("(hermes chat")
    assert render_text({"content": [], "structuredContent": {"n": 1}}).text == '{\n  "n": 1\n}'


# -- one refusal ------------------------------------------------------------------------------


def test_a_refusal_reads_the_same_at_every_door(tmp_path: Path) -> None:
    write_config(tmp_path, servers={"meeting": meeting()})
    decided = run_hermes(
        "mcp", "approvals", "set", "meeting", "meet", "never", env={"HERMES_HOME": str(tmp_path)}
    )
    assert decided.returncode == 0, decided.stderr
    doors: dict[str, str] = {}

    never = call(tmp_path, "mcp_meeting_meet", "who=a")
    assert never.returncode == 1 and never.stdout == ""
    doors["cli"] = never.stderr.strip().removeprefix("error: ")
    as_json = json.loads(call(tmp_path, "--json", "mcp_meeting_meet", "who=a").stdout)
    assert as_json["state"] == "blocked" and as_json["error"] == doors["cli"]

    typo = call(tmp_path, "mcp_meeting_list_resource")
    assert typo.returncode == 1 and typo.stdout == ""
    unknown = typo.stderr.strip().removeprefix("error: ")
    assert unknown.startswith(
        "unknown tool 'mcp_meeting_list_resource'; did you mean mcp_meeting_list_resources"
    )

    (chatted,), _ = chat(tmp_path, ("mcp_meeting_meet", {"who": "a"}))
    doors["chat"] = chatted["output"].removeprefix("error: ")

    async def through_proxy() -> tuple[str, str]:
        async with proxy_session(tmp_path) as session:
            refused = await session.call_tool("mcp_meeting_meet", {"who": "a"})
            typo = await session.call_tool("mcp_meeting_list_resource", {})
            assert refused.is_error and typo.is_error
            return text_of(refused), text_of(typo)

    doors["proxy"], proxy_typo = asyncio.run(through_proxy())
    assert proxy_typo == unknown
    assert "you decided never to run it" in doors["cli"]
    assert set(doors.values()) == {doors["cli"]}, doors


# -- parallel calls in chat -------------------------------------------------------------------


def test_chat_runs_a_parallel_servers_calls_side_by_side(tmp_path: Path) -> None:
    write_config(tmp_path, servers={"meeting": meeting(supports_parallel_tool_calls=True)})
    results, stderr = chat(
        tmp_path, ("mcp_meeting_meet", {"who": "ann"}), ("mcp_meeting_meet", {"who": "bob"})
    )
    assert [r["output"] for r in results] == ["ann met 2", "bob met 2"]  # in the model's order
    tool_lines = [line for line in stderr.splitlines() if line.startswith("[tool]")]
    assert len(tool_lines) == 4
    assert all(" done: " not in line for line in tool_lines[:2])  # both started, then ended


def test_chat_runs_a_serial_servers_calls_one_after_another(tmp_path: Path) -> None:
    write_config(tmp_path, servers={"meeting": meeting()})
    # One at a time, the calls can never meet: each waits its second, then answers alone.
    results, stderr = chat(
        tmp_path,
        ("mcp_meeting_meet", {"who": "ann", "wait": 1}),
        ("mcp_meeting_meet", {"who": "bob", "wait": 1}),
    )
    assert [r["output"] for r in results] == ["ann alone", "bob alone"]
    tool_lines = [line for line in stderr.splitlines() if line.startswith("[tool]")]
    assert [" done: " in line for line in tool_lines] == [False, True, False, True]


# -- the dashboard ----------------------------------------------------------------------------


@pytest.mark.network
@pytest.mark.slow
def test_the_dashboard_shows_a_resource_listing_and_a_refusal(tmp_path: Path) -> None:
    write_config(tmp_path, servers={"meeting": meeting()})
    cold = call(tmp_path, "mcp_meeting_list_resources").stdout.rstrip("\n")
    with running_dashboard(tmp_path) as dash, chromium() as browser:
        page = browser.new_context().new_page()
        page.goto(dash.url)
        page.click("text=Tools")
        page.click("#tool-list >> text=mcp_meeting_list_resources")  # one tool's form at a time
        tool = page.locator(".tool", has=page.locator("#tool-mcp_meeting_list_resources"))
        tool.locator("button", has_text="Call").click()
        expect(page.locator(".result-text").first).to_have_text(cold)
        # A name nothing offers (posted as a hand-made form would): the same refusal.
        page.evaluate(
            """() => { const form = document.querySelector('form.call');
                       form.querySelector('input[name=tool]').value = 'mcp_meeting_list_resource';
                       form.submit(); }"""
        )
        page.wait_for_selector("#result .error")
        shown = page.locator("#result .error").inner_text()
        typo = call(tmp_path, "mcp_meeting_list_resource").stderr.strip()
        assert shown == typo and "did you mean mcp_meeting_list_resources" in shown


def test_a_cut_short_listing_goes_on_from_its_cursor() -> None:
    server = HostServer(
        "fidelity", command=sys.executable, args=[str(FIDELITY)], env={"ENDLESS": "1"}
    )

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        async with MCPHost([server]) as host:
            first = await host.call_tool("mcp_fidelity_list_resources")
            cursor = first["structuredContent"]["nextCursor"]
            more = await host.call_tool("mcp_fidelity_list_resources", {"cursor": cursor})
            return first, more

    first, more = asyncio.run(scenario())
    seen = [r["uri"] for r in first["structuredContent"]["resources"]]
    then = [r["uri"] for r in more["structuredContent"]["resources"]]
    assert len(seen) == LIST_MAX_PAGES == len(then) and not set(seen) & set(then)
    text = first["content"][0]["text"]
    cursor = first["structuredContent"]["nextCursor"]
    assert f"more: call again with cursor={cursor!r} for the next page" in text


def test_the_warm_host_prints_what_the_cold_call_prints(tmp_path: Path) -> None:
    write_config(tmp_path, servers={"meeting": meeting()})
    home = {"HERMES_HOME": str(tmp_path)}
    decided = run_hermes("mcp", "approvals", "set", "meeting", "meet", "never", env=home)
    assert decided.returncode == 0, decided.stderr
    asked = (
        ("mcp_meeting_list_resources", "{}"),
        ("mcp_meeting_meet", '{"who": "a"}'),
        ("mcp_meeting_list_resource", "{}"),
    )
    cold = [call(tmp_path, tool, "--args", args) for tool, args in asked]
    started = run_hermes("mcp", "up", env=home)
    assert started.returncode == 0, started.stderr
    try:
        warm = [call(tmp_path, tool, "--args", args) for tool, args in asked]
    finally:
        run_hermes("mcp", "down", env=home)
    assert all("using the warm host" in done.stderr for done in warm)
    for before, after in zip(cold, warm, strict=True):
        assert (after.returncode, after.stdout) == (before.returncode, before.stdout)
        assert after.stderr.splitlines()[1:] == before.stderr.splitlines()
    assert [done.returncode for done in warm] == [0, 1, 1]
