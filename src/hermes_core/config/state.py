"""``state:``: where the durable state lives when several Hermes processes on several machines
must agree on it (a fleet of ``hermes mcp proxy --http`` replicas).

```yaml
state:
  url: postgresql://hermes:${HERMES_PG_PASSWORD}@db.internal:5432/hermes?sslmode=verify-full
```

Without the key, the embedded default holds: SQLite files and the audit log under
``$HERMES_HOME``.  With it, questions waiting for a person, remembered decisions, pinned
definitions, the audit log and OAuth tokens live in that PostgreSQL database
(:mod:`hermes_core.pgstate`).

The URL is checked here without ever being quoted: it must be a ``postgresql://`` (or
``postgres://``) URL, and a password in it — in the user-info part or as a ``password=``
query parameter — must be exactly one ``${VAR}`` reference (the value lives in the
environment or ``$HERMES_HOME/.env``, never in ``config.yaml``).  ``repr`` and :meth:`shown`
show the URL with its credentials and query hidden.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from pydantic import field_validator, model_validator

from hermes_core.config.checks import fail, kind_of
from hermes_core.config.model_base import ConfigModel
from hermes_core.config.values import unknown_key
from hermes_core.sanitize.urls import redact_url

__all__ = ["STATE_SCHEMES", "StateConfig", "state_url_problem"]

STATE_SCHEMES = ("postgresql", "postgres")
#: A whole value that is one variable reference.
_REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
_MAX_URL = 4096


def state_url_problem(url: str) -> str | None:
    """Why *url* cannot be ``state.url`` (a sentence that never quotes it), or ``None``."""
    text = url.strip()
    if not text:
        return "must not be empty"
    if len(text) > _MAX_URL:
        return f"is longer than {_MAX_URL} characters"
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        return "holds control characters"
    try:
        parts = urlsplit(text)
        password = parts.password
        query = parse_qsl(parts.query, keep_blank_values=True)
    except ValueError:
        return "is not a valid URL"
    if parts.scheme.lower() not in STATE_SCHEMES:
        return "must be a postgresql:// URL (postgresql://USER:${PASSWORD_VAR}@HOST:5432/DB)"
    literal = password is not None and password != "" and not _REFERENCE.fullmatch(password)
    literal = literal or any(
        key.lower() == "password" and not _REFERENCE.fullmatch(value) for key, value in query
    )
    if literal:
        return (
            "the password must be a ${VAR} reference, never written here: put it in "
            "$HERMES_HOME/.env (HERMES_PG_PASSWORD=...) and write "
            "postgresql://USER:${HERMES_PG_PASSWORD}@HOST/DB"
        )
    return None


class StateConfig(ConfigModel):
    """The ``state:`` block (only ``url``)."""

    url: str

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, value: Any) -> Any:
        if not isinstance(value, Mapping):
            raise fail(f"must be a mapping with url: (got {kind_of(value)})")
        for key in value:
            if key != "url":
                raise fail(unknown_key(str(key), ["url"]), str(key))
        if "url" not in value:
            raise fail("needs url: postgresql://USER:${PASSWORD_VAR}@HOST:5432/DB")
        return value

    @field_validator("url", mode="before")
    @classmethod
    def _url(cls, value: Any) -> str:
        if not isinstance(value, str):
            raise fail(f"must be a postgresql:// URL (got {kind_of(value)})")
        problem = state_url_problem(value)
        if problem is not None:
            raise fail(problem)
        return value.strip()

    def shown(self) -> str:
        """The URL as it may be shown: credentials and query hidden."""
        return redact_url(self.url)

    def __repr__(self) -> str:
        return f"StateConfig(url={self.shown()!r})"

    __str__ = __repr__
