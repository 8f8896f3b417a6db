"""What ``hermes chat`` prints: the model's answer streamed on stdout; tool calls, their
results, progress and notices on stderr (so ``hermes chat -q … > answer.txt`` keeps only the
answer).  Everything shown is sanitised (:mod:`hermes_core.sanitize`): a model's and a
server's text may carry control or invisible characters."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping
from typing import TextIO

from hermes_core.sanitize import clean_line, clean_text

__all__ = ["TerminalOutput"]

_SHOWN_CHARS = 200
_PROGRESS_INTERVAL = 0.5


def _short(text: str) -> str:
    line = clean_line(text)
    return line if len(line) <= _SHOWN_CHARS else line[: _SHOWN_CHARS - 1] + "…"


class TerminalOutput:
    """The terminal side of a chat session (see :class:`hermes_core.chat.session.ChatOutput`)."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self._out = out
        self._err = err
        self._open_line = False
        self._progress_at = 0.0

    @property
    def out(self) -> TextIO:
        return self._out or sys.stdout

    @property
    def err(self) -> TextIO:
        return self._err or sys.stderr

    def text(self, chunk: str) -> None:
        cleaned = clean_text(chunk)
        if cleaned:
            self.out.write(cleaned)
            self.out.flush()
            self._open_line = not cleaned.endswith("\n")

    def end_of_answer(self) -> None:
        if self._open_line:
            self.out.write("\n")
            self.out.flush()
            self._open_line = False

    def tool_call(self, name: str, arguments: Mapping[str, object]) -> None:
        shown = json.dumps(dict(arguments), ensure_ascii=False)
        self.say(f"[tool] {clean_line(name)} {_short(shown)}")

    def tool_result(self, name: str, text: str, failed: bool) -> None:
        outcome = "failed" if failed else "done"
        self.say(f"[tool] {clean_line(name)} {outcome}: {_short(text)}")

    def progress(self, progress: float, total: float | None, message: str | None) -> None:
        now = time.monotonic()
        if now - self._progress_at < _PROGRESS_INTERVAL:
            return
        self._progress_at = now
        line = f"progress: {progress:g}"
        if total:
            line += f"/{total:g} ({min(100.0, 100 * progress / total):.0f}%)"
        if message:
            line += f" {_short(message)}"
        self.say(line)

    def notice(self, text: str) -> None:
        self.say(text)

    def say(self, text: str) -> None:
        """One line on stderr."""
        self.end_of_answer()
        self.err.write(text + "\n")
        self.err.flush()
