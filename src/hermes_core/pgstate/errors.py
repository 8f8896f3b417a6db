"""The one error of the state database: :class:`StateUnavailable`."""

from __future__ import annotations

__all__ = ["StateUnavailable"]


class StateUnavailable(Exception):
    """The state database cannot be used (down, refused, no psycopg, a newer schema).

    The message names the database by its URL with credentials hidden; it never holds the
    password or the connection string."""
