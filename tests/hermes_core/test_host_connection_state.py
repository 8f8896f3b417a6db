"""The host's writes and reads of a connection's state, all in
hermes_core.host.connection.state_checks (on a real, never started connection)."""

from __future__ import annotations

from hermes_core.host.connection import ConnectionState, ServerConnection
from hermes_core.host.connection.state_checks import (
    counts_as_connected,
    is_connected,
    is_connecting,
    is_lazy,
    mark_failed,
    mark_lazy,
)
from hermes_core.host.server_spec import HostServer


def connection() -> ServerConnection:
    return ServerConnection("files", HostServer("files", command="true"))


def test_marking_failed_keeps_the_last_error_unless_given_one() -> None:
    failing = connection()
    mark_failed(failing, "listing tools failed: timed out")
    assert failing.status.state is ConnectionState.FAILED
    assert failing.status.last_error == "listing tools failed: timed out"
    failing.status.closed()
    mark_failed(failing)
    assert failing.status.state is ConnectionState.FAILED
    assert failing.status.last_error == "listing tools failed: timed out"


def test_a_lazy_connection_counts_as_connected_until_it_fails() -> None:
    lazy = connection()
    mark_lazy(lazy)
    assert is_lazy(lazy) and counts_as_connected(lazy) and not is_connected(lazy)
    mark_failed(lazy, "spawn failed")
    assert not counts_as_connected(lazy) and not is_lazy(lazy)


def ended(one: ServerConnection, *, degraded: bool) -> None:
    one.status.connected(1.0)  # only a live session can end
    assert one.status.session_ended(degraded=degraded)


def test_which_states_count_as_connected() -> None:
    moves = {
        ConnectionState.CONNECTED: lambda c: c.status.connected(1.0),
        ConnectionState.DISCONNECTED: lambda c: ended(c, degraded=False),
        ConnectionState.DEGRADED: lambda c: ended(c, degraded=True),
        ConnectionState.RECYCLED: lambda c: c.status.recycled(),
        ConnectionState.LAZY: lambda c: c.status.lazy(),
        ConnectionState.CONNECTING: lambda c: c.status.attempting(),
        ConnectionState.FAILED: lambda c: c.status.failed("no"),
        ConnectionState.CLOSED: lambda c: c.status.closed(),
    }
    counted = {}
    for state, move in moves.items():
        one = connection()
        move(one)
        assert one.status.state is state
        counted[state] = counts_as_connected(one)
    assert {s for s, yes in counted.items() if yes} == {
        ConnectionState.CONNECTED,
        ConnectionState.DISCONNECTED,
        ConnectionState.RECYCLED,
        ConnectionState.LAZY,
    }
    assert not counts_as_connected(None)


def test_connecting_and_connected_are_told_apart() -> None:
    one = connection()
    one.status.attempting()
    assert is_connecting(one) and not is_connected(one)
    one.status.connected(2.0)
    assert is_connected(one) and not is_connecting(one)
