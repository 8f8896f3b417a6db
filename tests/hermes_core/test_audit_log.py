"""The ``audit`` interceptor's log: one line per call, names and types only, 0600, rotated by
size, shared by several writers, read back oldest first."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from hermes_core.host.calls.audit import (
    FLUSH_ROWS,
    FLUSH_SECONDS,
    AuditInterceptor,
    AuditSettings,
    audit_files,
    call_outcome,
    read_audit,
)
from hermes_core.plugins.types import (
    InterceptedCall,
    InterceptorRecord,
    InterceptorSetup,
    Verdict,
)

ARGS = {
    "path": "/etc/secret",
    "count": 3,
    "ratio": 0.5,
    "force": True,
    "tags": ["a"],
    "opts": {"k": 1},
    "none": None,
}


def view(**changes: Any) -> InterceptedCall:
    fields: dict[str, Any] = dict(
        name="mcp_s_write",
        server="s",
        tool="write",
        arguments=ARGS,
        annotations={},
        trust="untrusted",
        transport="stdio",
        url=None,
        command="x",
        max_result_tokens=100,
    )
    fields.update(changes)
    return InterceptedCall(**fields)


def test_a_line_holds_names_and_types_never_values(tmp_path: Path) -> None:
    log = AuditInterceptor.create(InterceptorSetup(tmp_path))
    call = view(approved_by="user")
    call.decisions.append(InterceptorRecord("deny", "before", Verdict.PASS))
    call.decisions.append(InterceptorRecord("redact", "after", Verdict.REPLACE, "2 emails"))
    log.after(call, {"content": [], "isError": False})
    log.close()
    path = tmp_path / "logs" / "audit.jsonl"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    (line,) = path.read_text().splitlines()
    record = json.loads(line)
    assert record["arguments"] == {
        "path": "string",
        "count": "integer",
        "ratio": "number",
        "force": "boolean",
        "tags": "array",
        "opts": "object",
        "none": "null",
    }
    assert "/etc/secret" not in line
    assert (record["server"], record["tool"], record["outcome"]) == ("s", "write", "ok")
    assert record["approved_by"] == "user" and record["trust"] == "untrusted"
    assert record["decisions"] == [  # a plain pass is not worth a line
        {"interceptor": "redact", "stage": "after", "verdict": "replace", "reason": "2 emails"}
    ]
    assert record["duration_ms"] >= 0 and record["time"].endswith("Z")


def test_values_true_writes_bounded_values(tmp_path: Path) -> None:
    log = AuditInterceptor.create(InterceptorSetup(tmp_path, {"values": True}))
    log.after(view(arguments={"short": "hi", "long": "x" * 5000}), {"content": []})
    (record,) = read_audit(tmp_path)
    assert record["arguments"]["short"] == "hi"
    assert len(record["arguments"]["long"]) == 1000 and record["arguments"]["long"].endswith("…")


@pytest.mark.parametrize(
    ("result", "outcome"),
    [
        ({"content": [], "isError": False}, "ok"),
        ({"content": [], "isError": True}, "tool_error"),
        ({"error": "x", "state": "refused"}, "refused"),
        ({"error": "x", "state": "interceptor_failed"}, "failed_closed"),
        ({"error": "x", "state": "not_approved"}, "not_approved"),
        ({"error": "x", "state": "not_connected"}, "error"),
    ],
)
def test_outcomes(result: dict[str, Any], outcome: str) -> None:
    assert call_outcome(result) == outcome


def test_the_log_rotates_by_size_and_keeps_so_many_files(tmp_path: Path) -> None:
    log = AuditInterceptor.create(InterceptorSetup(tmp_path, {"max_bytes": 4096, "keep": 2}))
    for index in range(60):
        log.after(view(tool=f"t{index}"), {"content": []})
    log.close()
    files = audit_files(tmp_path)
    assert [p.name for p in files] == ["audit.jsonl.2", "audit.jsonl.1", "audit.jsonl"]
    assert all(p.stat().st_size <= 4096 for p in files)
    tools = [r["tool"] for r in read_audit(tmp_path)]
    assert tools == sorted(tools, key=lambda t: int(t[1:]))  # oldest first, none twice
    assert tools[-1] == "t59" and len(tools) < 60  # the oldest ones rotated away


def test_two_writers_share_the_file_across_a_rotation(tmp_path: Path) -> None:
    settings = {"max_bytes": 8192}
    first = AuditInterceptor.create(InterceptorSetup(tmp_path, settings))
    second = AuditInterceptor.create(InterceptorSetup(tmp_path, settings))
    for index in range(40):
        (first if index % 2 else second).after(view(tool=f"t{index}"), {"content": []})
    first.close()
    second.close()
    tools = [r["tool"] for r in read_audit(tmp_path)]
    assert tools == [f"t{i}" for i in range(40)]


def test_reading_back_skips_what_is_not_a_log_line(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "audit.jsonl").write_text('garbage\n[1, 2]\n{"tool": "ok"}\n' + "x" * 300_000 + "\n")
    os.symlink(logs / "audit.jsonl", logs / "audit.jsonl.1")  # a link is not read
    assert [r["tool"] for r in read_audit(tmp_path)] == ["ok"]


def test_settings_out_of_range_fall_back_to_the_defaults() -> None:
    assert AuditSettings.of({"max_bytes": 10, "keep": 0, "values": "yes"}) == AuditSettings()


def test_in_an_event_loop_lines_wait_and_go_out_by_size_and_on_close(tmp_path: Path) -> None:
    log = AuditInterceptor.create(InterceptorSetup(tmp_path))
    path = tmp_path / "logs" / "audit.jsonl"

    def lines() -> int:
        return len(path.read_text().splitlines())

    async def scenario() -> tuple[int, int, int]:
        log.after(view(tool="first"), {"content": []})  # at once: the log opens (or fails)
        first = lines()
        for index in range(FLUSH_ROWS - 1):
            log.after(view(tool=f"t{index}"), {"content": []})
        waiting = lines()
        log.after(view(tool="full"), {"content": []})  # the buffer is full: written at once
        written = lines()
        log.after(view(tool="last"), {"content": []})
        return first, waiting, written

    assert asyncio.run(scenario()) == (1, 1, 1 + FLUSH_ROWS)  # off the call's path, batched
    log.close()  # the line still waiting is not lost
    tools = [r["tool"] for r in read_audit(tmp_path)]
    assert tools == ["first", *(f"t{i}" for i in range(FLUSH_ROWS - 1)), "full", "last"]


def test_a_log_that_cannot_be_written_fails_the_next_call_closed(tmp_path: Path) -> None:
    log = AuditInterceptor.create(InterceptorSetup(tmp_path))
    path = tmp_path / "logs" / "audit.jsonl"

    async def scenario() -> None:
        log.after(view(tool="first"), {"content": []})
        log.after(view(tool="waits"), {"content": []})
        path.unlink()
        path.mkdir()  # the log's place is taken: its waiting line cannot be written
        log.flush()
        with pytest.raises(OSError):
            log.after(view(tool="next"), {"content": []})

    asyncio.run(scenario())


def test_a_waiting_line_goes_out_after_the_flush_delay(tmp_path: Path) -> None:
    log = AuditInterceptor.create(InterceptorSetup(tmp_path))

    async def scenario() -> None:
        log.after(view(tool="first"), {"content": []})  # (at once: the log opens)
        log.after(view(tool="alone"), {"content": []})
        timer = log._timer
        assert timer is not None and timer.when() - asyncio.get_running_loop().time() <= (
            FLUSH_SECONDS
        )
        while log._timer is not None:  # the timer fires on its own
            await asyncio.sleep(FLUSH_SECONDS / 4)

    asyncio.run(scenario())
    assert [r["tool"] for r in read_audit(tmp_path)] == ["first", "alone"]


def test_values_are_logged_as_they_were_when_the_call_ended(tmp_path: Path) -> None:
    """An agent that reuses its arguments' objects for the next call: the line of the call
    already made keeps what that call sent, though lines are written in batches."""
    log = AuditInterceptor.create(InterceptorSetup(tmp_path, {"values": True}))
    paths = ["a.txt"]

    async def scenario() -> None:
        log.after(view(tool="first"), {"content": []})  # (at once: the log opens)
        log.after(view(arguments={"paths": paths}), {"content": []})  # waits in the buffer
        paths.append("b.txt")  # the caller's next call, built in the same list

    asyncio.run(scenario())
    log.close()
    lines = list(read_audit(tmp_path))
    assert lines[-1]["arguments"] == {"paths": ["a.txt"]}
