"""A URL as it may be shown (reprs, logs): its credentials and its query hidden.

A low-level module with no project dependencies, so that the host's server specification can
show its URL without importing the configuration models (pydantic) into an embedding host.
(``hermes_core.config.models.display_url`` does the same and can import it from here.)
"""

from __future__ import annotations

__all__ = ["REDACTED", "display_url"]

REDACTED = "***"


def display_url(url: str) -> str:
    """*url* for display: the user info before ``@``, the query and the fragment hidden."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return REDACTED
    authority, slash, path = rest.partition("/")
    if "@" in authority:
        authority = REDACTED + "@" + authority.rsplit("@", 1)[1]
    shown = f"{scheme}://{authority}{slash}{path}"
    for mark in ("?", "#"):
        if mark in shown:
            shown = shown.split(mark, 1)[0] + mark + REDACTED
    return shown
