"""The processes a stdio transport starts, collected per task (to read how they exited)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol

__all__ = ["Spawned", "capture_spawned", "note_spawned"]


class Spawned(Protocol):
    """A process a stdio transport started, as :func:`capture_spawned` collects it."""

    async def wait(self) -> object: ...


_spawned: ContextVar[list[Spawned] | None] = ContextVar("hermes_mcp_spawned", default=None)


@contextmanager
def capture_spawned() -> Iterator[list[Spawned]]:
    """Collect the processes stdio transports start in this task (to read their exit code)."""
    sink: list[Spawned] = []
    token = _spawned.set(sink)
    try:
        yield sink
    finally:
        _spawned.reset(token)


def note_spawned(process: Spawned) -> None:
    """A stdio transport started *process* (kept when the task captures them)."""
    sink = _spawned.get()
    if sink is not None:
        sink.append(process)
