"""What an install will run, as the person agreeing to it reads it: every argument and every
environment value in full, each quoted as one shell word, nothing cut and nothing collapsed.

A word made only of safe characters (letters, digits, ``@%+=:,./-_`` and the ``${VAR}``
references Hermes fills in when it connects) is shown as it is; any other is single-quoted
(``shlex.quote``); a word holding a control, invisible or format character, a line break or a
TAG character is shown as ``$'…'`` with that character escaped (``\\n``, ``\\x1b``,
``\\u200b``), so what runs cannot hide in what is shown.  What runs is bounded: a command line
whose words (command, arguments, environment values, or URL and header values) take more than
:data:`MAX_SHOWN` characters as shown is refused (:class:`CommandLineTooLong`), never cut.
"""

from __future__ import annotations

import re
import shlex
import unicodedata
from collections.abc import Mapping

from hermes_core.sanitize.text import clean_line

__all__ = ["MAX_SHOWN", "CommandLineTooLong", "one_line", "quoted", "run_lines", "visible"]

MAX_SHOWN = 8192
"""The most characters of what an install runs (command, arguments, environment values; or the
URL and header values), as shown, that an install accepts."""

_SAFE = re.compile(r"[\w@%+=:,./${}-]+", re.ASCII)
_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\", "'": "\\'"}
_HIDDEN = ("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp")


class CommandLineTooLong(ValueError):
    """What an install would run is longer than :data:`MAX_SHOWN` characters as shown."""


def _hidden(ch: str) -> bool:
    if ch == " ":
        return False
    category = unicodedata.category(ch)
    return category in _HIDDEN or (category == "Zs") or "\U000e0000" <= ch <= "\U000e007f"


def _escaped(ch: str) -> str:
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    if not _hidden(ch):
        return ch
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def quoted(word: str) -> str:
    """*word* as one shell word a person reads exactly (see the module docstring)."""
    if any(_hidden(ch) for ch in word):
        return "$'" + "".join(_escaped(ch) for ch in word) + "'"
    return word if _SAFE.fullmatch(word) else shlex.quote(word)


def visible(text: str) -> str:
    """*text* (a URL, a header value) as it is, unless it holds a hidden character: then
    :func:`quoted`, so the character shows."""
    return quoted(text) if any(_hidden(ch) for ch in text) else text


def one_line(text: str, limit: int = 200) -> str:
    """*text* (a description, a name) on one line: controls and invisibles removed, runs of
    whitespace made one space, cut at *limit* with ``…``."""
    cleaned = " ".join(clean_line(text).split())
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"


def run_lines(entry: Mapping[str, object], label: str) -> list[tuple[str, str]]:
    """``(field, text)`` rows of what *entry* runs: ``runs`` (the command line), one ``env``
    row a variable; or ``connects`` (the URL) and one ``header`` row a header.
    :class:`CommandLineTooLong`, naming *label*, when they are longer than :data:`MAX_SHOWN`."""
    rows: list[tuple[str, str]] = []
    if "command" in entry:
        args = entry.get("args", [])
        words = [str(entry["command"]), *map(str, args if isinstance(args, list | tuple) else ())]
        rows.append(("runs", " ".join(quoted(w) for w in words)))
        env = entry.get("env", {})
        for key, value in (env if isinstance(env, Mapping) else {}).items():
            rows.append(("env", f"{quoted(str(key))}={quoted(str(value))}"))
    else:
        rows.append(("connects", visible(str(entry.get("url", "")))))
        headers = entry.get("headers", {})
        for key, value in (headers if isinstance(headers, Mapping) else {}).items():
            rows.append(("header", f"{visible(str(key))}: {visible(str(value))}"))
    size = sum(len(text) for _field, text in rows)
    if size > MAX_SHOWN:
        raise CommandLineTooLong(
            f"{label}: what it runs is {size} characters long as shown (command, arguments and "
            f"environment, or URL and headers); an install shows at most {MAX_SHOWN} in full, "
            "so it is refused; nothing was written"
        )
    return rows
