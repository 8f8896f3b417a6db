"""Registration runs with the cyclic GC paused, and leaves the collector as it found it."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from hermes_core.host.host import HostServer, MCPHost
from hermes_core.host.tools.gc_pause import paused_gc


def listing(count: int) -> list[dict[str, Any]]:
    """Tools shaped like the benchmark's many-tools server (small, realistic schemas), as the
    host keeps them: checked wire dicts, each with its own schema as a JSON answer has."""
    return [
        {
            "name": f"tool_{i:04d}",
            "description": f"Tool {i}.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "description": "The identifier."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
                    "fields": {"type": "array", "items": {"type": "string"}},
                    "options": {"type": "object", "properties": {"dry_run": {"type": "boolean"}}},
                },
                "required": ["id"],
            },
        }
        for i in range(count)
    ]


@pytest.fixture
def collections() -> Iterator[list[int]]:
    seen: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(count)
    try:
        yield seen
    finally:
        gc.callbacks.remove(count)


def test_registering_3300_tools_triggers_no_collection(collections: list[int]) -> None:
    tools = listing(3300)
    config = HostServer("many", command="unused")
    host = MCPHost([config])
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        collections.clear()  # building the listing itself collects; only the pass counts
        host._tools.naming.apply("many", host._tools.usable_tools(config, tools, None))
        during = list(collections)
    assert during == []  # (one young collection may follow, once the collector is back on)
    assert gc.isenabled()
    assert len(host.tools(include_gated=True)) == 3300
    # The same pass without the pause does collect (the pause is what saves the work).
    collections.clear()
    host._tools.usable_tools(config, tools, None)
    assert collections != []


def test_pauses_nest_across_threads_and_restore_the_previous_state() -> None:
    inside = threading.Event()
    release = threading.Event()

    def other() -> None:
        with paused_gc():
            inside.set()
            release.wait(60)

    worker = threading.Thread(target=other)
    worker.start()
    try:
        assert inside.wait(60)
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the other thread's pause is still running
    finally:
        release.set()
        worker.join()
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()  # switched off by someone else: left off
    finally:
        gc.enable()


def test_an_error_inside_the_pause_switches_the_collector_back_on() -> None:
    with pytest.raises(RuntimeError), paused_gc():
        raise RuntimeError("boom")
    assert gc.isenabled()
