"""URLs as they may be shown: credentials and the query (often an API key) hidden."""

from __future__ import annotations

__all__ = ["REDACTED", "display_url", "redact_url"]

REDACTED = "***"
"""What stands for a hidden value."""


def redact_url(url: str) -> str:
    """A URL for display: credentials and the query (often an API key) hidden."""
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


display_url = redact_url
"""The name the rest of the code shows URLs with (the same function)."""
