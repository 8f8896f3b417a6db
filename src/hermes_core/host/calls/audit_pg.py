"""The audit log in the state database (``state:``): records batched off the call's path.

:class:`PgAuditSink` takes each call's record into a bounded buffer (:data:`MAX_BUFFERED`)
and returns at once; a writer thread inserts what is waiting in batches (one transaction per
:data:`BATCH` rows) as soon as rows arrive.  While the database is down the rows wait in the
buffer and are written when it returns.  A row that finds the buffer full is dropped and
*counted*: the count is logged as a warning, kept in :attr:`PgAuditSink.dropped`, and written
into the log itself as an ``audit_dropped`` row once the database takes rows again, so a gap
is never silent.  :meth:`PgAuditSink.flush` waits (bounded) until the buffer is written;
:meth:`PgAuditSink.close` flushes and stops the thread (also at interpreter exit).

:func:`audit_sink_for` gives one sink per database and process; :func:`read_audit_rows`
reads the log back for ``hermes mcp audit`` (bounded, oldest first).
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from hermes_core.host.calls.audit import AuditRecord
from hermes_core.json_types import JsonObject
from hermes_core.pgstate import Database, StateUnavailable

if TYPE_CHECKING:
    import psycopg
    from psycopg.rows import TupleRow

__all__ = [
    "BATCH",
    "MAX_BUFFERED",
    "PgAuditSink",
    "audit_sink_for",
    "read_audit_rows",
]

log = logging.getLogger(__name__)

#: Records waiting for the database at most (beyond: dropped and counted).
MAX_BUFFERED = 10_000
#: Rows per insert transaction.
BATCH = 500
#: How long the writer waits before trying a database that refused rows again.
RETRY_SECONDS = 0.5
#: How long :meth:`PgAuditSink.flush` waits at most.
FLUSH_SECONDS = 10.0
#: Rows read back by ``hermes mcp audit`` at most.
MAX_READ_ROWS = 200_000

_Waiter = Callable[[], None]
_sinks: dict[int, PgAuditSink] = {}
_sinks_lock = threading.Lock()


class PgAuditSink:
    """The buffered writer of audit records into *db*."""

    def __init__(self, db: Database, *, max_buffered: int = MAX_BUFFERED) -> None:
        self.db = db
        self.max_buffered = max_buffered
        self._buffer: deque[tuple[AuditRecord, _Waiter | None]] = deque()
        self.healthy = True
        """Whether the last write went through (a call waits for its row only then)."""
        self._cond = threading.Condition()
        self._writing = 0
        self._stopped = False
        self.dropped = 0
        """Records dropped since the start because the buffer was full."""
        self._unreported = 0
        self._thread: threading.Thread | None = None

    def __repr__(self) -> str:
        return f"PgAuditSink({self.db.shown!r}, waiting={len(self._buffer)})"

    @property
    def waiting(self) -> int:
        """Records not written yet."""
        with self._cond:
            return len(self._buffer) + self._writing

    def add(self, record: AuditRecord, waiter: _Waiter | None = None) -> bool:
        """Take *record*; *waiter* is called (from the writer thread) once its row is written.
        Never blocks on the database; ``False``: the buffer was full and the record dropped."""
        with self._cond:
            # (the rows of a write in progress count: a failing one puts them back)
            if len(self._buffer) + self._writing >= self.max_buffered:
                self.dropped += 1
                self._unreported += 1
                if self._unreported == 1 or self._unreported % 1000 == 0:
                    log.warning(
                        "audit: %d record(s) dropped: the state database %s has not taken "
                        "rows and %d are waiting",
                        self._unreported,
                        self.db.shown,
                        len(self._buffer) + self._writing,
                    )
                return False
            self._buffer.append((record, waiter))
            self._start()
            self._cond.notify_all()
            return True

    def written(self, record: AuditRecord) -> asyncio.Future[None] | None:
        """Take *record* from a call on the running loop: a future that is done once its row is
        in the database (the call returns after its row is written, so a replica killed after
        it answered has lost no row), or ``None`` when not worth waiting for — the buffer was
        full, or the database is refusing rows (they wait in the buffer; the call goes on)."""
        if not self.healthy:
            self.add(record)
            return None
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()

        def waiter() -> None:
            loop.call_soon_threadsafe(_settle, done)

        return done if self.add(record, waiter) else None

    def _start(self) -> None:
        if self._thread is None and not self._stopped:
            self._thread = threading.Thread(target=self._run, name="hermes-audit", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._buffer and not self._unreported and not self._stopped:
                    self._cond.wait()
                if self._stopped and not self._buffer and not self._unreported:
                    return
                taken = [self._buffer.popleft() for _ in range(min(BATCH, len(self._buffer)))]
                dropped, self._unreported = self._unreported, 0
                self._writing = len(taken)
            batch = [record for record, _ in taken]
            if dropped:
                batch.append(_dropped_record(dropped))
            try:
                self.db.run(functools.partial(_insert, batch=batch), write=True)
            except StateUnavailable:
                self.healthy = False
                with self._cond:
                    self._buffer.extendleft(reversed(taken))
                    self._unreported += dropped
                    self._writing = 0
                    stopping = self._stopped
                    if not stopping:
                        self._cond.wait(RETRY_SECONDS)
                if stopping:
                    return
                continue
            self.healthy = True
            for _, waiter in taken:
                if waiter is not None:
                    waiter()
            with self._cond:
                self._writing = 0
                self._cond.notify_all()

    def flush(self, timeout: float = FLUSH_SECONDS) -> bool:
        """Wait until every record taken so far is written (at most *timeout*); whether
        they were."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._buffer or self._writing:
                left = deadline - time.monotonic()
                if left <= 0 or self._thread is None:
                    return False
                self._cond.wait(min(left, 0.1))
            return True

    def close(self, timeout: float = FLUSH_SECONDS) -> None:
        """Flush (bounded), then stop the writer; records still waiting are reported."""
        self.flush(timeout)
        with self._cond:
            self._stopped = True
            left = len(self._buffer) + self._unreported
            self._cond.notify_all()
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        if left:
            log.warning(
                "audit: %d record(s) not written: the state database %s did not take them "
                "before the end",
                left,
                self.db.shown,
            )


def _settle(done: asyncio.Future[None]) -> None:
    if not done.done():
        done.set_result(None)


def _dropped_record(count: int) -> AuditRecord:
    now = time.time()
    return {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now))
        + f".{int(now % 1 * 1000):03d}Z",
        "server": None,
        "tool": None,
        "outcome": "audit_dropped",
        "dropped": count,
    }


def _insert(conn: psycopg.Connection[TupleRow], batch: list[AuditRecord]) -> None:
    now = time.time()
    rows = [
        (
            now,
            record.get("server") if isinstance(record.get("server"), str) else None,
            json.dumps(record, ensure_ascii=True, default=str),
        )
        for record in batch
    ]
    with conn.cursor() as cursor:
        cursor.executemany("INSERT INTO audit_log (at, server, record) VALUES (%s, %s, %s)", rows)


def audit_sink_for(db: Database) -> PgAuditSink:
    """The process's sink for *db* (closed, flushing, at interpreter exit)."""
    with _sinks_lock:
        found = _sinks.get(id(db))
        if found is None:
            found = PgAuditSink(db)
            _sinks[id(db)] = found
            atexit.register(found.close)
        return found


def read_audit_rows(
    db: Database, *, since: float | None = None, server: str | None = None
) -> Iterator[JsonObject]:
    """The audit records in *db*, oldest first (at most :data:`MAX_READ_ROWS`, the newest
    ones); ``StateUnavailable`` when it cannot be read."""
    clauses: list[str] = []
    args: list[float | str] = []
    if since is not None:
        clauses.append("at >= %s")
        args.append(since)
    if server is not None:
        clauses.append("server = %s")
        args.append(server)
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    sql = (
        "SELECT record FROM (SELECT id, record FROM audit_log"
        + where
        + " ORDER BY id DESC LIMIT %s) AS newest ORDER BY id"
    )
    rows = db.run(lambda conn: conn.execute(sql, (*args, MAX_READ_ROWS)).fetchall())
    for (text,) in rows:
        try:
            record = json.loads(text)
        except ValueError:
            continue
        if isinstance(record, dict):
            yield record
