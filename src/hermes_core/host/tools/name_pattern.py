"""Tools found by a regular expression over their names (``tool_search``'s ``pattern``), bounded
in time as well as in size.

A pattern comes from a model, so it may be written to backtrack for ever (``(a|aa)+$``).  It is
matched with the ``regex`` package, whose matching takes a timeout: at most
:data:`MAX_PATTERN_CHARS` characters, case-insensitive, searched anywhere in the registered
name (``mcp_<server>_<tool>``), and all the names together within :data:`TIME_LIMIT` seconds.
A pattern that does not compile, or runs past the limit, is one :class:`PatternError` saying so.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence

from hermes_core.host.tools.registry import ToolEntry

__all__ = ["MAX_PATTERN_CHARS", "TIME_LIMIT", "PatternError", "match_names"]

MAX_PATTERN_CHARS = 200
TIME_LIMIT = 0.1


class PatternError(ValueError):
    """A pattern that is too long, does not compile, or takes too long to match."""


def match_names(
    snapshot: Sequence[ToolEntry],
    pattern: str,
    limit: int,
    *,
    hidden_servers: Collection[str] = (),
) -> list[ToolEntry]:
    """The entries of *snapshot* whose registered name *pattern* matches, in listing order, at
    most *limit*; tools of *hidden_servers* are left out."""
    import regex  # (loaded by the first pattern search only)

    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError(f"the pattern is longer than {MAX_PATTERN_CHARS} characters")
    try:
        compiled = regex.compile(pattern, regex.IGNORECASE)
    except regex.error as exc:
        raise PatternError(f"not a regular expression: {exc}") from None
    hidden = set(hidden_servers)
    deadline = time.monotonic() + TIME_LIMIT
    found: list[ToolEntry] = []
    for entry in snapshot:
        if len(found) >= limit:
            break
        if entry.server in hidden:
            continue
        left = deadline - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            hit = compiled.search(entry.name, timeout=left)
        except TimeoutError:
            raise PatternError(
                f"the pattern took longer than {TIME_LIMIT:g} s to match; use a simpler one"
            ) from None
        if hit is not None:
            found.append(entry)
    return found
