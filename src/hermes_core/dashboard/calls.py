"""The calls the page started: each runs on the host's loop (through its whole call pipeline)
while the page polls ``GET /api/calls/ID`` for its progress and, at the end, its result.

A call is the page's to follow, not the browser's: a reload or a closed tab leaves it running,
and the last :data:`KEEP` calls stay readable.  Progress is the last :data:`KEEP_PROGRESS`
notifications (already cleaned by :mod:`hermes_core.host.server_notifications`)."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum

from hermes_core.host.server_notifications import ProgressCallback

__all__ = ["KEEP", "CallBoard", "CallState", "PageCall"]

#: How many calls stay readable (the oldest finished one is forgotten first).
KEEP = 50
#: How many progress notifications of one call are kept.
KEEP_PROGRESS = 100

Runner = Callable[[ProgressCallback], Awaitable[Mapping[str, object]]]


class CallState(Enum):
    RUNNING = "running"
    DONE = "done"


@dataclass
class PageCall:
    """One call the page started."""

    id: str
    tool: str
    server: str | None
    app_uri: str | None
    arguments: dict[str, object] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    state: CallState = CallState.RUNNING
    progress: list[dict[str, object]] = field(default_factory=list)
    result: Mapping[str, object] | None = None
    seconds: float | None = None
    task: asyncio.Task[None] | None = None

    def note(self, progress: float, total: float | None, message: str | None) -> None:
        self.progress.append({"progress": progress, "total": total, "message": message})
        del self.progress[:-KEEP_PROGRESS]


class CallBoard:
    """The page's calls by id (an unguessable one: ids are not secrets, but never guessable)."""

    def __init__(self) -> None:
        self._calls: OrderedDict[str, PageCall] = OrderedDict()

    def __repr__(self) -> str:
        return f"CallBoard({len(self._calls)} calls)"

    def start(
        self,
        tool: str,
        server: str | None,
        app_uri: str | None,
        arguments: dict[str, object],
        run: Runner,
    ) -> PageCall:
        """Start *run* (given the progress callback) as a call of *tool*; its record."""
        call = PageCall(secrets.token_urlsafe(12), tool, server, app_uri, dict(arguments))

        async def follow() -> None:
            try:
                call.result = await run(call.note)
            except Exception as exc:  # noqa: BLE001 - the host returns failures; this is a bug
                call.result = {"error": f"the call failed inside the dashboard: {exc}"}
            finally:
                call.seconds = round(time.monotonic() - call.started, 3)
                call.state = CallState.DONE

        call.task = asyncio.get_running_loop().create_task(follow(), name=f"page call {tool}")
        self._calls[call.id] = call
        self._forget()
        return call

    def get(self, call_id: str) -> PageCall | None:
        return self._calls.get(call_id)

    def _forget(self) -> None:
        while len(self._calls) > KEEP:
            done = next((k for k, c in self._calls.items() if c.state is CallState.DONE), None)
            if done is None:
                return
            del self._calls[done]

    async def close(self) -> None:
        """Cancel the calls still running (the dashboard stops)."""
        running = [c.task for c in self._calls.values() if c.task and not c.task.done()]
        for task in running:
            task.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)
