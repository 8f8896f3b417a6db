"""One state database: its connections, the schema check on first use, and the errors.

A :class:`Database` keeps one connection per thread (the CLI has one thread; a host's event
loop and the audit log's writer thread have one each), opened on first use with a short
connect timeout.  A connection that breaks (the server restarted, the network dropped) is
closed and opened again on the next use: :meth:`Database.run` does so once at once, so a
restarted server costs the caller nothing.  After a failed connect, no new attempt is made
for :data:`RETRY_AFTER` seconds (each use raises :class:`StateUnavailable` at once), so a
host checking before every call never waits on a server that is down.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import unquote, urlsplit

from hermes_core.config.interpolate import expand, load_dotenv
from hermes_core.config.state import StateConfig
from hermes_core.pgstate.connection import Connection
from hermes_core.pgstate.errors import StateUnavailable
from hermes_core.pgstate.schema import ensure_schema
from hermes_core.sanitize.urls import redact_url

if TYPE_CHECKING:
    pass

__all__ = [
    "CONNECT_SECONDS",
    "RETRY_AFTER",
    "Connection",
    "Database",
    "database_at",
    "database_for",
    "remember_state",
    "shown_url",
    "state_database_of",
]

T = TypeVar("T")


#: How long a connect may take before the database counts as unreachable.
CONNECT_SECONDS = 3
#: After a failed connect, uses fail at once for this long before the next attempt.
RETRY_AFTER = 1.0

_databases: dict[str, Database] = {}
_databases_lock = threading.Lock()
#: Home folder -> the ``state:`` block the last config read for it named (see remember_state).
_homes: dict[str, StateConfig | None] = {}


def shown_url(url: str) -> str:
    """*url* as it may be shown (credentials and query hidden)."""
    return redact_url(url)


class Database:
    """The state database at one URL (thread-safe: one connection per thread)."""

    def __init__(self, resolve: Callable[[], tuple[str, tuple[str, ...]]], shown: str) -> None:
        """*resolve* gives the connection URL and its secrets (the password, as written and
        decoded) when a connection is opened; it raises :class:`StateUnavailable` when it
        cannot (a ``${VAR}`` not set)."""
        self._resolve = resolve
        self._conninfo = ""
        self.shown = shown
        self._secrets: tuple[str, ...] = ()
        self._local = threading.local()
        self._schema_ready = False
        self._schema_lock = threading.Lock()
        self._failed_at: float | None = None
        self._all: list[Connection] = []
        self._all_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Database({self.shown!r})"

    # -- errors ------------------------------------------------------------------------
    def unavailable(self, exc: BaseException, doing: str = "cannot be used") -> StateUnavailable:
        """The :class:`StateUnavailable` for *exc*: its first line, secrets removed."""
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        for secret in (*self._secrets, self._conninfo):
            if secret:
                text = text.replace(secret, "***")
        return StateUnavailable(f"the state database {self.shown} {doing}: {text}")

    # -- connections -------------------------------------------------------------------
    def dedicated(self) -> Connection:
        """A connection of its own, outside the per-thread ones (the caller closes it):
        for a session-level advisory lock held across awaits."""
        return self._connect(track=False)

    def _connect(self, *, track: bool = True) -> Connection:
        try:
            import psycopg
        except ImportError:
            raise StateUnavailable(
                f"state: {self.shown} needs psycopg (pip install 'hermes-core[fleet]')"
            ) from None
        failed = self._failed_at
        if failed is not None and time.monotonic() - failed < RETRY_AFTER:
            raise StateUnavailable(f"the state database {self.shown} is unreachable (retrying)")
        self._conninfo, secrets = self._resolve()
        self._secrets = tuple(s for s in secrets if s)
        try:
            conn = psycopg.connect(
                self._conninfo,
                autocommit=True,
                connect_timeout=CONNECT_SECONDS,
                application_name="hermes",
            )
        except psycopg.Error as exc:
            self._failed_at = time.monotonic()
            raise self.unavailable(exc, "is unreachable") from None
        self._failed_at = None
        try:
            self._ensure_schema(conn)
        except BaseException:
            conn.close()
            raise
        if track:
            with self._all_lock:
                self._all.append(conn)
        return conn

    def _ensure_schema(self, conn: Connection) -> None:
        import psycopg

        if self._schema_ready:
            return
        with self._schema_lock:
            if self._schema_ready:
                return
            try:
                ensure_schema(conn)
            except psycopg.Error as exc:
                raise self.unavailable(exc, "cannot be prepared") from None
            self._schema_ready = True

    def _connection(self) -> Connection:
        conn: Connection | None = getattr(self._local, "conn", None)
        if conn is not None and conn.closed:
            conn = None
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
        return conn

    def _drop(self) -> None:
        conn: Connection | None = getattr(self._local, "conn", None)
        self._local.conn = None
        if conn is not None:
            with self._all_lock:
                if conn in self._all:
                    self._all.remove(conn)
            with suppress(Exception):  # a broken connection may fail to close
                conn.close()

    def run(self, work: Callable[[Connection], T], *, write: bool = False) -> T:
        """``work(connection)`` (in one transaction when *write*); a connection found broken
        is replaced and *work* run once more.  Every database error is :class:`StateUnavailable`."""
        import psycopg

        for attempt in (1, 2):
            conn = self._connection()
            fresh = getattr(self._local, "used", None) is not conn
            try:
                if write:
                    with conn.transaction():
                        result = work(conn)
                else:
                    result = work(conn)
                self._local.used = conn
                return result
            except psycopg.OperationalError as exc:
                broken = conn.broken or conn.closed
                self._drop()
                if broken and attempt == 1 and not fresh:
                    continue
                if broken:
                    self._failed_at = time.monotonic()
                raise self.unavailable(exc) from None
            except psycopg.Error as exc:
                if conn.broken:
                    self._drop()
                raise self.unavailable(exc) from None
        raise AssertionError("unreachable")

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One transaction on this thread's connection (not retried: see :meth:`run`)."""
        import psycopg

        conn = self._connection()
        try:
            with conn.transaction():
                yield conn
            self._local.used = conn
        except psycopg.Error as exc:
            if conn.broken:
                self._drop()
            raise self.unavailable(exc) from None

    def reachable(self) -> bool:
        """Whether one query succeeds now."""
        try:
            self.run(lambda conn: conn.execute("SELECT 1").fetchone())
        except StateUnavailable:
            return False
        return True

    def close(self) -> None:
        """Close every connection of every thread."""
        with self._all_lock:
            conns, self._all = self._all, []
        for conn in conns:
            with suppress(Exception):  # closing what may already be broken
                conn.close()
        self._local = threading.local()


def _secrets_of(url: str) -> tuple[str, ...]:
    try:
        password = urlsplit(url).password
    except ValueError:
        password = None
    return (password, unquote(password)) if password else ()


def database_for(
    state: StateConfig,
    *,
    env: Mapping[str, str] | None = None,
    dotenv: Mapping[str, str] | None = None,
) -> Database:
    """The process's :class:`Database` for *state* (one per ``state.url`` as written); its
    ``${VAR}`` are expanded from *env* (default: the environment) and *dotenv* (default:
    ``$HERMES_HOME/.env``) each time a connection is opened."""

    def resolve() -> tuple[str, tuple[str, ...]]:
        environ = os.environ if env is None else env
        values = load_dotenv() if dotenv is None else dotenv
        try:
            url = expand(state.url, env=environ, dotenv=values)
        except ValueError as exc:
            raise StateUnavailable(f"state.url ({state.shown()}): {exc}") from None
        return url, _secrets_of(url)

    key = f"config:{state.url}:{id(env)}:{id(dotenv)}" if env or dotenv else state.url
    with _databases_lock:
        found = _databases.get(key)
        if found is None:
            found = Database(resolve, state.shown())
            _databases[key] = found
        return found


def remember_state(home: str | os.PathLike[str], state: StateConfig | None) -> None:
    """Note the ``state:`` block the config of *home* holds (a config was just read), for the
    parts that are given a home and not the config (OAuth token storage)."""
    with _databases_lock:
        _homes[os.fspath(home)] = state


def state_database_of(home: str | os.PathLike[str]) -> Database | None:
    """The state database the last config read for *home* named (``None``: none, or no config
    read for it in this process: the files under *home*)."""
    with _databases_lock:
        state = _homes.get(os.fspath(home))
    return database_for(state) if state is not None else None


def database_at(url: str) -> Database:
    """A :class:`Database` for a URL given as it is (``hermes state migrate --to URL``)."""
    with _databases_lock:
        found = _databases.get("given:" + url)
        if found is None:
            found = Database(lambda: (url, _secrets_of(url)), shown_url(url))
            _databases["given:" + url] = found
        return found
