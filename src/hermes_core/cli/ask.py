"""The terminal's elicitor: a server's question, asked field by field on stderr.

Used by ``hermes mcp call``.  Without a terminal (stdin not a TTY) every question is
declined.  Each field shows its type and default; Enter keeps the default, a wrong
value is asked again (three tries), and the filled-in form is shown before it is sent::

    MCP server 'asking' asks: Which table should I book?
      Name (text, required) — Who the table is for: Ada
      Guests (whole number) [2]:
      Terrace (yes/no) [no]: y
    Send {"name": "Ada", "guests": 2, "terrace": true}? [Y]es / [n]o / [c]ancel:
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from typing import Any, TextIO

from hermes_core.host.elicitation import (
    ElicitationAnswer,
    ElicitationField,
    ElicitationRequest,
    fill_answer,
)

__all__ = ["TerminalElicitor"]

_KINDS = {"integer": "whole number", "number": "number", "boolean": "yes/no", "string": "text"}
_TRIES = 3


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
        self._say(f"MCP server '{request.server}' asks: {request.message}")
        given: dict[str, Any] = {}
        for item in request.fields:
            for _ in range(_TRIES):
                line = self._read(_prompt(item))
                if line is None:
                    return ElicitationAnswer("cancel")
                if line == "":
                    if item.default is None and item.required:
                        self._say("    a value is required")
                        continue
                    break
                try:
                    given[item.name] = _parse(item, line)
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
        """A yes/no question from Hermes itself; anything but yes is no."""
        self._say(f"Hermes asks: {request.message}")
        choice = self._read("Run it? [y/N]: ")
        if choice is None:
            return ElicitationAnswer("cancel")
        if choice.lower() in ("y", "yes"):
            return ElicitationAnswer("accept", {})
        return ElicitationAnswer("decline")


def _prompt(item: ElicitationField) -> str:
    if item.choices:
        kind = ("some of: " if item.multiple else "one of: ") + ", ".join(item.choices)
    else:
        kind = _KINDS.get(item.type, item.type)
    label = item.title or item.name
    text = f"  {label} ({kind}{', required' if item.required else ''})"
    if item.description:
        text += f" — {item.description}"
    if item.default is not None:
        default = item.default
        if isinstance(default, bool):
            default = "yes" if default else "no"
        elif isinstance(default, list):
            default = ", ".join(map(str, default))
        text += f" [{default}]"
    return text + ": "


def _parse(item: ElicitationField, line: str) -> Any:
    if item.multiple:
        return [part.strip() for part in line.split(",") if part.strip()]
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
    if item.choices and line not in item.choices:
        raise ValueError("answer one of: " + ", ".join(item.choices))
    return line


def _stdin_is_tty() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError, OSError):
        return False
