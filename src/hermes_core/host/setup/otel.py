"""Turning OpenTelemetry on from the standard ``OTEL_*`` variables (the ``otel`` extra).

Telemetry is on when the environment asks for an exporter:
``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` /
``OTEL_EXPORTER_OTLP_METRICS_ENDPOINT``, or ``OTEL_TRACES_EXPORTER`` /
``OTEL_METRICS_EXPORTER`` set to ``otlp`` or ``console``; ``OTEL_SDK_DISABLED=true`` turns it
off (an embedder with providers of its own passes ``MCPHost(telemetry=True)``).  Hermes then
sets up the SDK's providers once per process (unless one is set up already) with OTLP/HTTP
exporters
(``pip install 'hermes-core[otel]'``), which read the rest of the ``OTEL_*`` variables
themselves (headers, timeouts, ``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``), and
flush at exit.  Without any of it nothing of OpenTelemetry is imported.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping

__all__ = ["configure_telemetry", "telemetry_wanted"]

log = logging.getLogger(__name__)

_ENDPOINTS = (
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
)
_EXPORTERS = ("OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER")
_configured: str | None = None
"""``"ok"`` once set up in this process, else why not (``None``: not tried)."""


def _sdk_provider_present() -> bool:
    trace = sys.modules.get("opentelemetry.trace")
    sdk = sys.modules.get("opentelemetry.sdk.trace")
    if trace is None or sdk is None:
        return False
    return isinstance(trace.get_tracer_provider(), sdk.TracerProvider)


def telemetry_wanted(env: Mapping[str, str]) -> bool:
    """Whether calls should be traced (see the module's docstring); cheap, imports nothing."""
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if any(env.get(name, "").strip() for name in _ENDPOINTS):
        return True
    return any(env.get(name, "").strip().lower() in ("otlp", "console") for name in _EXPORTERS)


def configure_telemetry(env: Mapping[str, str]) -> str | None:
    """Set up the SDK's tracer and meter providers from *env* (once per process); ``None``
    when telemetry is on, else why not (the ``otel`` extra is not installed)."""
    global _configured  # set up once per process
    if _sdk_provider_present():
        return None
    if _configured is not None:
        return None if _configured == "ok" else _configured
    try:
        from opentelemetry import metrics, trace
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import (
            ConsoleMetricExporter,
            MetricReader,
            PeriodicExportingMetricReader,
        )
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import (
            BatchSpanProcessor,
            ConsoleSpanExporter,
            SpanExporter,
        )
    except ImportError:
        _configured = (
            "OpenTelemetry is asked for (OTEL_* variables) but its SDK is not installed: "
            "pip install 'hermes-core[otel]'"
        )
        log.warning("%s", _configured)
        return _configured
    resource = Resource.create({"service.name": env.get("OTEL_SERVICE_NAME") or "hermes"})
    tracer_provider = TracerProvider(resource=resource)
    traces = env.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower() or "otlp"
    span_exporter: SpanExporter | None = None
    if traces == "console":
        span_exporter = ConsoleSpanExporter(out=sys.stderr)
    elif traces == "otlp":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        span_exporter = OTLPSpanExporter()
    if span_exporter is not None:
        tracer_provider.add_span_processor(BatchSpanProcessor(span_exporter))
    trace.set_tracer_provider(tracer_provider)
    readers: list[MetricReader] = []
    metrics_kind = env.get("OTEL_METRICS_EXPORTER", "otlp").strip().lower() or "otlp"
    if metrics_kind == "console":
        readers.append(PeriodicExportingMetricReader(ConsoleMetricExporter(out=sys.stderr)))
    elif metrics_kind == "otlp":
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

        readers.append(PeriodicExportingMetricReader(OTLPMetricExporter()))
    metrics.set_meter_provider(MeterProvider(resource=resource, metric_readers=readers))
    _configured = "ok"
    return None
