"""One MCP server's connection (:class:`ServerConnection`), split by concern.

``state`` (the states and the status record), ``session_task`` (the task owning the SDK
session), ``requests`` (a call's path: turn, deadline, input rounds), ``task_follow`` (a
task-augmented call to its result), ``failures`` (what a
failure says), ``negotiation`` (the revision, the modern change stream), ``keepalive``,
``recovery`` (reconnects, recycling), ``list_changed`` (re-list coalescing), ``end_watch``
(the transport's end) and ``waits``.
"""

from __future__ import annotations

from hermes_core.host.connection.errors import ServerError
from hermes_core.host.connection.keepalive import KEEPALIVE_TIMEOUT_SECONDS, KeepaliveStats
from hermes_core.host.connection.recovery import RECONNECT_BASE_SECONDS, RECONNECT_CAP_SECONDS
from hermes_core.host.connection.requests import INPUT_REQUIRED_MAX_ROUNDS
from hermes_core.host.connection.server import ConnectionSpec, ServerConnection
from hermes_core.host.connection.state import ConnectionState, ConnectionStatus

__all__ = [
    "INPUT_REQUIRED_MAX_ROUNDS",
    "KEEPALIVE_TIMEOUT_SECONDS",
    "RECONNECT_BASE_SECONDS",
    "RECONNECT_CAP_SECONDS",
    "ConnectionSpec",
    "ConnectionState",
    "ConnectionStatus",
    "KeepaliveStats",
    "ServerConnection",
    "ServerError",
]
