"""Long work made visible on stderr: a spinner with one line of text on a terminal (``rich``),
plain lines when stderr is not a terminal (a log, a pipe, a test).

``rich`` is imported only when a spinner is shown, so ``hermes --help`` and ``hermes mcp
list`` never load it.  ``NO_COLOR`` (set by ``--no-color`` too) turns colour off; a spinner
is never drawn off a terminal, nor with ``TERM=dumb``.
"""

from __future__ import annotations

import os
import sys
from types import TracebackType
from typing import Any

__all__ = ["Activity", "color_allowed", "paint", "spinner_allowed"]


def spinner_allowed() -> bool:
    """stderr is a terminal that can redraw a line."""
    try:
        tty = sys.stderr.isatty()
    except (AttributeError, ValueError, OSError):
        return False
    return tty and os.environ.get("TERM", "") != "dumb"


def color_allowed() -> bool:
    """``NO_COLOR`` (any value, https://no-color.org) and ``--no-color`` turn colour off."""
    return not os.environ.get("NO_COLOR")


class Activity:
    """One long step: on a terminal a spinner showing *text* (:meth:`update` changes it) with
    lasting lines printed above it (:meth:`line`); elsewhere *text* is printed once, when
    *announce*, and each :meth:`line` is a plain line.  A context manager: the spinner goes
    when the step ends, however it ends (an error, Ctrl-C)."""

    def __init__(self, text: str, *, announce: bool = True, spinner: bool | None = None) -> None:
        self.text = text
        self.announce = announce
        self.spinning = spinner_allowed() if spinner is None else spinner
        self._status: Any = None
        self._console: Any = None

    def __enter__(self) -> Activity:
        if self.spinning:
            from rich.console import Console

            self._console = Console(stderr=True, no_color=not color_allowed(), highlight=False)
            self._status = self._console.status(self.text, spinner="dots")
            self._status.start()
        elif self.announce:
            print(self.text, file=sys.stderr, flush=True)
        return self

    def update(self, text: str) -> None:
        """The spinner's text (nothing off a terminal: the lines say it there)."""
        self.text = text
        if self._status is not None:
            self._status.update(text)

    def line(self, text: str) -> None:
        """A line that stays, above the spinner."""
        if self._console is not None:
            self._console.print(text, markup=False, highlight=False, soft_wrap=True)
        else:
            print(text, file=sys.stderr, flush=True)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None


def paint(text: str, style: str) -> str:
    """*text* in *style* (rich's syntax: ``"bold green"``) when stdout is a terminal and
    colour is allowed; else *text* as it is."""
    try:
        tty = sys.stdout.isatty()
    except (AttributeError, ValueError, OSError):
        tty = False
    if not tty or not color_allowed() or os.environ.get("TERM", "") == "dumb":
        return text
    from rich.color import ColorSystem
    from rich.style import Style

    return Style.parse(style).render(text, color_system=ColorSystem.STANDARD)
