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

from urllib.parse import parse_qsl

from hermes_core.config.engine_url import VARIABLE_REFERENCE, EngineUrlConfig, split_engine_url

__all__ = ["STATE_SCHEMES", "StateConfig", "state_url_problem"]

STATE_SCHEMES = ("postgresql", "postgres")
_MAX_URL = 4096


def state_url_problem(url: str) -> str | None:
    """Why *url* cannot be ``state.url`` (a sentence that never quotes it), or ``None``."""
    parts = split_engine_url(url, _MAX_URL)
    if isinstance(parts, str):
        return parts
    password = parts.password
    try:
        query = parse_qsl(parts.query, keep_blank_values=True)
    except ValueError:
        return "is not a valid URL"
    if parts.scheme.lower() not in STATE_SCHEMES:
        return "must be a postgresql:// URL (postgresql://USER:${PASSWORD_VAR}@HOST:5432/DB)"
    literal = password is not None and password != "" and not VARIABLE_REFERENCE.fullmatch(password)
    literal = literal or any(
        key.lower() == "password" and not VARIABLE_REFERENCE.fullmatch(value)
        for key, value in query
    )
    if literal:
        return (
            "the password must be a ${VAR} reference, never written here: put it in "
            "$HERMES_HOME/.env (HERMES_PG_PASSWORD=...) and write "
            "postgresql://USER:${HERMES_PG_PASSWORD}@HOST/DB"
        )
    return None


class StateConfig(EngineUrlConfig):
    """The ``state:`` block (only ``url``)."""

    NEEDS = "needs url: postgresql://USER:${PASSWORD_VAR}@HOST:5432/DB"
    KIND = "a postgresql:// URL"

    @staticmethod
    def url_problem(url: str) -> str | None:
        return state_url_problem(url)
