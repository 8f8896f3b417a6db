"""The line of a failed server's output that names the error, not the tail of its stack.

A Node server that cannot start prints where it failed, the source line, a caret, then
``Error: Cannot find module 'x'``, then a dozen ``at …`` frames and ``Node.js v22``; a Python
one prints ``Traceback …``, frames and source lines, then ``ModuleNotFoundError: …``.  The
line that matters is the last one that names an error; without one, the last line that is not
a stack frame.  The text is only shown (already cleaned by the host), never acted on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["error_line"]

_MAX = 300
_NAMES_ERROR = re.compile(
    r"^(?:[\w$.]*(?:Error|Exception|Exit|Failure|Fault|Panic)\b(?:\s*\[[\w-]+\])?\s*:"
    r"|(?:error|fatal|panic|failed|critical)\b[\s:\[(])",
    re.IGNORECASE,
)
_FRAME = re.compile(
    r"^(?:at\s|File\s\"|Traceback\b|\^+$|~+\^*|\.\.\.\s\d+\smore|throw\s|Node\.js\sv\d"
    r"|node:internal/|[{}\[\]],?$|\w+:\s.*,$|During handling of the above exception"
    r"|The above exception was the direct cause)"
)


def error_line(lines: Iterable[str]) -> str | None:
    """The line of *lines* (oldest first) that names the error; ``None`` when all are blank."""
    kept = [line.strip() for line in lines if line.strip()]
    for line in reversed(kept):
        if _NAMES_ERROR.match(line) and not _FRAME.match(line):
            return line[:_MAX]
    for line in reversed(kept):
        if not _FRAME.match(line):
            return line[:_MAX]
    return kept[-1][:_MAX] if kept else None
