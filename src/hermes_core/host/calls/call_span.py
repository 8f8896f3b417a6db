"""The span of a whole tool call, decisions and interceptors included: the ``call_span`` step.

:class:`~hermes_core.host.calls.telemetry.TelemetryStep` opens a ``CLIENT`` span per MCP request
a call makes, by the MCP semantic conventions; a call refused before it makes one (by the
policy, a decision, an interceptor, a gate) made no span at all, and an interceptor's own spans
started outside any of Hermes' spans (a trace of their own).  This step runs first and opens an
``INTERNAL`` span ``execute_tool <registered name>`` around everything else: the policy, the
interceptors, the approval, the request (whose ``CLIENT`` span nests under it).  It is the
current span while interceptors run, so a span a plugin starts is its child, and it is handed to
them as :attr:`~hermes_core.plugins.interceptors.InterceptedCall.span` to add attributes.  A
refused or failed call ends it with ``error.type`` (the result's ``state``, e.g. ``refused``)
and the refusal as its status message.

Inserted only when telemetry is on, like the ``telemetry`` step; ``opentelemetry`` is imported
when the step is made.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from hermes_core.host.calls.call import Proceed, Result, ToolCall
from hermes_core.host.calls.telemetry import INSTRUMENTATION, error_type
from hermes_core.host.server_spec import HostServer
from hermes_core.host.tools.registry import ToolEntry

__all__ = ["CallSpanStep"]


class CallSpanStep:
    """Opens the ``execute_tool <name>`` span of each call (see the module docstring)."""

    name = "call_span"

    def __init__(self) -> None:
        from opentelemetry import trace

        self._tracer = trace.get_tracer(INSTRUMENTATION)
        self._kind = trace.SpanKind.INTERNAL
        self._error = trace.StatusCode.ERROR

    def applies(self, entry: ToolEntry, server: HostServer) -> bool:
        return True

    def __call__(self, call: ToolCall, proceed: Proceed) -> Awaitable[Result]:
        return self._spanned(call, proceed)

    async def _spanned(self, call: ToolCall, proceed: Proceed) -> Result:
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": call.name,
            "hermes.server": call.entry.server,
            "hermes.tool": call.entry.tool,
        }
        with self._tracer.start_as_current_span(
            f"execute_tool {call.name}",
            kind=self._kind,
            attributes=attributes,
            record_exception=True,
        ) as span:
            call.span = span
            result = await proceed(call)
            error = error_type(result)
            if error is not None:
                span.set_attribute("error.type", error)
                message = result.get("error")
                span.set_status(self._error, message if isinstance(message, str) else None)
            return result
