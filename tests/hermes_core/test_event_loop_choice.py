"""``hermes mcp proxy`` and ``hermes mcp up`` run on uvloop where it is installed, on asyncio's
loop with ``HERMES_EVENT_LOOP=asyncio``, and refuse any other value in words (exit 2, nothing
started)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from hermes_core.event_loop import LoopChoiceError, loop_choice
from support.cli import run_hermes
from support.proxy import proxy_session, write_config

pytestmark = [pytest.mark.process]

LINE_SERVER = str(Path(__file__).parents[1] / "servers" / "line_server.py")


@pytest.mark.parametrize("command", [["mcp", "proxy"], ["mcp", "up", "--foreground"]])
def test_a_typo_in_the_loop_is_refused_before_anything_starts(
    tmp_path: Path, command: list[str]
) -> None:
    write_config(tmp_path, servers={"line": {"command": sys.executable, "args": [LINE_SERVER]}})
    done = run_hermes(
        *command, env={"HERMES_HOME": str(tmp_path), "HERMES_EVENT_LOOP": "uv-loop"}, timeout=60
    )
    assert done.returncode == 2, done.stderr
    assert "$HERMES_EVENT_LOOP='uv-loop' is not an event loop" in done.stderr
    assert "uvloop, asyncio" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "run").exists() or not any((tmp_path / "run").iterdir())


def test_the_choice_is_read_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_EVENT_LOOP", "asyncio")
    assert loop_choice() == "asyncio"
    monkeypatch.setenv("HERMES_EVENT_LOOP", "UVLOOP")
    with pytest.raises(LoopChoiceError):
        loop_choice()
    monkeypatch.delenv("HERMES_EVENT_LOOP")
    assert loop_choice() == ("asyncio" if sys.platform == "win32" else "uvloop")


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_the_proxy_answers_on_either_loop(tmp_path: Path, loop: str) -> None:
    write_config(tmp_path, servers={"line": {"command": sys.executable, "args": [LINE_SERVER]}})

    async def scenario() -> str:
        async with proxy_session(tmp_path, env={"HERMES_EVENT_LOOP": loop}) as session:
            result = await session.call_tool("mcp_line_ok", {"message": loop})
            return str(result.content[0].text)  # type: ignore[union-attr]

    assert asyncio.run(scenario()) == f"Echo: {loop}"
