"""The host's writes and reads of a connection's state, all in hermes_core.host.connection_state."""

from __future__ import annotations

from typing import Any, cast

from hermes_core.host.connection import ServerConnection
from hermes_core.host.connection_state import (
    counts_as_connected,
    is_connected,
    is_connecting,
    is_lazy,
    mark_failed,
    mark_lazy,
)


class Status:
    def __init__(self, state: str) -> None:
        self.state = state
        self.last_error: str | None = "before"


def connection(state: str) -> ServerConnection:
    return cast("ServerConnection", type("Connection", (), {"status": Status(state)})())


def test_marking_failed_keeps_the_last_error_unless_given_one() -> None:
    failing = connection("connected")
    mark_failed(failing, "listing tools failed: timed out")
    assert (failing.status.state, failing.status.last_error) == (
        "failed",
        "listing tools failed: timed out",
    )
    closed = connection("closed")
    mark_failed(closed)
    assert (closed.status.state, closed.status.last_error) == ("failed", "before")


def test_a_lazy_connection_counts_as_connected_until_it_fails() -> None:
    lazy = connection("not started")
    mark_lazy(lazy)
    assert is_lazy(lazy) and counts_as_connected(lazy) and not is_connected(lazy)
    mark_failed(lazy, "spawn failed")
    assert not counts_as_connected(lazy) and not is_lazy(lazy)


def test_which_states_count_as_connected() -> None:
    counted: dict[str, Any] = {
        state: counts_as_connected(connection(state))
        for state in ("connected", "disconnected", "recycled", "lazy", "connecting", "failed")
    }
    assert counted == {
        "connected": True,
        "disconnected": True,
        "recycled": True,
        "lazy": True,
        "connecting": False,
        "failed": False,
    }
    assert counts_as_connected(None) is False
    assert is_connecting(connection("connecting")) and is_connected(connection("connected"))
