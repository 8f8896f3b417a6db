"""Every place the host reads or writes a connection's state, in one module.

The host decides a few transitions itself (a server that cannot start is ``failed``, a lazy
server registered from its cache is ``lazy``); everything else is the connection's own
business.  The writes are the connection's own transition methods
(:meth:`ServerConnection.mark_failed`, :meth:`~ServerConnection.mark_lazy`); the reads compare
:class:`~hermes_core.host.connection.ConnectionState` members.
"""

from __future__ import annotations

from hermes_core.host.connection import ConnectionState, ServerConnection

__all__ = [
    "counts_as_connected",
    "is_connected",
    "is_connecting",
    "is_lazy",
    "mark_failed",
    "mark_lazy",
]

#: States in which a server's tools count as offered: a server that went away still counts
#: while it can be restarted on the next call, and a lazy one is started by its first call.
_COUNTS_AS_CONNECTED = frozenset(
    {
        ConnectionState.CONNECTED,
        ConnectionState.DISCONNECTED,
        ConnectionState.RECYCLED,
        ConnectionState.LAZY,
    }
)


def mark_failed(connection: ServerConnection, detail: str | None = None) -> None:
    """The host gave up on *connection*: ``failed``, with *detail* as its last error (kept as
    it is when ``None``)."""
    connection.mark_failed(detail)


def mark_lazy(connection: ServerConnection) -> None:
    """*connection*'s tools are registered from its cache; its first call starts it."""
    connection.mark_lazy()


def is_lazy(connection: ServerConnection) -> bool:
    return connection.status.state is ConnectionState.LAZY


def is_connecting(connection: ServerConnection) -> bool:
    return connection.status.state is ConnectionState.CONNECTING


def is_connected(connection: ServerConnection) -> bool:
    """Connected now (not merely counted as connected, see :func:`counts_as_connected`)."""
    return connection.status.state is ConnectionState.CONNECTED


def counts_as_connected(connection: ServerConnection | None) -> bool:
    """Whether the gate may offer the tools of *connection*'s server."""
    return connection is not None and connection.status.state in _COUNTS_AS_CONNECTED
