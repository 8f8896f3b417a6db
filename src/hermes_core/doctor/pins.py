"""The tools of a server whose changed definitions wait for review in ``trust.db``, read
without writing anything: the file is opened read-only, and as immutable when no write-ahead
log exists (a read-only open of a WAL database would otherwise leave ``-wal``/``-shm`` files
behind).  The trust store itself (:mod:`hermes_core.host.trust.store`) creates and upgrades
the file, which doctor must never do."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import urllib.parse
from pathlib import Path

__all__ = ["waiting_reviews"]

_MAX_ROWS = 10_000


def waiting_reviews(home: Path, server: str) -> list[str] | None:
    """The tools of *server* with a change waiting (``[]``: none, or no trust.db yet);
    ``None`` when trust.db is there but cannot be read."""
    path = home / "trust.db"
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return []
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    wal = os.path.lexists(f"{path}-wal")
    query = "mode=ro&nofollow=1" + ("" if wal else "&immutable=1")
    uri = f"file:{urllib.parse.quote(str(path))}?{query}"
    try:
        connection = sqlite3.connect(uri, uri=True, timeout=2)
    except sqlite3.Error:
        return None
    try:
        rows = connection.execute(
            "SELECT tool FROM changes WHERE server = ? ORDER BY tool LIMIT ?", (server, _MAX_ROWS)
        ).fetchall()
    except sqlite3.Error:
        return None
    finally:
        with contextlib.suppress(sqlite3.Error):
            connection.close()
    return [str(row[0]) for row in rows]
