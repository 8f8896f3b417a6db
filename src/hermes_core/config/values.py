"""The value checks a server entry's fields share: switches, seconds, lists and maps of
text, URLs and header values, and how a URL is shown without its secrets.

Each raises the validators' error (:func:`hermes_core.config.checks.fail`) with a plain
sentence that never quotes the value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from hermes_core.config.checks import fail, kind_of
from hermes_core.sanitize.urls import REDACTED, display_url, redact_url

__all__ = [
    "HEADER_NAME",
    "REDACTED",
    "boolish",
    "display_url",
    "parse_seconds",
    "redact_url",
    "scalar_text",
    "string_list",
    "string_map",
    "url_problem",
    "value_problem",
]

HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


def scalar_text(value: object) -> str | None:
    """A scalar as the text a user meant (``8080`` → ``"8080"``); ``None`` for non-scalars."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return None


def url_problem(url: str) -> str | None:
    """Why *url* cannot be an MCP endpoint, or ``None``.  Never quotes the URL."""
    if not url.strip():
        return "must not be empty"
    try:
        parts = urlsplit(url.strip())
        hostname = parts.hostname
    except ValueError:
        return "is not a valid URL"
    if parts.scheme.lower() not in ("http", "https"):
        shown = f" (got {parts.scheme!r})" if parts.scheme.isalnum() else ""
        return f"must start with http:// or https://{shown}"
    if not hostname:
        return "has no host name"
    return None


def boolish(value: object, default: bool) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise fail(f"must be true or false (got {kind_of(value)})")


def parse_seconds(value: object, default: float, *, zero_ok: bool) -> float:
    if value is None:
        return default
    number: float
    if isinstance(value, bool):
        raise fail("must be a number of seconds (got true/false)")
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise fail("must be a number of seconds (got text)") from None
    else:
        raise fail(f"must be a number of seconds (got {kind_of(value)})")
    if not math.isfinite(number):
        raise fail("must be a finite number of seconds")
    if zero_ok and number < 0:
        raise fail("must be 0 (off) or a positive number of seconds")
    if not zero_ok and number <= 0:
        raise fail("must be a positive number of seconds")
    return number


def string_list(value: object, what: str) -> list[str]:
    if not isinstance(value, list | tuple):
        raise fail(f"must be a list of {what} (got {kind_of(value)})")
    items: list[str] = []
    for index, item in enumerate(value):
        text = scalar_text(item)
        if text is None:
            raise fail(f"must be text (got {kind_of(item)})", index)
        items.append(text)
    return items


def string_map(value: object, *, headers: bool) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise fail(f"must be a mapping of NAME: value (got {kind_of(value)})")
    result: dict[str, str] = {}
    for key, item in value.items():
        if not isinstance(key, str) or not key:
            raise fail(f"names must be non-empty text (got {kind_of(key)})")
        if headers and not HEADER_NAME.fullmatch(key):
            raise fail(f"{key!r} is not a valid HTTP header name", key)
        if not headers and ("=" in key or "\0" in key):
            raise fail(f"{key!r} is not a valid environment variable name", key)
        text = scalar_text(item)
        if text is None:
            raise fail(f"must be text (got {kind_of(item)})", key)
        if "${" not in text:
            problem = value_problem(text, header=headers)
            if problem:
                raise fail(problem, key)
        result[key] = text
    return result


def value_problem(text: str, *, header: bool) -> str | None:
    """Why *text* cannot be sent as a header value / passed to a process, or ``None``."""
    if "\0" in text:
        return "contains a NUL character"
    if header and ("\r" in text or "\n" in text):
        return "contains a line break"
    if header and text != text.strip():
        # HTTP libraries refuse such a value with an error that quotes it (a secret).
        return "has leading or trailing whitespace (remove it; the value is not shown)"
    return None
