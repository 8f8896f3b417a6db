"""Compact JSON text for what the hot paths put on the wire.

One codec, pydantic-core's (the SDK's own, so already loaded): a message of a call is written
in about a fifth of what :func:`json.dumps` takes.  The text is UTF-8 (non-ASCII characters
are not escaped) and as compact as ``separators=(",", ":")``.
"""

from __future__ import annotations

from pydantic_core import to_json

__all__ = ["compact_json"]


def compact_json(value: object) -> str:
    """*value* as compact JSON text; :class:`ValueError` for what JSON cannot hold."""
    return to_json(value).decode()
