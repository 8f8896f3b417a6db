"""Which lines of a failed server's stderr a person is shown: the line that names the error,
then the last lines.

A crashed Node server prints ``Error: Cannot find module '/x.js'`` and then a stack of
``at …`` lines, an object dump and ``Node.js v20``: its last lines alone leave out the one that
matters.  :func:`tail_lines` keeps the last *count* lines and, when the line naming the error
(:func:`error_index`) came before them, puts it first, then ``…``.  Only a choice of what to
show: nothing decides anything on this text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["error_index", "tail_lines"]

#: A line that names an error: ``Error: …``, ``ModuleNotFoundError: …``,
#: ``error: …``, ``fatal: …``, ``panic: …``, Rust's ``thread 'main' panicked at …``.
_ERROR_LINE = re.compile(
    r"^\s*(?:(?:[A-Za-z_][\w.]*)?(?:Error|Exception)\b\s*(?:\[[^\]]*\])?\s*:"
    r"|(?:error|fatal|panic|FATAL|ERROR)\b\s*(?:\[[^\]]*\])?\s*:"
    r"|thread '[^']*' panicked at)"
)


def error_index(lines: Sequence[str]) -> int | None:
    """The index of the last line of *lines* that names an error, or ``None``."""
    for index in range(len(lines) - 1, -1, -1):
        if _ERROR_LINE.match(lines[index]):
            return index
    return None


def tail_lines(lines: Sequence[str], count: int) -> list[str]:
    """The last *count* non-blank *lines*, after the error line when it came earlier."""
    kept = [line for line in lines if line.strip()]
    tail = kept[-count:]
    found = error_index(kept)
    if found is not None and found < len(kept) - count:
        return [kept[found], "…", *tail]
    return tail
