"""Elicitation: servers (ours on the mcp SDK, and server-everything) ask the user mid-call."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path

import pytest

from hermes_core.config.loader import load_config
from hermes_core.config.models import ConfigError
from hermes_core.host.host import HostServer, MCPHost
from hermes_core.host.setup.from_config import host_servers
from hermes_core.offers.elicitation import (
    ElicitationAnswer,
    ElicitationRequest,
    ElicitationSettings,
    elicitation_settings,
    fill_answer,
    request_fields,
)
from servers.reference import EVERYTHING, node
from support.home import clean_env

ASKING = str(Path(__file__).parents[1] / "servers" / "asking_server.py")


def asking(**kwargs: object) -> HostServer:
    return HostServer("asking", command=sys.executable, args=[ASKING], **kwargs)  # type: ignore[arg-type]


class Recorder:
    """An elicitor answering from a script, remembering what it was shown."""

    def __init__(self, *answers: ElicitationAnswer, delay: float = 0.0) -> None:
        self.answers = list(answers)
        self.seen: list[ElicitationRequest] = []
        self.delay = delay

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        self.seen.append(request)
        if self.delay:
            await asyncio.sleep(self.delay)
        return self.answers.pop(0)


def call(server: HostServer, elicitor: object, tool: str) -> tuple[str, MCPHost]:
    async def scenario() -> tuple[str, MCPHost]:
        async with MCPHost([server], elicitor=elicitor) as host:  # type: ignore[arg-type]
            result = await host.call_tool(f"mcp_asking_{tool}")
            return result["content"][0]["text"], host

    return asyncio.run(scenario())


@pytest.mark.process
def test_accepted_answer_gets_the_schema_defaults_for_what_the_user_left_out() -> None:
    elicitor = Recorder(ElicitationAnswer("accept", {"name": "Ada", "terrace": True}))
    text, host = call(asking(), elicitor, "book")
    assert text.startswith("booked ")
    assert json.loads(text.removeprefix("booked ")) == {
        "name": "Ada",
        "guests": 2,
        "terrace": True,
        "mood": "quiet",
    }
    (request,) = elicitor.seen
    assert request.server == "asking" and request.message == "Which table should I book?"
    fields = {f.name: f for f in request.fields}
    assert fields["name"].required and fields["name"].type == "string"
    assert fields["guests"].default == 2 and fields["guests"].type == "integer"
    assert fields["mood"].choices == ("quiet", "lively")
    (row,) = host.status()
    assert row.elicitation == {
        "requests": 1,
        "accepted": 1,
        "declined": 0,
        "cancelled": 0,
        "errors": 0,
    }


@pytest.mark.process
@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_declined_and_cancelled_answers_reach_the_server(action: str) -> None:
    text, _ = call(asking(), Recorder(ElicitationAnswer(action)), "book")  # type: ignore[arg-type]
    assert text == f"not booked ({action})"


@pytest.mark.process
def test_an_answer_that_does_not_fit_the_form_is_declined_not_sent(
    caplog: pytest.LogCaptureFixture,
) -> None:
    elicitor = Recorder(ElicitationAnswer("accept", {"name": "Ada", "guests": "many"}))
    with caplog.at_level(logging.WARNING):
        text, host = call(asking(), elicitor, "book")
    assert text == "not booked (decline)"
    assert "field 'guests' must be a whole number (got str)" in caplog.text
    assert host.status()[0].elicitation["errors"] == 1  # type: ignore[index]


@pytest.mark.process
@pytest.mark.slow
def test_no_answer_in_time_cancels_and_a_failing_elicitor_declines() -> None:
    slow = Recorder(ElicitationAnswer("accept", {"name": "Ada"}), delay=5)
    text, host = call(asking(elicitation=ElicitationSettings(timeout=0.3)), slow, "book")
    assert text == "not booked (cancel)"
    assert host.status()[0].elicitation["cancelled"] == 1  # type: ignore[index]

    async def broken(request: ElicitationRequest) -> ElicitationAnswer:
        raise RuntimeError("the approval window closed")

    text, _ = call(asking(), broken, "book")
    assert text == "not booked (decline)"


@pytest.mark.process
def test_url_mode_is_declined_without_asking() -> None:
    elicitor = Recorder()
    text, host = call(asking(), elicitor, "visit")
    assert text == "visit: decline"
    assert elicitor.seen == []
    assert host.status()[0].elicitation["declined"] == 1  # type: ignore[index]


@pytest.mark.process
@pytest.mark.slow
def test_without_an_elicitor_or_when_disabled_the_server_is_told_the_host_cannot_ask() -> None:
    async def scenario(server: HostServer, elicitor: object) -> str:
        async with MCPHost([server], elicitor=elicitor) as host:  # type: ignore[arg-type]
            result = await host.call_tool("mcp_asking_book")
            return str(result["error"])

    for server, elicitor in (
        (asking(), None),
        (asking(elicitation=ElicitationSettings(enabled=False)), Recorder()),
    ):
        error = asyncio.run(scenario(server, elicitor))
        assert error == "MCP server 'asking' answered with an error: Elicitation not supported"


@pytest.mark.process
@pytest.mark.node
def test_server_everything_registers_its_elicitation_tool_only_when_the_host_can_ask() -> None:
    # It registers capability-gated tools just after `initialized`: wait for them when the host
    # can ask; when it cannot, list again after its own late re-list and see none.
    async def scenario(elicitor: object) -> set[str]:
        server = HostServer("everything", command=node(), args=[str(EVERYTHING), "stdio"])
        async with MCPHost([server], elicitor=elicitor) as host:  # type: ignore[arg-type]
            for _ in range(200):
                if elicitor is not None and host.registry.get(
                    "mcp_everything_trigger_elicitation_request"
                ):
                    break
                if elicitor is None and not any(  # the late re-list is done
                    "late re-list" in name for name in host._tasks.pending()
                ):
                    await host.refresh_tools("everything")
                    break
                await asyncio.sleep(0.05)
            return {t.tool for t in host.tools()}

    assert "trigger-elicitation-request" in asyncio.run(scenario(Recorder()))
    without = asyncio.run(scenario(None))
    assert "echo" in without and "trigger-elicitation-request" not in without


@pytest.mark.process
@pytest.mark.node
def test_server_everything_form_with_every_field_kind_is_filled_from_defaults() -> None:
    async def scenario() -> tuple[dict[str, object], ElicitationRequest]:
        elicitor = Recorder(ElicitationAnswer("accept", {"name": "Ada"}))
        server = HostServer("everything", command=node(), args=[str(EVERYTHING), "stdio"])
        async with MCPHost([server], elicitor=elicitor) as host:
            for _ in range(50):
                if host.registry.get("mcp_everything_trigger_elicitation_request"):
                    break
                await asyncio.sleep(0.1)
            result = await host.call_tool("mcp_everything_trigger_elicitation_request")
            return result, elicitor.seen[0]

    result, request = asyncio.run(scenario())
    assert result["isError"] is False
    assert "accept" in json.dumps(result)
    kinds = {f.type for f in request.fields}
    assert {"string", "integer", "number", "boolean"} <= kinds
    assert any(f.choices for f in request.fields)


def test_fill_answer_checks_each_kind() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "default": "x"},
            "n": {"type": "number"},
            "tags": {"type": "array", "items": {"enum": ["red", "blue"]}},
            "pick": {"type": "string", "oneOf": [{"const": "one"}, {"const": "two"}]},
        },
        "required": ["n"],
    }
    fields = request_fields(schema)
    assert fill_answer(fields, {"n": 1.5}) == {"a": "x", "n": 1.5}
    assert fill_answer(fields, {"n": 2, "tags": ["red"], "pick": "two"})["tags"] == ["red"]
    for given, why in (
        ({}, "the required field 'n' has no value"),
        ({"n": True}, "field 'n' must be a number"),
        ({"n": 1, "tags": ["green"]}, "'green' is not one of its choices"),
        ({"n": 1, "pick": "three"}, "'three' is not one of its choices"),
        ({"n": 1, "extra": 1}, "the form has no field 'extra'"),
    ):
        with pytest.raises(ValueError, match=why):
            fill_answer(fields, given)


def test_elicitation_config_is_read_and_a_bad_value_names_the_key(tmp_path: Path) -> None:
    assert elicitation_settings("s", {"timeout": 30}) == ElicitationSettings(
        enabled=True, timeout=30.0
    )
    config = tmp_path / "config.yaml"
    config.write_text(
        "mcp_servers:\n"
        "  ok: {command: x, elicitation: {enabled: false, timeout: 12}}\n"
        "  bad: {command: x, elicitation: {timeout: soon}}\n"
    )
    # A bad value (and an unknown key) is an error at file:line when the file is read.
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    assert str(caught.value) == (
        f"{config}:3: mcp_servers.bad.elicitation.timeout: must be a positive number of "
        "seconds (got text)"
    )
    loaded = load_config(config, strict=False)
    servers = {s.name: s for s in host_servers(loaded, env={"HOME": str(tmp_path)})}
    assert list(servers) == ["ok"]
    assert servers["ok"].elicitation == ElicitationSettings(enabled=False, timeout=12.0)
    config.write_text("mcp_servers:\n  ok:\n    command: x\n    elicitation:\n      timout: 5\n")
    with pytest.raises(ConfigError, match=r":5: mcp_servers.ok.elicitation.timout: unknown key "):
        load_config(config)
    with pytest.raises(ValueError, match=r"elicitation\.enabled must be true or false"):
        elicitation_settings("s", {"enabled": "maybe"})


def _config_home(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "config.yaml").write_text(
        f"mcp_servers:\n  asking:\n    command: {json.dumps(sys.executable)}\n"
        f"    args: [{json.dumps(ASKING)}]\n"
    )
    return {"HERMES_HOME": str(tmp_path)}


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_hermes_mcp_call_asks_on_the_terminal(tmp_path: Path) -> None:
    import os
    import pty
    import subprocess

    master, slave = pty.openpty()
    try:
        base = clean_env(os.environ)
        child = subprocess.Popen(
            [sys.executable, "-m", "hermes_core", "mcp", "call", "--json", "mcp_asking_book"],
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**base, **_config_home(tmp_path)},
        )
        # name, guests (kept), terrace: first a wrong answer, then yes; mood (kept); send.
        os.write(master, b"Ada\n\nmaybe\ny\n\n\n")
        out, err = child.communicate(timeout=60)
    finally:
        os.close(master)
        os.close(slave)
    assert child.returncode == 0, err
    assert "MCP server 'asking' asks: Which table should I book?" in err
    assert "Guests (whole number) — How many people [2]: " in err
    assert "answer yes or no" in err
    text = json.loads(out)["content"][0]["text"]
    assert json.loads(text.removeprefix("booked ")) == {
        "name": "Ada",
        "guests": 2,
        "terrace": True,
        "mood": "quiet",
    }


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_hermes_mcp_call_without_a_terminal_declines(tmp_path: Path) -> None:
    from support.cli import run_hermes

    done = run_hermes("mcp", "call", "--json", "mcp_asking_book", env=_config_home(tmp_path))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["content"][0]["text"] == "not booked (decline)"
    assert "declined (no terminal to ask on)" in done.stderr


def _ask_on_a_terminal(tmp_path: Path, tool: str, typed: bytes) -> tuple[int, str, str]:
    import os
    import pty
    import subprocess

    master, slave = pty.openpty()
    try:
        base = clean_env(os.environ)
        child = subprocess.Popen(
            [sys.executable, "-m", "hermes_core", "mcp", "call", "--json", tool],
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**base, **_config_home(tmp_path)},
        )
        os.write(master, typed)
        out, err = child.communicate(timeout=60)
    finally:
        os.close(master)
        os.close(slave)
    return child.returncode, out, err


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_titles_formats_and_bounds_are_shown_and_checked(tmp_path: Path) -> None:
    typed = (
        b"ada@\nada@example.com\n"  # email: not an address, then one
        b"9\n0\n3\n"  # seats 1 to 8
        b"ab\nabc\n"  # code: 3-5 characters
        b"2026-02-30\n2026-03-01\n"  # date
        b"large\n"  # a titled oneOf, answered by its title
        b"Green\n"  # legacy enumNames
        b"y\n"  # send
    )
    code, out, err = _ask_on_a_terminal(tmp_path, "mcp_asking_register", typed)
    assert code == 0, err
    assert "Email (text, email, required): " in err
    assert "field 'email' must be an email address (name@example.com)" in err
    assert "Seats (whole number, 1 to 8, required): " in err
    assert "field 'seats' must be at most 8" in err and "field 'seats' must be at least 1" in err
    assert "Code (text, 3-5 characters, required): " in err
    assert "field 'code' needs at least 3 characters" in err
    assert "field 'day' must be a date (YYYY-MM-DD)" in err
    assert "Size (one of: Small [s], Large [l], required): " in err
    assert "Colour (one of: Red [r], Green [g], required): " in err
    text = json.loads(out)["content"][0]["text"]
    assert json.loads(text.removeprefix("registered ")) == {
        "email": "ada@example.com",
        "seats": 3,
        "code": "abc",
        "day": "2026-03-01",
        "size": "l",
        "colour": "g",
    }


@pytest.mark.process
@pytest.mark.cli
def test_an_answer_outside_the_bounds_three_times_is_declined(tmp_path: Path) -> None:
    code, out, err = _ask_on_a_terminal(
        tmp_path, "mcp_asking_register", b"a@b.example\n0\n9\n100\n"
    )
    assert code == 0, err
    assert err.count("field 'seats' must be") == 3
    assert "no valid value: the question is declined" in err
    assert json.loads(out)["content"][0]["text"] == "not registered (decline)"


def test_an_elicitor_answer_outside_the_format_or_bounds_is_not_sent() -> None:
    from hermes_core.offers.elicitation import fill_answer, request_fields

    fields = request_fields(
        {
            "type": "object",
            "properties": {
                "site": {"type": "string", "format": "uri"},
                "at": {"type": "string", "format": "date-time"},
                "n": {"type": "number", "minimum": 0.5},
                "tags": {
                    "type": "array",
                    "items": {
                        "anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]
                    },
                    "maxItems": 1,
                },
            },
        }
    )
    assert fields[3].labels == ("A", "B") and fields[3].multiple
    good = {"site": "https://x.example/a", "at": "2026-01-02T03:04:05Z", "n": 0.5, "tags": ["a"]}
    assert fill_answer(fields, good) == good
    for bad, message in [
        ({"site": "not a uri"}, "field 'site' must be a URI"),
        ({"at": "2026-01-02T03:04:05"}, "field 'at' must be a date and time with its time zone"),
        ({"n": 0.1}, "field 'n' must be at least 0.5"),
        ({"tags": ["a", "b"]}, "field 'tags' takes at most 1 choices"),
    ]:
        with pytest.raises(ValueError, match=message):
            fill_answer(fields, bad)
