"""Printing text that came from another client's files: control and invisible characters out."""

from __future__ import annotations

import sys
import unicodedata

__all__ = ["clean", "say"]


def clean(text: str) -> str:
    """*text* with control and invisible characters (from foreign files) removed."""
    return "".join(
        ch for ch in text if ch == "\n" or unicodedata.category(ch) not in ("Cc", "Cf", "Co")
    )


def say(text: str = "", *, err: bool = False) -> None:
    """Print *text* (cleaned) on stdout, or on stderr with *err*; flushed at once."""
    print(clean(text), file=sys.stderr if err else sys.stdout, flush=True)
