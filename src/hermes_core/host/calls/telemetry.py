"""OpenTelemetry by the MCP semantic conventions (gen-ai ``mcp.md``): the ``telemetry`` step.

A client span per MCP request a tool call makes (``tools/call <tool>``; a utility tool's
``resources/read``, ``prompts/get`` ...), kind ``CLIENT``, with ``mcp.method.name``,
``gen_ai.tool.name`` (``gen_ai.prompt.name``), ``gen_ai.operation.name: execute_tool``,
``mcp.protocol.version``, ``mcp.session.id`` (when the transport has one),
``network.transport``, ``server.address``/``server.port`` and, when it fails, ``error.type``
(``tool_error`` for an ``isError`` result) with the status ``ERROR``; and the histogram
``mcp.client.operation.duration`` (seconds, the advised buckets).  The SDK's own span of the
request (``MCP send tools/call ...``) nests under it, and the SDK puts the W3C trace context
in the request's ``params._meta``, so the server's span joins the trace.

And the span of a whole tool call, the ``call_span`` step (:class:`CallSpanStep`): a call
refused before it makes a request (by the policy, a decision, an interceptor, a gate) made no
``CLIENT`` span at all, and an interceptor's own spans would start outside any of Hermes' spans
(a trace of their own).  This step runs first and opens an ``INTERNAL`` span
``execute_tool <registered name>`` around everything else: the policy, the interceptors, the
approval, the request (whose ``CLIENT`` span nests under it).  It is the current span while
interceptors run, so a span a plugin starts is its child, and it is handed to them as
:attr:`~hermes_core.plugins.interceptors.InterceptedCall.span` to add attributes.  A refused or
failed call ends it with ``error.type`` (the result's ``state``, e.g. ``refused``) and the
refusal as its status message.

``opentelemetry`` is imported only when :class:`TelemetryStep` or :class:`CallSpanStep` is
made; the host inserts them only when telemetry is on
(:func:`hermes_core.host.setup.otel.telemetry_wanted`), so a host without it pays nothing per
call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from urllib.parse import urlsplit

from hermes_core.host.calls.call import Proceed, Result, ToolCall
from hermes_core.host.server_spec import HostServer
from hermes_core.host.tools.registry import ToolEntry

#: A span's (and a measurement's) attributes, as this module sets them.
Attributes = dict[str, str | int]

__all__ = [
    "DURATION_BUCKETS",
    "INSTRUMENTATION",
    "CallSpanStep",
    "TelemetryStep",
    "error_type",
    "utility_method",
]

#: The bucket boundaries the conventions advise for ``mcp.client.operation.duration``.
DURATION_BUCKETS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)
INSTRUMENTATION = "hermes-core"

_UTILITY_METHODS = {
    "list_resources": "resources/list",
    "read_resource": "resources/read",
    "list_resource_templates": "resources/templates/list",
    "list_prompts": "prompts/list",
    "get_prompt": "prompts/get",
}


def utility_method(tool: str) -> str:
    """The MCP method a utility tool makes (``read_resource`` -> ``resources/read``)."""
    return _UTILITY_METHODS.get(tool, tool)


def error_type(result: Mapping[str, object]) -> str | None:
    """The ``error.type`` of a call's *result*: its ``state`` (``refused``, ``timeout`` …),
    ``tool_error`` for an ``isError`` result, ``None`` when it succeeded."""
    if "error" not in result:
        return "tool_error" if result.get("isError") is True else None
    state = result.get("state")
    if isinstance(state, str) and state:
        return state
    return "_OTHER"


class TelemetryStep:
    """Opens the span of each MCP request and records its duration (just before the request:
    after the gate, so a call refused earlier makes no request and no span)."""

    name = "telemetry"

    def __init__(
        self,
        protocol: Callable[[str], str | None],
        session_id: Callable[[str], str | None],
        clock: Callable[[], float] | None = None,
    ) -> None:
        import time

        from opentelemetry import metrics, trace

        self._trace = trace
        self._kind = trace.SpanKind.CLIENT
        self._error = trace.StatusCode.ERROR
        self._tracer = trace.get_tracer(INSTRUMENTATION)
        self._duration = metrics.get_meter(INSTRUMENTATION).create_histogram(
            "mcp.client.operation.duration",
            unit="s",
            description="The duration of the MCP request as observed by the client",
            explicit_bucket_boundaries_advisory=list(DURATION_BUCKETS),
        )
        self._protocol = protocol
        self._session_id = session_id
        self._clock = clock or time.perf_counter
        self._fixed: dict[int, tuple[ToolEntry, HostServer, Attributes]] = {}

    def applies(self, entry: ToolEntry, server: HostServer) -> bool:
        return True

    def _attributes(self, entry: ToolEntry, server: HostServer) -> Attributes:
        """What every request of *entry* on *server* carries (built once per entry)."""
        cached = self._fixed.get(id(entry))
        if cached is not None and cached[0] is entry and cached[1] is server:
            return cached[2]
        method = utility_method(entry.tool) if entry.utility else "tools/call"
        attributes: Attributes = {"mcp.method.name": method}
        if method == "tools/call":
            attributes["gen_ai.tool.name"] = entry.tool
            attributes["gen_ai.operation.name"] = "execute_tool"
        attributes["network.transport"] = "tcp" if server.url else "pipe"
        if server.url:
            parts = urlsplit(server.url)
            if parts.hostname:
                attributes["server.address"] = parts.hostname
                port = parts.port or (443 if parts.scheme == "https" else 80)
                attributes["server.port"] = port
            attributes["network.protocol.name"] = "http"
        if len(self._fixed) > 4096:
            self._fixed = {}
        self._fixed[id(entry)] = (entry, server, attributes)
        return attributes

    def __call__(self, call: ToolCall, proceed: Proceed) -> Awaitable[Result]:
        return self._traced(call, proceed)

    async def _traced(self, call: ToolCall, proceed: Proceed) -> Result:
        entry = call.entry
        fixed = self._attributes(entry, call.server)
        method = str(fixed["mcp.method.name"])
        target = fixed.get("gen_ai.tool.name")
        prompt = call.arguments.get("name")
        if method == "prompts/get" and isinstance(prompt, str):
            target = prompt
        attributes = dict(fixed)
        if method == "prompts/get" and target is not None:
            attributes["gen_ai.prompt.name"] = target
        protocol = self._protocol(entry.server)
        if protocol:
            attributes["mcp.protocol.version"] = protocol
        session = self._session_id(entry.server)
        if session:
            attributes["mcp.session.id"] = session
        name = f"{method} {target}" if target else method
        started = self._clock()
        with self._tracer.start_as_current_span(
            name, kind=self._kind, attributes=attributes, record_exception=True
        ) as span:
            result = await proceed(call)
            error = error_type(result)
            if error is not None:
                span.set_attribute("error.type", error)
                message = result.get("error")
                span.set_status(self._error, message if isinstance(message, str) else None)
        measured = {k: attributes[k] for k in attributes if k != "mcp.session.id"}
        if error is not None:
            measured["error.type"] = error
        self._duration.record(self._clock() - started, measured)
        return result


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
        attributes: Attributes = {
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
