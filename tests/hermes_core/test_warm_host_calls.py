"""``hermes mcp call`` on the warm host prints what the cold call prints and exits with the
same code, for every form of arguments (``key=value``, ``key:=JSON``, ``--args`` JSON,
``--json``), for a tool that is not there, with progress and with a task; all through the CLI
as subprocesses against real servers (the test upstream and server-everything)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from servers.reference import EVERYTHING, node
from support.cli import run_hermes
from support.imports import imported_modules, offending
from support.proxy import UPSTREAM, write_config

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow, pytest.mark.node]

WARM = "using the warm host"
COLD = {"HERMES_WARM": "0"}

#: What a warm ``hermes mcp call`` never loads: the plugins, config.yaml's models, the SDK,
#: the host, the elicitation forms (until a question comes).
WARM_CALL_MUST_NOT_IMPORT = {
    "mcp",
    "pydantic",
    "hermes_core.host.host",
    "hermes_core.plugins.manager",
    "hermes_core.config.models",
    "hermes_core.offers.elicitation",
}

#: Each call, as a user types it (the arguments after ``hermes mcp call``).
CALLS = [
    ("mcp_up_note", "text=hello world"),
    ("mcp_up_note", 'text:="from json"'),
    ("--json", "mcp_up_note", "--args", '{"text": "as json"}'),
    ("--json", "mcp_up_note", "text=json out"),
    ("mcp_everything_get_sum", "a=2", "b:=40"),
    ("--json", "mcp_everything_get_sum", "a:=1.5", "b=2"),
    ("mcp_everything_get_sum", "a=two", "b=2"),  # not a number: the schema says so
    ("mcp_up_notes", "text=x"),  # not there: close names
    ("mcp_nobody_tool",),  # no server owns it
    ("--json", "mcp_up_note", "--args", "[1]"),  # not an object
]


@pytest.fixture
def home(tmp_path: Path) -> Iterator[dict[str, str]]:
    write_config(
        tmp_path,
        servers={
            "up": {"command": sys.executable, "args": [str(UPSTREAM)]},
            "everything": {"command": node(), "args": [str(EVERYTHING), "stdio"]},
        },
    )
    env = {"HERMES_HOME": str(tmp_path)}
    started = run_hermes("mcp", "up", env=env)
    assert started.returncode == 0, started.stderr
    yield env
    run_hermes("mcp", "down", env=env)


def test_a_warm_call_prints_what_a_cold_call_prints(home: dict[str, str]) -> None:
    for words in CALLS:
        warm = run_hermes("mcp", "call", *words, env=home)
        cold = run_hermes("mcp", "call", *words, env={**home, **COLD})
        assert "Traceback" not in warm.stderr + cold.stderr, words
        assert WARM not in cold.stderr
        assert (warm.returncode, warm.stdout) == (cold.returncode, cold.stdout), (words, warm)
        if warm.returncode == 0:
            assert warm.stderr.count(WARM) == 1, warm.stderr
        if warm.returncode == 2:  # a usage error says what is wrong, the same way
            assert warm.stderr.splitlines()[-1] == cold.stderr.splitlines()[-1]
    called = run_hermes("mcp", "call", "mcp_up_note", "text=hello world", env=home)
    assert called.stdout.strip() == "noted hello world"
    total = run_hermes("mcp", "call", "mcp_everything_get_sum", "a=2", "b:=40", env=home)
    assert "42" in total.stdout


def test_a_warm_call_loads_little(home: dict[str, str]) -> None:
    modules, done = imported_modules(
        "mcp", "call", "mcp_up_note", "text=light", home=Path(home["HERMES_HOME"])
    )
    assert done.returncode == 0 and done.stdout.strip() == "noted light", done.stderr[-2000:]
    assert WARM in done.stderr
    assert offending(modules, WARM_CALL_MUST_NOT_IMPORT) == []


def test_a_warm_calls_progress_and_task_are_shown_and_recorded(home: dict[str, str]) -> None:
    words = ("mcp_everything_trigger_long_running_operation", "duration:=0.2", "steps:=4")
    warm = run_hermes("mcp", "call", *words, env=home)
    cold = run_hermes("mcp", "call", *words, env={**home, **COLD})
    assert warm.returncode == cold.returncode == 0, warm.stderr
    assert warm.stdout == cold.stdout and "completed" in warm.stdout
    for done in (warm, cold):  # the last report always shows
        assert "progress: 4/4 (100%)" in done.stderr.splitlines()[-1] or any(
            line.startswith("progress: 4/4 (100%)") for line in done.stderr.splitlines()
        )

    research = run_hermes(
        "mcp", "call", "--json", "mcp_everything_simulate_research_query", "topic=bees", env=home
    )
    assert research.returncode == 0 and WARM in research.stderr, research.stderr
    assert "# Research Report: bees" in json.loads(research.stdout)["content"][0]["text"]
    assert "task working: Gathering sources..." in research.stderr
    listed = run_hermes("mcp", "tasks", "--json", env=home)
    (row,) = json.loads(listed.stdout)
    assert (row["server"], row["tool"], row["status"]) == (
        "everything",
        "simulate-research-query",
        "completed",
    )


def test_the_other_warm_commands_answer_as_cold(home: dict[str, str]) -> None:
    for words in (
        ("tools", "up", "--json"),
        ("tools", "--search", "sum", "--json"),
        ("get", "up", "--json"),
        ("call", "--server", "up", "mcp_up_note", "text=by name"),
        ("call", "--approvals", "store", "mcp_up_peek"),
    ):
        warm = run_hermes("mcp", *words, env=home)
        cold = run_hermes("mcp", *words, env={**home, **COLD})
        assert warm.stderr.count(WARM) == 1 and "Traceback" not in warm.stderr, warm.stderr
        assert (warm.returncode, warm.stdout) == (cold.returncode, cold.stdout), words


def test_a_warm_test_of_a_lazy_server_reports_it_started(tmp_path: Path) -> None:
    write_config(
        tmp_path, servers={"up": {"command": sys.executable, "args": [str(UPSTREAM)], "lazy": True}}
    )
    env = {"HERMES_HOME": str(tmp_path)}
    assert run_hermes("mcp", "status", env=env).returncode == 0  # its tools cached
    assert run_hermes("mcp", "up", env=env).returncode == 0
    try:
        before = json.loads(run_hermes("mcp", "status", "--json", env=env).stdout)
        assert before[0]["connection"] == "lazy"
        warm = run_hermes("mcp", "test", "up", "--json", env=env)
        cold = run_hermes("mcp", "test", "up", "--json", env={**env, **COLD})
        assert WARM in warm.stderr and warm.returncode == cold.returncode == 0, warm.stderr
        reports = [json.loads(done.stdout) for done in (warm, cold)]
        for report in reports:
            del report["seconds"]
        assert reports[0] == reports[1] and reports[0]["connection"] == "connected"
    finally:
        run_hermes("mcp", "down", env=env)
