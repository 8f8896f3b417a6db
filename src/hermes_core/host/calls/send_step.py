"""The last step of a tool call: ``tools/call`` on the server's connection.

The usual call (no progress asked for, not a task, a tool without an output schema, telemetry
off) on a stdio server of a handshake-era revision goes on the connection's pipe directly
(:mod:`hermes_core.host.transports.raw_calls`); any other call through the SDK's session.  Both
take the same turn, deadline and error mapping (``connection.request``), and their results are
rendered alike (:func:`~hermes_core.host.calls.render.render_raw_result` validates what the
pipe brought with the SDK's own model unless it is the usual text result).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from hermes_core._sdk_compat import tracing_on
from hermes_core.host.calls.call import Proceed, Result, ToolCall
from hermes_core.host.calls.failures import call_failed
from hermes_core.host.calls.render import render_raw_result, render_result
from hermes_core.host.connection import ServerConnection
from hermes_core.host.connection.session_requests import (
    PipeCallRequest,
    SessionRequest,
    TaskCallRequest,
    ToolCallRequest,
)
from hermes_core.host.server_notifications import progress_forwarder
from hermes_core.host.tasks.support import sent_as_task
from hermes_core.host.tools.offer_gates import ServerGate
from hermes_core.host.transports.raw_calls import NotPlain

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["SendStep"]


class SendStep:
    """``tools/call`` on the server's connection: the result rendered (sanitised), or the
    failure as an error result; the breaker outcome either way.  The last step."""

    name = "send"

    def __init__(self, connections: Mapping[str, ServerConnection], gate: ServerGate) -> None:
        self._connections = connections
        self._gate = gate

    def applies(self, entry: object, server: object) -> bool:
        return True

    async def __call__(self, call: ToolCall, proceed: Proceed) -> Result:
        entry = call.entry
        on_progress = call.on_progress
        connection = self._connections[entry.server]
        as_task = bool(entry.execution) and sent_as_task(
            entry.execution, connection.protocol, call.as_task
        )
        raw = connection.raw_calls
        what = f"the call to {entry.tool!r}"
        try:
            if (
                raw is not None
                and on_progress is None
                and not as_task
                and not entry.output_schema
                and not tracing_on()
            ):
                plain = PipeCallRequest(raw, entry.tool, call.arguments)
                try:
                    data = await connection.request(what, plain, call.server.timeout)
                except NotPlain:
                    pass  # arguments only the SDK's serialiser writes: sent its way below
                else:
                    result = render_raw_result(data)
                    call.outcome = "application" if result.get("isError") else "ok"
                    return result
            forward = None if on_progress is None else progress_forwarder(entry.server, on_progress)
            request: SessionRequest[BaseModel] = (
                TaskCallRequest(entry.tool, call.arguments, forward, connection.task_follower)
                if as_task
                else ToolCallRequest(entry.tool, call.arguments, forward)
            )
            answer = await connection.request(what, request, call.server.timeout)
            result = render_result(answer)
        except Exception as exc:  # noqa: BLE001 - every failure becomes a result
            result, call.outcome = call_failed(entry, exc, self._gate)
            return result
        call.outcome = "application" if result.get("isError") else "ok"
        return result
