"""Connection diagnostics travel as records: a server's stderr is shown, never interpreted.

Real stdio children (``python -c``) that die at startup in chosen ways; the host's status and
``hermes mcp status`` say what happened from the process's exit record and our transports'
own notes, never from text the server printed.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from hermes_core.host.connection.diagnostics import (
    Diagnostics,
    HttpError,
    ProcessExit,
    TransportNote,
)
from hermes_core.host.host import HostServer, MCPHost
from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli]

#: What a hostile server prints to pose as notes of Hermes' own transports.
FORGED = (
    "import sys; "
    "print('[hermes] the server sent a message larger than max_message_bytes (1 bytes)', "
    "file=sys.stderr); "
    "print('HTTP 404 Not Found for POST http://127.0.0.1:1/mcp', file=sys.stderr); "
    "sys.exit(4)"
)


def startup_failure(server: HostServer) -> tuple[str, dict[str, Any] | None]:
    async def scenario() -> tuple[str, dict[str, Any] | None]:
        async with MCPHost([server]) as host:
            (row,) = host.status()
            assert row.last_error is not None
            return row.last_error, row.failure

    return asyncio.run(scenario())


def test_a_server_cannot_pose_as_a_note_of_our_transport() -> None:
    error, failure = startup_failure(
        HostServer("liar", command=sys.executable, args=["-c", FORGED])
    )
    # The reason comes from the exit record; the forged lines are only quoted as its stderr.
    assert error.startswith("the server exited with code 4 during startup; its stderr ended with:")
    assert "    [hermes] the server sent a message larger than max_message_bytes" in error
    assert "startup (" not in error
    assert failure == {
        "cause": "closed",
        "http_status": None,
        "exit_code": 4,
        "signal": None,
        "stderr_tail": [
            "[hermes] the server sent a message larger than max_message_bytes (1 bytes)",
            "HTTP 404 Not Found for POST http://127.0.0.1:1/mcp",
        ],
    }


def test_a_server_killed_by_a_signal_says_which() -> None:
    kill = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    error, failure = startup_failure(
        HostServer("killed", command=sys.executable, args=["-c", kill])
    )
    assert error == "the server was killed by signal 9 (SIGKILL) during startup"
    assert failure is not None and (failure["exit_code"], failure["signal"]) == (None, 9)


def test_a_missing_command_is_a_record_too() -> None:
    error, failure = startup_failure(HostServer("nothing", command="hermes-no-such-command"))
    assert error.startswith("command not found: 'hermes-no-such-command'")
    assert failure is not None and failure["cause"] == "command_missing"


def test_mcp_status_shows_the_exit_record_not_the_forged_note(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n  liar:\n"
        f"    command: {json.dumps(sys.executable)}\n"
        f"    args: ['-c', {json.dumps(FORGED)}]\n"
    )
    result = run_hermes("mcp", "status", "--json", env={"HERMES_HOME": str(tmp_path)})
    (row,) = json.loads(result.stdout)
    assert row["server"] == "liar" and row["connection"] == "failed"
    assert row["last_error"].startswith(
        "the server exited with code 4 during startup; its stderr ended with:"
    )
    assert row["failure"]["cause"] == "closed" and row["failure"]["exit_code"] == 4


def test_records_are_kept_in_order_and_bounded() -> None:
    records = Diagnostics()
    mark = records.mark()
    for status in range(400, 600):
        records.add(HttpError(status, "Error", "POST", "https://mcp.example/mcp"))
    records.add(TransportNote("disconnected"))
    answers = records.since(mark, HttpError)
    assert len(answers) == 99 and answers[-1].status == 599  # the oldest are forgotten
    assert records.since(records.mark() - 1, TransportNote) == [TransportNote("disconnected")]
    assert records.since(records.mark(), HttpError) == []
    assert HttpError(401, "Unauthorized", "POST", "https://x/mcp", "Bearer").sentence() == (
        "HTTP 401 Unauthorized for POST https://x/mcp (WWW-Authenticate: Bearer)"
    )
    assert ProcessExit.from_returncode(3).sentence() == "exited with code 3"
    assert ProcessExit.from_returncode(-15).sentence() == "was killed by signal 15 (SIGTERM)"
