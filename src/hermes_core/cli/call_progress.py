"""How ``hermes mcp call`` shows a call in flight: its progress line and its questions
(the same on a cold host and on the warm host)."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, Any

from hermes_core.cli.progress import Activity, spinner_allowed
from hermes_core.sanitize import clean_line

if TYPE_CHECKING:
    from hermes_core.offers.elicitation import ElicitationAnswer, ElicitationRequest

__all__ = ["PROGRESS_INTERVAL", "Pausing", "ProgressLine"]

#: ``hermes mcp call`` prints at most one progress line per this many seconds.
PROGRESS_INTERVAL = 0.5


class Pausing:
    """The call's elicitor: the progress display paused before each question (never drawn
    over by the spinner); it can ask whoever *asker* can (``can_ask``: no terminal, no
    sampling that needs an approval is offered)."""

    def __init__(self, asker: Any, pause: Any) -> None:
        self._asker = asker
        self._pause = pause

    @property
    def can_ask(self) -> bool:
        return bool(getattr(self._asker, "can_ask", True))

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        self._pause()
        answer: ElicitationAnswer = await self._asker(request)
        return answer


class ProgressLine:
    """A call's progress on stderr: ``progress: 3/10 (30%) message``; on a terminal one line
    that changes in place (a spinner), elsewhere at most one line per
    :data:`PROGRESS_INTERVAL` seconds (the last report always shows)."""

    def __init__(self) -> None:
        self._shown_at = 0.0
        self._pending: str | None = None
        self._activity: Activity | None = None

    def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        line = f"progress: {progress:g}"
        if total:
            line += f"/{total:g} ({min(100.0, 100 * progress / total):.0f}%)"
        if message:
            line += f" {clean_line(message)[:200]}"
        if spinner_allowed():
            if self._activity is None:
                self._activity = Activity(line, announce=False).__enter__()
            self._activity.update(line)
            self._pending = line  # kept on screen once the call ends
            return
        now = time.monotonic()
        if now - self._shown_at < PROGRESS_INTERVAL:
            self._pending = line
            return
        self._shown_at, self._pending = now, None
        print(line, file=sys.stderr, flush=True)

    def pause(self) -> None:
        """The spinner off (a question is asked); the next report draws it again."""
        if self._activity is not None:
            self._activity.__exit__(None, None, None)
            self._activity = None

    def done(self) -> None:
        self.pause()
        if self._pending is not None:
            print(self._pending, file=sys.stderr, flush=True)
            self._pending = None
