"""A connection's state machine without a server: the states, each transition, and the host's
``on_change`` firing once per change of state (never for the same state again)."""

from __future__ import annotations

import asyncio
import json

import pytest

from hermes_core.host.connection import ConnectionState, ConnectionStatus, ServerConnection
from hermes_core.host.connection.diagnostics import Cause, ConnectFailure
from hermes_core.host.connection.keepalive import Keepalive
from hermes_core.host.connection.list_changed import ToolsChanged
from hermes_core.host.connection.recovery import recycle_due
from hermes_core.host.host import HostServer
from hermes_core.host.supervisor import TaskSupervisor


def watched() -> tuple[ConnectionStatus, list[ConnectionState]]:
    status = ConnectionStatus()
    seen: list[ConnectionState] = []
    status.on_change = lambda: seen.append(status.state)
    return status, seen


def test_the_states_equal_the_strings_the_host_and_the_cli_compare_with() -> None:
    names = {"disconnected", "connecting", "connected", "degraded", "recycled", "failed"}
    assert names | {"lazy", "closed"} == {state.value for state in ConnectionState}
    assert ConnectionState.CONNECTED == "connected"
    assert f"{ConnectionState.LAZY}" == "lazy"
    assert json.dumps({"connection": ConnectionState.FAILED}) == '{"connection": "failed"}'


def test_a_new_status_is_disconnected_and_quiet() -> None:
    status, seen = watched()
    assert status.state is ConnectionState.DISCONNECTED
    assert (status.last_error, status.connects, status.recycles, status.failure) == (
        None,
        0,
        0,
        None,
    )
    assert seen == []


def test_an_attempt_that_succeeds_forgets_the_last_failure() -> None:
    status, seen = watched()
    failure = ConnectFailure("HTTP 401 from x", Cause.AUTH)
    status.attempting()
    status.needs_login = True
    status.failed("HTTP 401 from x", failure)
    assert status.state == "failed" and status.failure is failure
    status.attempting()
    status.connected(12.5)
    assert seen == ["connecting", "failed", "connecting", "connected"]
    assert status.last_error is None and status.failure is None and not status.needs_login
    assert (status.connected_at, status.connects) == (12.5, 1)


def test_on_change_fires_only_when_the_state_changes() -> None:
    status, seen = watched()
    status.failed("one")
    status.failed("two")  # the same state: a new reason, no second call
    status.failed(None)  # the host's verdict after closing: the reason stands
    assert seen == [ConnectionState.FAILED]
    assert status.last_error == "two"
    status.last_error = "three"  # an error alone never fires
    assert seen == [ConnectionState.FAILED]


def test_a_failure_without_a_record_keeps_the_attempts_record() -> None:
    status, _ = watched()
    failure = ConnectFailure("no answer", Cause.OTHER)
    status.failed("no answer", failure)
    status.failed("its listing failed")  # the host's verdict after a listing
    assert status.failure is failure and status.last_error == "its listing failed"


def test_the_state_changes_only_through_the_transitions() -> None:
    status, seen = watched()
    status.lazy()
    assert status.state is ConnectionState.LAZY and seen == [ConnectionState.LAZY]
    with pytest.raises(AttributeError):
        status.state = ConnectionState.CONNECTED  # type: ignore[misc]
    assert status.state is ConnectionState.LAZY


def test_last_error_is_cleaned_for_terminals() -> None:
    status, _ = watched()
    status.last_error = "bad\x1b[31mred\x07"
    assert status.last_error is not None and "\x1b" not in status.last_error
    status.failed("gone\x1b[2J")
    assert status.last_error is not None and "\x1b" not in status.last_error
    status.last_error = None
    assert status.last_error is None


def test_a_session_that_ends_is_disconnected_or_degraded() -> None:
    status, seen = watched()
    assert status.session_ended(degraded=False) is False  # not connected: nothing changes
    status.connected(1.0)
    assert status.session_ended(degraded=True) is True
    assert status.state is ConnectionState.DEGRADED
    status.connected(2.0)
    assert status.session_ended(degraded=False) is True
    assert seen == ["connected", "degraded", "connected", "disconnected"]
    assert status.connects == 2


def test_recycled_lazy_and_closed() -> None:
    status, seen = watched()
    status.connected(1.0)
    status.recycled()
    status.recycled()
    assert status.recycles == 2 and seen == ["connected", "recycled"]
    status.lazy()
    status.closed()
    assert seen[-2:] == ["lazy", "closed"]


def test_the_connection_marks_what_the_host_decides() -> None:
    connection = ServerConnection("files", HostServer("files", command="true"))
    seen: list[str] = []
    connection.status.on_change = lambda: seen.append(connection.status.state)
    connection.mark_lazy()
    assert connection.status.state == "lazy"
    connection.mark_failed("MCP server 'files': its listing failed")
    assert connection.status.state == "failed"
    assert connection.status.last_error == "MCP server 'files': its listing failed"
    assert seen == ["lazy", "failed"]
    connection.mark_failed()  # again, after a close: the reason stands
    assert connection.status.last_error == "MCP server 'files': its listing failed"
    assert not connection.connected and not connection.closed and not connection.reconnecting


def test_keepalive_waits_for_a_quiet_interval() -> None:
    keepalive = Keepalive(10.0)
    assert keepalive.wait(last_used=0.0, connected_at=None, inflight=1) == 10.0
    assert keepalive.due(last_used=0.0, connected_at=None, inflight=0)  # long quiet
    assert not keepalive.due(last_used=0.0, connected_at=None, inflight=1)  # a call runs
    off = Keepalive(0.0)
    assert off.wait(0.0, None, 0) is None and not off.due(0.0, None, 0)
    assert off.status() is None
    keepalive.probe_failed("no answer within 30 s")
    assert keepalive.failed and keepalive.stats.failures == 1
    keepalive.new_session()
    assert not keepalive.failed and keepalive.status() == {
        "interval": 10.0,
        "probe": "ping",
        "probes": 0,
        "failures": 1,
        "last_failure": "no answer within 30 s",
    }


def test_recycling_is_due_when_idle_or_old() -> None:
    assert recycle_due(100.0, last_used=40.0, connected_at=0.0, idle_seconds=60, lifetime_seconds=0)
    assert not recycle_due(100.0, 41.0, 0.0, idle_seconds=60, lifetime_seconds=0)
    assert recycle_due(100.0, 99.0, 0.0, idle_seconds=0, lifetime_seconds=100)
    assert not recycle_due(100.0, 99.0, None, idle_seconds=0, lifetime_seconds=100)
    assert not recycle_due(100.0, 0.0, 0.0, idle_seconds=0, lifetime_seconds=0)


def test_a_storm_of_changes_is_one_relist_and_one_more() -> None:
    async def scenario() -> int:
        relists = 0
        gate = asyncio.Event()

        async def relist() -> None:
            nonlocal relists
            relists += 1
            await gate.wait()

        tasks = TaskSupervisor("test")
        changed = ToolsChanged(relist, tasks)
        for _ in range(50):
            changed.notice()
        await asyncio.sleep(0)  # the first re-list starts; the rest came meanwhile
        for _ in range(50):
            changed.notice()
        gate.set()
        assert changed.worker is not None
        await changed.worker
        await tasks.close()
        return relists

    assert asyncio.run(scenario()) == 2
