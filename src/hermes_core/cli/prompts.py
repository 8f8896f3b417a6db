"""Terminal questions for the catalog: yes/no, values, secrets, the tool checklist, menus.

Built on questionary (prompt_toolkit): SPACE toggles, ENTER confirms, arrows
move, Ctrl-C cancels.  Everything shown that came from a server or a manifest
goes through :func:`shown` first (control and invisible characters removed).
"""

from __future__ import annotations

import shutil
import sys
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from hermes_core.sanitize import strip_tags

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


def confirm(question: str, default: bool = False) -> bool:
    import questionary

    answer = questionary.confirm(question, default=default).ask()
    if answer is None:
        raise Cancelled
    return bool(answer)


def ask_value(prompt: str, *, secret: bool, default: str | None = None) -> str:
    import questionary

    if secret:
        answer = questionary.password(prompt).ask()
    else:
        answer = questionary.text(prompt, default=default or "").ask()
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
    answer = questionary.checkbox(
        title, choices=choices, instruction="(SPACE toggle, ENTER confirm)"
    ).ask()
    if answer is None:
        raise Cancelled
    picked = set(answer)
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
    answer = questionary.select(
        title,
        choices=choices,
        instruction="(type to filter, ENTER choose, Esc leave)",
        use_search_filter=True,
        use_jk_keys=False,
    ).ask()
    return None if answer is None else str(answer)
