"""The terminal's elicitor: a server's question, asked field by field on stderr.

Used by ``hermes mcp call``.  Without a terminal (stdin not a TTY) every question is
declined.  Each field shows its type and default; Enter keeps the default, a wrong
value is asked again (three tries), and the filled-in form is shown before it is sent::

    MCP server 'asking' asks: Which table should I book?
      Name (text, required) — Who the table is for: Ada
      Guests (whole number) [2]:
      Terrace (yes/no) [no]: y
    Send {"name": "Ada", "guests": 2, "terrace": true}? [Y]es / [n]o / [c]ancel:

Approvals (``kind="approval"``: an untrusted server's write-capable call, a sampling request
under ``sampling.approval: ask``) show what would run and run only on an explicit yes.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from typing import Any, TextIO

from hermes_core.offers.elicitation import (
    ElicitationAnswer,
    ElicitationField,
    ElicitationRequest,
    check_value,
    fill_answer,
)
from hermes_core.sanitize import clean_line, clean_text

__all__ = ["TerminalElicitor"]

_KINDS = {"integer": "whole number", "number": "number", "boolean": "yes/no", "string": "text"}
_TRIES = 3
_FORMATS = {
    "email": "email",
    "uri": "URI",
    "date": "date YYYY-MM-DD",
    "date-time": "date-time YYYY-MM-DDTHH:MM:SSZ",
}


class TerminalElicitor:
    """Ask on a terminal; *read_line* reads one answer (``input`` by default)."""

    def __init__(
        self,
        *,
        interactive: bool | None = None,
        read_line: Callable[[], str] | None = None,
        out: TextIO | None = None,
    ) -> None:
        self.interactive = _stdin_is_tty() if interactive is None else interactive
        self._read_line = read_line or sys.stdin.readline
        self._out = out
        self._lock = asyncio.Lock()  # one question on the terminal at a time

    @property
    def can_ask(self) -> bool:
        """Whether a person can be asked (a terminal): without one, the host offers nothing
        that needs an approval (sampling with ``approval: ask``)."""
        return self.interactive

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        if not self.interactive:
            if request.kind == "approval":
                self._say(f"{request.message} — not run (no terminal to ask on).")
                return ElicitationAnswer("decline")
            self._say(
                f"MCP server '{request.server}' asked a question; declined (no terminal to ask on)."
            )
            return ElicitationAnswer("decline")
        async with self._lock:
            return await asyncio.to_thread(self._ask, request)

    # -- the dialogue (in a worker thread) ---------------------------------------------------
    def _say(self, text: str, end: str = "\n") -> None:
        out = self._out or sys.stderr
        out.write(text + end)
        out.flush()

    def _read(self, prompt: str) -> str | None:
        self._say(prompt, end="")
        line = self._read_line()
        return None if line == "" else line.strip()  # "" is end of input

    def _ask(self, request: ElicitationRequest) -> ElicitationAnswer:
        if request.kind == "approval":
            return self._approve(request)
        self._say(f"MCP server '{request.server}' asks: {clean_text(request.message)}")
        given: dict[str, object] = {}
        for item in request.fields:
            for _ in range(_TRIES):
                line = self._read(clean_line(_prompt(item)))
                if line is None:
                    return ElicitationAnswer("cancel")
                if line == "":
                    if item.default is None and item.required:
                        self._say("    a value is required")
                        continue
                    break
                try:
                    given[item.name] = check_value(item, _parse(item, line))
                    break
                except ValueError as exc:
                    self._say(f"    {exc}")
            else:
                self._say("    no valid value: the question is declined")
                return ElicitationAnswer("decline")
        try:
            content = fill_answer(request.fields, given)
        except ValueError as exc:
            self._say(f"    {exc}: the question is declined")
            return ElicitationAnswer("decline")
        shown = json.dumps(content, ensure_ascii=False)
        choice = self._read(f"Send {shown}? [Y]es / [n]o / [c]ancel: ")
        if choice is None or choice.lower().startswith("c"):
            return ElicitationAnswer("cancel")
        if choice.lower().startswith("n"):
            return ElicitationAnswer("decline")
        return ElicitationAnswer("accept", given)

    def _approve(self, request: ElicitationRequest) -> ElicitationAnswer:
        """A yes/no question from Hermes itself, asked once; anything but yes is no."""
        message = request.message
        if message.rstrip().endswith("Run it?"):  # asked below, with its answer keys
            message = message.rstrip().removesuffix("Run it?").rstrip()
        self._say(f"Hermes asks: {message}")
        if request.remember:
            choice = self._read("Run it? [y]es / [N]o / [a]lways / ne[v]er: ")
        else:
            choice = self._read("Run it? [y/N]: ")
        if choice is None:
            return ElicitationAnswer("cancel")
        answer = choice.lower()
        if answer in ("y", "yes"):
            return ElicitationAnswer("accept", {})
        if request.remember and answer in ("a", "always"):
            return ElicitationAnswer("accept", {"remember": "always"})
        if request.remember and answer in ("v", "never"):
            return ElicitationAnswer("decline", {"remember": "never"})
        return ElicitationAnswer("decline")


def _choice(item: ElicitationField, value: str) -> str:
    label = item.label(value)
    return value if label == value else f"{label} [{value}]"


def _limits(item: ElicitationField) -> str:
    """The field's format and bounds, as a hint: ", email", ", 1 to 8", ", 3-5 characters"."""
    hints = []
    if item.format in _FORMATS:
        hints.append(_FORMATS[item.format])
    low, high = item.minimum, item.maximum
    if low is not None and high is not None:
        hints.append(f"{low:g} to {high:g}")
    elif low is not None:
        hints.append(f"at least {low:g}")
    elif high is not None:
        hints.append(f"at most {high:g}")
    unit = "choices" if item.multiple else "characters"
    short, long = item.min_length, item.max_length
    if short is not None and long is not None:
        hints.append(f"{short}-{long} {unit}")
    elif short is not None:
        hints.append(f"at least {short} {unit}")
    elif long is not None:
        hints.append(f"at most {long} {unit}")
    return "".join(f", {hint}" for hint in hints)


def _prompt(item: ElicitationField) -> str:
    if item.choices:
        kind = ("some of: " if item.multiple else "one of: ") + ", ".join(
            _choice(item, c) for c in item.choices
        )
    else:
        kind = _KINDS.get(item.type, item.type)
    label = item.title or item.name
    text = f"  {label} ({kind}{_limits(item)}{', required' if item.required else ''})"
    if item.description:
        text += f" — {item.description}"
    if item.default is not None:
        default = item.default
        if isinstance(default, bool):
            default = "yes" if default else "no"
        elif isinstance(default, list):
            default = ", ".join(item.label(str(v)) for v in default)
        elif item.choices:
            default = item.label(str(default))
        text += f" [{default}]"
    return text + ": "


def _pick(item: ElicitationField, answer: str) -> str:
    """A choice typed as its value or as its title (any case)."""
    if answer in item.choices:
        return answer
    for choice in item.choices:
        if item.label(choice).casefold() == answer.casefold():
            return choice
    return answer


def _parse(item: ElicitationField, line: str) -> Any:
    if item.multiple:
        return [_pick(item, part.strip()) for part in line.split(",") if part.strip()]
    if item.type == "boolean":
        lowered = line.lower()
        if lowered in ("y", "yes", "true", "1"):
            return True
        if lowered in ("n", "no", "false", "0"):
            return False
        raise ValueError("answer yes or no")
    if item.type == "integer":
        try:
            return int(line)
        except ValueError:
            raise ValueError("answer a whole number") from None
    if item.type == "number":
        try:
            return float(line)
        except ValueError:
            raise ValueError("answer a number") from None
    if item.choices:
        picked = _pick(item, line)
        if picked not in item.choices:
            raise ValueError("answer one of: " + ", ".join(_choice(item, c) for c in item.choices))
        return picked
    return line


def _stdin_is_tty() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError, OSError):
        return False
