"""Terminal questions for the catalog: yes/no, values, secrets, the tool checklist, menus.

Built on questionary (prompt_toolkit): SPACE toggles, ENTER confirms (a yes/no
needs its Enter too, and keys typed before a question appears are dropped, so a
stray Enter never answers the next one), arrows move, Esc leaves a menu, Ctrl-C
raises ``KeyboardInterrupt`` (the command ends with exit code 130).  Everything
shown that came from a server or a manifest goes through :func:`shown` first
(control and invisible characters removed).
"""

from __future__ import annotations

import shutil
import sys
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hermes_core.sanitize import strip_tags

if TYPE_CHECKING:
    from prompt_toolkit.key_binding.key_processor import KeyPressEvent
    from questionary import Question

__all__ = ["Cancelled", "ask_value", "checklist", "confirm", "interactive", "menu", "shown"]


class Cancelled(Exception):
    """The user pressed Ctrl-C or Esc at a question."""


def interactive() -> bool:
    """Both ends are a terminal (a person can answer)."""
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def shown(text: str, limit: int = 200) -> str:
    """*text* for a terminal: one line, no control/format characters, at most *limit*."""
    text = strip_tags(text)
    cleaned = "".join(
        " " if ch in "\t\n\r" else ch
        for ch in text
        if ch in "\t\n\r" or unicodedata.category(ch) not in ("Cc", "Cf", "Co", "Cs")
    )
    cleaned = " ".join(cleaned.split())
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"


def _width() -> int:
    return shutil.get_terminal_size((100, 24)).columns


def _drop_typeahead() -> None:
    """Forget keys typed before the question is shown (an Enter meant for the last one)."""
    try:
        import termios

        termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)
    except (ImportError, OSError, ValueError, AttributeError):
        pass


def _asked(make: Callable[[], Question]) -> object:
    """The answer to the question *make* builds; Ctrl-C raises ``KeyboardInterrupt``
    (questionary's ``ask`` would print "Cancelled by user" and return None).  Each question
    starts afresh: keys typed for an earlier one are dropped, those the terminal still holds
    and those prompt_toolkit kept back as type-ahead when the earlier question ended."""
    from prompt_toolkit.application.current import get_app_session
    from prompt_toolkit.input.typeahead import clear_typeahead

    _drop_typeahead()
    clear_typeahead(get_app_session().input)
    return make().unsafe_ask()


def confirm(question: str, default: bool = False) -> bool:
    import questionary

    answer = _asked(lambda: questionary.confirm(question, default=default, auto_enter=False))
    if answer is None:
        raise Cancelled
    return bool(answer)


def ask_value(prompt: str, *, secret: bool, default: str | None = None) -> str:
    import questionary

    if secret:
        answer = _asked(lambda: questionary.password(prompt))
    else:
        answer = _asked(lambda: questionary.text(prompt, default=default or ""))
    if answer is None:
        raise Cancelled
    return str(answer)


@dataclass(frozen=True)
class Row:
    value: str
    label: str
    detail: str = ""


def checklist(title: str, rows: Sequence[Row], checked: set[str]) -> list[str]:
    """A checklist of *rows*; returns the checked values in row order."""
    import questionary

    name_width = min(max((len(r.label) for r in rows), default=0), 40)
    room = max(_width() - name_width - 12, 20)
    choices = [
        questionary.Choice(
            title=f"{r.label:<{name_width}}  {shown(r.detail, room)}".rstrip(),
            value=r.value,
            checked=r.value in checked,
        )
        for r in rows
    ]
    # Erased when done: questionary's "done (N selections)" would count the utility rows too;
    # the caller says what was chosen, in tools.
    answer = _asked(
        lambda: questionary.checkbox(
            title,
            choices=choices,
            instruction="(SPACE toggle, ENTER confirm)",
            erase_when_done=True,
        )
    )
    if answer is None:
        raise Cancelled
    picked = set(answer) if isinstance(answer, list) else set()
    return [r.value for r in rows if r.value in picked]


def menu(title: str, rows: Sequence[Row]) -> str | None:
    """Pick one row; ``None`` when the user leaves (Esc, Ctrl-C)."""
    import questionary

    name_width = min(max((len(r.label) for r in rows), default=0), 40)
    room = max(_width() - name_width - 8, 20)
    choices = [
        questionary.Choice(
            title=f"{r.label:<{name_width}}  {shown(r.detail, room)}".rstrip(),
            value=r.value,
        )
        for r in rows
    ]

    def make() -> Question:
        question = questionary.select(
            title,
            choices=choices,
            instruction="(type to filter, ENTER choose, Esc leave)",
            use_search_filter=True,
            use_jk_keys=False,
        )
        _leave_on_escape(question)
        return question

    answer = _asked(make)
    return None if answer is None else str(answer)


def _leave_on_escape(question: Question) -> None:
    """Esc ends *question* with no answer, as the menu's hint says (after prompt_toolkit's
    short wait that tells a lone Esc from the start of an arrow key's sequence)."""
    from prompt_toolkit.key_binding import KeyBindings, merge_key_bindings

    leave = KeyBindings()

    @leave.add("escape")
    def _leave(event: KeyPressEvent) -> None:
        event.app.exit(result=None)

    app = question.application
    kept = [app.key_bindings] if app.key_bindings is not None else []
    app.key_bindings = merge_key_bindings([*kept, leave])
