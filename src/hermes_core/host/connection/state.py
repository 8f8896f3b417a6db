"""A connection's state and the status record ``hermes mcp status`` shows for it.

:class:`ConnectionState` names every state a connection is in; its members equal their
strings, so a comparison with ``"connected"`` keeps working.  :class:`ConnectionStatus` moves
between them only through its methods (:attr:`~ConnectionStatus.state` is read-only), and
each change of state calls :attr:`~ConnectionStatus.on_change` (the host clears its gate cache).
"""

from __future__ import annotations

import enum
from collections.abc import Callable

from hermes_core.host.connection.diagnostics import ConnectFailure
from hermes_core.sanitize import clean_text

__all__ = ["ConnectionState", "ConnectionStatus"]


class ConnectionState(enum.StrEnum):
    """Where one server's connection stands."""

    DISCONNECTED = "disconnected"
    """Not started yet, or its session ended (the next call starts it again)."""
    CONNECTING = "connecting"
    """An attempt is under way."""
    CONNECTED = "connected"
    """A live session."""
    DEGRADED = "degraded"
    """The session was ended because a keepalive probe failed; a reconnect is under way."""
    RECYCLED = "recycled"
    """A stdio server stopped for being idle or old; the next call restarts it."""
    FAILED = "failed"
    """The last attempt failed (or the host found the server unusable)."""
    LAZY = "lazy"
    """Registered from its cached listing; its first call starts it."""
    CLOSED = "closed"
    """Closed for good (removed, reloaded or the host closed)."""


class ConnectionStatus:
    """What ``hermes mcp status`` shows for one server."""

    __slots__ = (
        "_last_error",
        "_state",
        "attempt_seconds",
        "connected_at",
        "connects",
        "failure",
        "needs_login",
        "next_retry_in",
        "on_change",
        "recycles",
    )

    def __init__(self) -> None:
        self._state = ConnectionState.DISCONNECTED
        self._last_error: str | None = None
        self.connected_at: float | None = None
        self.connects = 0
        self.recycles = 0
        self.next_retry_in: float | None = None
        self.attempt_seconds: float | None = None
        """How long the last connection attempt took (successful or not)."""
        self.needs_login = False
        """The last failure was the server refusing our authorization (``last_error`` says
        what to do, e.g. run ``hermes mcp login``)."""
        self.failure: ConnectFailure | None = None
        """The last failed connection attempt, as a record (``last_error`` is its sentence)."""
        self.on_change: Callable[[], None] | None = None
        """Called whenever :attr:`state` changes (the host clears its gate cache)."""

    def __repr__(self) -> str:
        return (
            f"ConnectionStatus(state={self._state.value!r}, last_error={self._last_error!r}, "
            f"connects={self.connects}, recycles={self.recycles})"
        )

    @property
    def state(self) -> ConnectionState:
        return self._state

    @property
    def last_error(self) -> str | None:
        """The last thing that went wrong, as shown on terminals (cleaned: it can quote the
        server)."""
        return self._last_error

    @last_error.setter
    def last_error(self, value: str | None) -> None:
        self._last_error = clean_text(value) if isinstance(value, str) else None

    def _move(self, state: ConnectionState) -> None:
        changed = state != self._state
        self._state = state
        if changed and self.on_change is not None:
            self.on_change()

    # -- transitions -----------------------------------------------------------------
    def attempting(self) -> None:
        """A connection attempt starts."""
        self._move(ConnectionState.CONNECTING)

    def connected(self, now: float) -> None:
        """The attempt succeeded at *now* (monotonic): the last failure is forgotten."""
        self._move(ConnectionState.CONNECTED)
        self.last_error = None
        self.failure = None
        self.needs_login = False
        self.connected_at = now
        self.connects += 1

    def failed(self, detail: str | None, failure: ConnectFailure | None = None) -> None:
        """An attempt failed, or the host found the server unusable: *detail* says why
        (``None``: the reason already given stands)."""
        self._move(ConnectionState.FAILED)
        if detail is not None:
            self.last_error = detail
        if failure is not None:
            self.failure = failure

    def session_ended(self, *, degraded: bool) -> bool:
        """A live session ended: ``degraded`` when a keepalive probe ended it.  False (and
        nothing changes) when the connection was not connected."""
        if self._state != ConnectionState.CONNECTED:
            return False
        self._move(ConnectionState.DEGRADED if degraded else ConnectionState.DISCONNECTED)
        return True

    def recycled(self) -> None:
        """A stdio server was stopped for being idle or old."""
        self._move(ConnectionState.RECYCLED)
        self.recycles += 1

    def lazy(self) -> None:
        """Registered from its cache, not started."""
        self._move(ConnectionState.LAZY)

    def closed(self) -> None:
        """Closed for good."""
        self._move(ConnectionState.CLOSED)
