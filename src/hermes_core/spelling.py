"""The one did-you-mean of Hermes core: the known words close to a misspelt one.

Every "unknown key / name / command (did you mean …?)" message asks here, so each is judged
the same way.  ``difflib`` is loaded by the first question only: most runs never misspell.
Standard library only (``hermes mcp list`` and ``hermes --help`` import what they need of it).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["close_matches"]


def close_matches(
    word: str, possibilities: Iterable[str], n: int = 3, cutoff: float = 0.6
) -> list[str]:
    """At most *n* of *possibilities* close to *word* (similarity at least *cutoff*, 0-1),
    best first."""
    import difflib  # (a misspelling only)

    return difflib.get_close_matches(word, list(possibilities), n=n, cutoff=cutoff)
