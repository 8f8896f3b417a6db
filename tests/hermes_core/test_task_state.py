"""A server's task fields, read defensively; the host's task log and its record; which calls go
out as tasks.  No process: the wire is in test_tasks.py."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from hermes_core.host.tasks import MAX_TASKS, TaskLog, TaskStatus
from hermes_core.host.tasks.record import TaskRecordFile, read_task_records
from hermes_core.host.tasks.run import TaskRun, attach_task
from hermes_core.host.tasks.state import MAX_POLL_S, MIN_POLL_S, TaskFormatError, read_task
from hermes_core.host.tasks.support import _MODERN, sent_as_task


def legacy(**task: Any) -> dict[str, Any]:
    return {"task": {"taskId": "abc", "status": "working", **task}}


def test_both_revisions_shapes_are_read() -> None:
    old = read_task(legacy(pollInterval=1000, statusMessage="Gathering"))
    assert (old.task_id, old.status, old.message, old.poll_s) == (
        "abc",
        TaskStatus.WORKING,
        "Gathering",
        1.0,
    )
    new = read_task(
        {"taskId": "t-1", "status": "completed", "pollIntervalMs": 250, "result": {"content": []}}
    )
    assert new.status.terminal and new.poll_s == 0.25 and new.result == {"content": []}


@pytest.mark.parametrize(
    ("interval", "seconds"),
    [
        (0, MIN_POLL_S),
        (-5, MIN_POLL_S),
        (10**12, MAX_POLL_S),
        ("fast", 1.0),
        (True, 1.0),
        (float("nan"), 1.0),
    ],
)
def test_a_servers_poll_interval_is_clamped(interval: object, seconds: float) -> None:
    assert read_task(legacy(pollInterval=interval)).poll_s == seconds


@pytest.mark.parametrize(
    "raw",
    [
        [],
        {"task": {"status": "working"}},
        legacy(taskId="x" * 129),
        legacy(taskId="a\r\nX-Injected: 1"),
        legacy(taskId="é"),
        legacy(status="sleeping"),
        legacy(status=None),
    ],
)
def test_a_malformed_task_is_refused(raw: Any) -> None:
    with pytest.raises(TaskFormatError):
        read_task(raw)


def test_a_status_message_is_cleaned_and_cut() -> None:
    state = read_task(legacy(statusMessage="\x1b[31mred\u202e" + "x" * 1000))
    assert (
        state.message is not None and "\x1b" not in state.message and "\u202e" not in state.message
    )
    assert len(state.message) <= 301


def test_which_calls_go_out_as_tasks() -> None:
    assert set(MODERN_PROTOCOL_VERSIONS) == _MODERN  # (kept here to stay off mcp_types)
    required, optional = {"taskSupport": "required"}, {"taskSupport": "optional"}
    assert sent_as_task(required, "2025-11-25", asked=False)
    assert not sent_as_task(optional, "2025-11-25", asked=False)
    assert sent_as_task(optional, "2025-11-25", asked=True)
    assert not sent_as_task({"taskSupport": "forbidden"}, "2025-11-25", asked=True)
    assert not sent_as_task(required, "2026-07-28", asked=True)  # the server decides
    assert not sent_as_task(required, None, asked=True)


def test_the_log_keeps_the_newest_and_its_record_survives_a_new_host(tmp_path: Path) -> None:
    record_path = tmp_path / "cache" / "tasks.json"
    first = TaskLog()
    first.on_change(TaskRecordFile(record_path))
    done = first.started("a", "slow", read_task(legacy(taskId="one")))
    first.updated(done, TaskStatus.COMPLETED, "finished")
    assert oct(record_path.stat().st_mode & 0o777) == "0o600"
    second = TaskLog()
    second.on_change(TaskRecordFile(record_path))
    for n in range(MAX_TASKS + 5):
        second.started("b", "fast", read_task(legacy(taskId=f"t{n}")))
    rows = read_task_records(record_path)
    assert len(rows) == MAX_TASKS and rows[-1].task_id == f"t{MAX_TASKS + 4}"
    assert [r.task_id for r in second.records("b")][:2] == [
        f"t{MAX_TASKS + 4}",
        f"t{MAX_TASKS + 3}",
    ]
    assert second.records("a") == []


def test_a_damaged_record_is_read_row_by_row(tmp_path: Path) -> None:
    path = tmp_path / "tasks.json"
    good = {
        "server": "s",
        "tool": "t",
        "task_id": "i",
        "status": "failed",
        "message": None,
        "started": 1,
        "updated": 2,
    }
    rows = [
        good,
        {**good, "status": "odd"},
        {**good, "server": ""},
        {**good, "started": "x"},
        "no",
        {**good, "message": 5},
    ]
    path.write_text(json.dumps({"format": 1, "kind": "hermes-task-log", "tasks": rows}))
    assert [r.status for r in read_task_records(path)] == [TaskStatus.FAILED]
    assert read_task_records(tmp_path / "missing.json") == []


def test_a_run_learns_its_task_and_its_result() -> None:
    async def scenario() -> None:
        log = TaskLog()

        async def call() -> dict[str, Any]:
            log.started("s", "t", read_task(legacy(taskId="ran")))
            attach_task("s", "ran")
            return {"content": []}

        run = TaskRun("mcp_s_t", log)
        run.start(call())
        assert await run.created() == "ran" and run.status() is TaskStatus.WORKING
        assert await run.result() == {"content": []} and run.done()
        attach_task("s", "elsewhere")  # outside a run: nothing to tell

    asyncio.run(scenario())
