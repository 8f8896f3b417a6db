"""OAuth tokens in the state database (``state:``), refreshed by one process at a time.

:class:`PgTokenBackend` is where a :class:`~hermes_core.auth.storage.TokenStorage` keeps one
server's token document when the home's config names a state database: the same JSON
document as ``mcp-tokens/<server>.json``, one row of ``oauth_tokens`` per server, so every
replica uses (and refreshes) the same tokens.  Its stamp is the row's ``updated_at``, so a
storage notices a refresh made by another replica as it notices a file replaced by
``hermes mcp login``.

:meth:`PgTokenBackend.refresh_lock` is a PostgreSQL advisory lock on the server's name, held
on a connection of its own while one process refreshes: another replica that finds the same
token expiring waits, then reloads the row and finds the new token — two replicas never
spend one refresh token (a rotating refresh token is good for one use).

:func:`token_backend` gives the backend of a home, or ``None`` (the file).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import zlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_core.pgstate import Database, StateUnavailable, state_database_of

if TYPE_CHECKING:
    import psycopg

__all__ = ["LOCK_SECONDS", "PgTokenBackend", "token_backend"]

#: How long a refresh waits for another process's at most.
LOCK_SECONDS = 30.0
_LOCK_SPACE = 0x4F415554  # "OAUT": the advisory locks of token refreshes


class PgTokenBackend:
    """One server's token document in *db*."""

    def __init__(self, db: Database, server: str) -> None:
        self.db = db
        self.server = server

    def __repr__(self) -> str:
        return f"PgTokenBackend({self.server!r}, {self.db.shown!r})"

    @property
    def where(self) -> str:
        return f"{self.db.shown} (oauth_tokens, server {self.server!r})"

    def read(self) -> bytes | None:
        rows = self.db.run(
            lambda conn: conn.execute(
                "SELECT data FROM oauth_tokens WHERE server = %s", (self.server,)
            ).fetchall()
        )
        return str(rows[0][0]).encode() if rows else None

    def write(self, data: bytes) -> None:
        text = data.decode()
        self.db.run(
            lambda conn: conn.execute(
                "INSERT INTO oauth_tokens (server, data, updated_at) VALUES (%s, %s, %s) "
                "ON CONFLICT (server) DO UPDATE SET data = EXCLUDED.data, "
                "updated_at = EXCLUDED.updated_at",
                (self.server, text, time.time()),
            ),
            write=True,
        )

    def stamp(self) -> Any:
        """What changes when the row does (``None``: no row, or unreadable)."""
        try:
            rows = self.db.run(
                lambda conn: conn.execute(
                    "SELECT updated_at, length(data) FROM oauth_tokens WHERE server = %s",
                    (self.server,),
                ).fetchall()
            )
        except StateUnavailable:
            return None
        return tuple(rows[0]) if rows else None

    def remove(self) -> None:
        self.db.run(
            lambda conn: conn.execute("DELETE FROM oauth_tokens WHERE server = %s", (self.server,)),
            write=True,
        )

    def _key(self) -> int:
        return zlib.crc32(self.server.encode("utf-8", "surrogatepass"))

    @contextlib.asynccontextmanager
    async def refresh_lock(self) -> AsyncIterator[None]:
        """Hold the server's refresh lock (waits for another process's, at most
        :data:`LOCK_SECONDS`; ``StateUnavailable`` when it cannot be had)."""
        conn = await asyncio.to_thread(self._locked)
        try:
            yield
        finally:
            await asyncio.to_thread(_release, conn, self._key())

    def _locked(self) -> psycopg.Connection[Any]:
        import psycopg

        conn = self.db.dedicated()
        try:
            conn.execute(f"SET lock_timeout = '{int(LOCK_SECONDS * 1000)}ms'")
            conn.execute("SELECT pg_advisory_lock(%s, %s)", (_LOCK_SPACE, self._key()))
        except psycopg.Error as exc:
            conn.close()
            raise self.db.unavailable(exc, "gave no refresh lock") from None
        return conn


def _release(conn: psycopg.Connection[Any], key: int) -> None:
    with contextlib.suppress(Exception):  # a lost connection released it already
        conn.execute("SELECT pg_advisory_unlock(%s, %s)", (_LOCK_SPACE, key))
    conn.close()


def token_backend(home: Path | str, server: str) -> PgTokenBackend | None:
    """The state database's token row of *server* when *home*'s config names one."""
    db = state_database_of(home)
    return PgTokenBackend(db, server) if db is not None else None
