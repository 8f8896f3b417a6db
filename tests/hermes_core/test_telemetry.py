"""OpenTelemetry by the MCP semantic conventions: the host's client span and duration metric
(the SDK's in-memory exporter and reader, real servers), the trace context reaching the
server in ``params._meta``, and ``hermes mcp call`` exporting to a real OTLP/HTTP receiver on
loopback when the ``OTEL_*`` variables say so."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from hermes_core.host.calls.intercept.step import ActiveInterceptor
from hermes_core.host.calls.telemetry import DURATION_BUCKETS
from hermes_core.host.host import HostServer, MCPHost
from hermes_core.host.setup.otel import telemetry_wanted
from hermes_core.plugins.interceptors import Decision, InterceptedCall
from servers.net import PORT, http_server
from support.cli import run_hermes

pytestmark = [pytest.mark.process]

SERVERS = Path(__file__).parents[1] / "servers"
NOTES = HostServer("notes", command=sys.executable, args=[str(SERVERS / "intercept_server.py")])


class Telemetry:
    """The process's SDK providers (set once: OpenTelemetry allows one of each)."""

    spans = InMemorySpanExporter()
    reader = InMemoryMetricReader()
    _set = False

    @classmethod
    def install(cls) -> None:
        if not cls._set:
            provider = TracerProvider()
            provider.add_span_processor(SimpleSpanProcessor(cls.spans))
            trace.set_tracer_provider(provider)
            metrics.set_meter_provider(MeterProvider(metric_readers=[cls.reader]))
            cls._set = True
        cls.spans.clear()


@pytest.fixture
def telemetry() -> Iterator[type[Telemetry]]:
    Telemetry.install()
    yield Telemetry


def run_calls(server: HostServer, *calls: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    async def scenario() -> list[dict[str, Any]]:
        async with MCPHost([server], telemetry=True, interceptors={}) as host:
            assert "telemetry" in host.pipeline.steps
            return [await host.call_tool(name, args) for name, args in calls]

    return asyncio.run(scenario())


def named(spans: tuple[ReadableSpan, ...], name: str) -> ReadableSpan:
    (span,) = [s for s in spans if s.name == name]
    return span


def test_a_tool_call_is_a_client_span_by_the_conventions_and_nests_the_sdks(
    telemetry: type[Telemetry],
) -> None:
    (seen,) = run_calls(NOTES, ("mcp_notes_meta_seen", {}))
    spans = telemetry.spans.get_finished_spans()
    ours = named(spans, "tools/call meta_seen")
    assert ours.kind is trace.SpanKind.CLIENT
    attributes = dict(ours.attributes or {})
    assert attributes["mcp.method.name"] == "tools/call"
    assert attributes["gen_ai.tool.name"] == "meta_seen"
    assert attributes["gen_ai.operation.name"] == "execute_tool"
    assert attributes["network.transport"] == "pipe"
    assert str(attributes["mcp.protocol.version"]).startswith("20")
    assert "error.type" not in attributes
    sdk = named(spans, "MCP send tools/call meta_seen")
    assert sdk.parent is not None and sdk.parent.span_id == ours.context.span_id
    # the trace context the server got in params._meta: our trace, the SDK's span as parent
    meta = json.loads(seen["content"][0]["text"])
    trace_id, parent = meta["traceparent"].split("-")[1:3]
    assert int(trace_id, 16) == ours.context.trace_id
    assert int(parent, 16) == sdk.context.span_id


def test_errors_set_error_type_and_the_duration_metric_is_recorded(
    telemetry: type[Telemetry],
) -> None:
    run_calls(NOTES, ("mcp_notes_read_note", {"name": "a"}), ("mcp_notes_big", {"chars": "x"}))
    spans = telemetry.spans.get_finished_spans()
    ok = named(spans, "tools/call read_note")
    assert ok.status.status_code is trace.StatusCode.UNSET
    failed = named(spans, "tools/call big")
    assert dict(failed.attributes or {})["error.type"] == "tool_error"  # isError: bad arguments
    assert failed.status.status_code is trace.StatusCode.ERROR
    data = telemetry.reader.get_metrics_data()
    assert data is not None
    points = [
        point
        for resource in data.resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
        if metric.name == "mcp.client.operation.duration"
        for point in metric.data.data_points
    ]
    by_tool = {dict(p.attributes)["gen_ai.tool.name"]: p for p in points}
    assert by_tool["read_note"].count >= 1 and by_tool["read_note"].sum > 0
    assert dict(by_tool["big"].attributes)["error.type"] == "tool_error"
    assert tuple(by_tool["read_note"].explicit_bounds) == tuple(float(b) for b in DURATION_BUCKETS)


@pytest.mark.network
def test_an_http_server_call_carries_its_session_id_and_address(
    telemetry: type[Telemetry],
) -> None:
    with http_server([sys.executable, str(SERVERS / "headers_server.py"), PORT]) as url:
        server = HostServer("web", url=url, transport="streamable_http")
        (seen,) = run_calls(server, ("mcp_web_headers_seen", {}))
    ours = named(telemetry.spans.get_finished_spans(), "tools/call headers_seen")
    attributes = dict(ours.attributes or {})
    assert attributes["network.transport"] == "tcp"
    assert attributes["server.address"] == "127.0.0.1"
    assert attributes["server.port"] == int(url.split(":")[2].split("/")[0])
    sent = dict(
        line.split(": ", 1) for line in seen["content"][0]["text"].splitlines() if ": " in line
    )
    assert attributes["mcp.session.id"] == sent["mcp-session-id"]


def test_without_otel_variables_there_is_no_telemetry_step() -> None:
    assert not telemetry_wanted({})
    assert not telemetry_wanted({"OTEL_TRACES_EXPORTER": "none", "OTEL_SERVICE_NAME": "x"})
    assert not telemetry_wanted(
        {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}
    )
    assert telemetry_wanted({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"})
    assert telemetry_wanted({"OTEL_TRACES_EXPORTER": "console"})
    assert "telemetry" not in MCPHost([], telemetry=False).pipeline.steps


class _Receiver(BaseHTTPRequestHandler):
    """An OTLP/HTTP collector: keeps each POST's path and body."""

    received: ClassVar[list[tuple[str, bytes]]] = []
    arrived: ClassVar[threading.Event] = threading.Event()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        type(self).received.append((self.path, body))
        type(self).arrived.set()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.network
@pytest.mark.cli
def test_cli_exports_its_spans_to_an_otlp_http_receiver(tmp_path: Path) -> None:
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
        ExportMetricsServiceRequest,
    )
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    collector = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    thread = threading.Thread(target=collector.serve_forever, daemon=True)
    thread.start()
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        "mcp_servers:\n  notes:\n"
        f"    command: {json.dumps(sys.executable)}\n"
        f"    args: [{json.dumps(str(SERVERS / 'intercept_server.py'))}]\n"
    )
    try:
        done = run_hermes(
            "mcp",
            "call",
            "--json",
            "mcp_notes_read_note",
            "--args",
            '{"name": "a"}',
            env={
                "HERMES_HOME": str(home),
                "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{collector.server_port}",
                "OTEL_SERVICE_NAME": "hermes-under-test",
            },
        )
        assert done.returncode == 0, done.stderr
        assert _Receiver.arrived.wait(30)
    finally:
        collector.shutdown()
        collector.server_close()
    spans = {}
    services = set()
    metric_names = set()
    for path, body in _Receiver.received:
        if path == "/v1/traces":
            request = ExportTraceServiceRequest.FromString(body)
            for resource in request.resource_spans:
                for attribute in resource.resource.attributes:
                    if attribute.key == "service.name":
                        services.add(attribute.value.string_value)
                for scope in resource.scope_spans:
                    for span in scope.spans:
                        spans[span.name] = {a.key: a.value for a in span.attributes}
        elif path == "/v1/metrics":
            metrics_request = ExportMetricsServiceRequest.FromString(body)
            for resource_metrics in metrics_request.resource_metrics:
                for scope_metrics in resource_metrics.scope_metrics:
                    metric_names.update(m.name for m in scope_metrics.metrics)
    assert services == {"hermes-under-test"}
    ours = spans["tools/call read_note"]
    assert ours["mcp.method.name"].string_value == "tools/call"
    assert ours["gen_ai.tool.name"].string_value == "read_note"
    assert "MCP send tools/call read_note" in spans  # the SDK's span, in the same export
    assert "mcp.client.operation.duration" in metric_names


def test_interceptors_run_inside_the_calls_span_and_a_refused_call_has_one(
    telemetry: type[Telemetry],
) -> None:
    tracer = trace.get_tracer("acme-guard")

    def guard(call: InterceptedCall) -> Decision | None:
        assert call.span is not None
        call.span.set_attribute("acme.checked", True)
        with tracer.start_as_current_span("acme.guard"):
            if call.tool == "delete_note":
                return Decision.refuse("deletes are done by hand")
        return None

    table = {"acme_guard": ActiveInterceptor("acme_guard", before=guard)}
    server = dataclasses.replace(NOTES, interceptors=("acme_guard",))

    async def scenario() -> list[dict[str, Any]]:
        async with MCPHost([server], telemetry=True, interceptors=table) as host:
            assert host.pipeline.steps[0] == "call_span"
            return [
                await host.call_tool("mcp_notes_read_note", {"name": "a"}),
                await host.call_tool("mcp_notes_delete_note", {"name": "a"}),
            ]

    read, refused = asyncio.run(scenario())
    assert "error" not in read and "refused" in refused["error"]
    spans = telemetry.spans.get_finished_spans()
    call = named(spans, "execute_tool mcp_notes_read_note")
    assert call.kind is trace.SpanKind.INTERNAL
    assert dict(call.attributes or {})["acme.checked"] is True
    guards = [s for s in spans if s.name == "acme.guard"]
    assert len(guards) == 2
    assert guards[0].parent is not None and guards[0].parent.span_id == call.context.span_id
    request = named(spans, "tools/call read_note")  # the MCP request's span, inside the call's
    assert request.parent is not None and request.parent.span_id == call.context.span_id
    denied = named(spans, "execute_tool mcp_notes_delete_note")
    assert dict(denied.attributes or {})["error.type"] == refused["state"]
    assert denied.status.status_code is trace.StatusCode.ERROR
    assert "deletes are done by hand" in (denied.status.description or "")
    assert guards[1].parent is not None and guards[1].parent.span_id == denied.context.span_id
    assert not [s for s in spans if s.name == "tools/call delete_note"]  # no request was made
