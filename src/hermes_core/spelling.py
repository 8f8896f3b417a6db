"""The one did-you-mean of Hermes core: the known words close to a misspelt one.

Every "unknown key / name / command (did you mean …?)" message asks here, so each is judged
the same way, with one threshold (:data:`CUTOFF`), and every unknown key of a config block is
refused in the same words (:func:`unknown_name`).  ``difflib`` is loaded by the first question
only: most runs never misspell.  Standard library only (``hermes mcp list`` and ``hermes
--help`` import what they need of it).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["CUTOFF", "close_matches", "closest", "unknown_name"]

CUTOFF = 0.6
"""How alike (0-1, ``difflib``'s ratio) a known word must be to a misspelt one to be offered."""


def close_matches(word: str, possibilities: Iterable[str], n: int = 3) -> list[str]:
    """At most *n* of *possibilities* close to *word* (similarity at least :data:`CUTOFF`),
    best first."""
    import difflib  # (a misspelling only)

    return difflib.get_close_matches(word, list(possibilities), n=n, cutoff=CUTOFF)


def closest(word: str, possibilities: Iterable[str]) -> str | None:
    """The one of *possibilities* closest to *word*, or ``None`` when none is close."""
    found = close_matches(word, possibilities, n=1)
    return found[0] if found else None


def unknown_name(
    word: str, known: Iterable[str], *, noun: str = "key", also: Iterable[str] = ()
) -> str:
    """Why *word* is refused where only *known* are allowed: ``unknown key (did you mean
    'x'?)``, or ``unknown key; the keys here are: a, b`` when none is close.  *also* are
    more words the did-you-mean may offer (a plugin's keys) that the list leaves out."""
    names = sorted(known)
    close = closest(word, [*names, *also])
    if close is not None:
        return f"unknown {noun} (did you mean {close!r}?)"
    return f"unknown {noun}; the {noun}s here are: " + (", ".join(names) or "none")
