"""The registered names a caller probably meant by a name that is not registered: the
did-you-mean of an unknown tool, the same at every door (the embedding API, ``hermes mcp
call``, the warm host, the proxy, the dashboard).

A bare tool name, as its server calls it (``read_text_file``, ``read-text-file``), points at
each registered name that ends in it (``mcp_fs_read_text_file``); then come close spellings of
the whole name (``mcp_fs_read_txt_file``)."""

from __future__ import annotations

from collections.abc import Iterable

from hermes_core.host.tools.naming import sanitize_component
from hermes_core.spelling import close_matches

__all__ = ["MAX_GUESSED", "close_names", "did_you_mean"]

#: Names longer than this are not compared (the comparison's cost grows with the length).
MAX_GUESSED = 200
#: Suggestions at most.
MAX_SUGGESTIONS = 3


def close_names(name: str, known: Iterable[str]) -> list[str]:
    """At most three registered names from *known* that *name* may have meant, best first."""
    if not name or len(name) > MAX_GUESSED:
        return []
    names = sorted(set(known))
    bare = sanitize_component(name)
    found = [known_name for known_name in names if known_name.endswith(f"_{bare}")]
    if len(found) < MAX_SUGGESTIONS:
        for close in close_matches(name, names, n=MAX_SUGGESTIONS):
            if close not in found:
                found.append(close)
    return found[:MAX_SUGGESTIONS]


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean mcp_fs_read_text_file?"``, or ``""`` when nothing is close."""
    close = close_names(name, known)
    return f"; did you mean {', '.join(close)}?" if close else ""
