"""The declared app of a server, as doctor reports it: installed, its version against the
minimum, the GPU, and whether it runs (its ``liveness`` runtime file, read through
``hermes_platform`` without opening a socket)."""

from __future__ import annotations

from hermes_core.doctor.findings import ServerReport, Severity
from hermes_platform.declaration import Declaration, gpu_label
from hermes_platform.host import facts, gpu
from hermes_platform.resolver.availability import availability
from hermes_platform.resolver.liveness import probe_local
from hermes_platform.sentences import guidance

__all__ = ["app_findings", "app_running"]


def app_running(decl: Declaration) -> tuple[bool, str] | None:
    """Whether the app runs, by its declaration's ``liveness`` runtime file: (running, why);
    ``None`` when the declaration has no runtime file on this OS."""
    app = decl.app_for(facts.os_family())
    if app is None or app.liveness_kind != "server_json":
        return None
    probe = probe_local(app)
    if probe.running.state == "present":
        if probe.endpoint.state != "present":
            return False, f"it runs, but its runtime file is refused: {probe.endpoint.detail}"
        return True, "it runs"
    return False, probe.running.detail or "its runtime file is missing"


def app_findings(report: ServerReport, decl: Declaration, display_name: str | None) -> None:
    """Add the ``app`` findings of *decl* to *report*."""
    result = availability(decl)
    shown = display_name or report.server
    if decl.required_gpu is not None:
        found = gpu.gpu_class()
        severity = Severity.PROBLEM if result.state == "unsupported_gpu" else Severity.OK
        report.add(
            "gpu",
            severity,
            f"needs {gpu_label(decl.required_gpu)}; this machine's GPU class is {found}",
            "run it on a machine with that GPU" if severity is Severity.PROBLEM else None,
        )
        if severity is Severity.PROBLEM:
            report.may_connect = False
            return
    if not result.offerable:
        told = guidance(decl, result, display_name=display_name)
        sentence = told.sentence if told is not None else result.state
        report.add(
            "app",
            Severity.PROBLEM,
            f"{result.state}: {sentence}",
            told.action if told is not None else None,
        )
        return
    if decl.requires_app:
        version = f", version {result.version}" if result.version else ""
        minimum = f" (needs {result.min_version} or newer)" if result.min_version else ""
        where = f" at {result.path}" if result.path else ""
        report.add("app", Severity.OK, f"{shown} is installed{where}{version}{minimum}")
    running = app_running(decl)
    if running is not None:
        is_running, why = running
        report.add(
            "app running",
            Severity.OK if is_running else Severity.PROBLEM,
            f"{shown}: {why}" if is_running else f"{shown} is not running ({why})",
            None if is_running else f"start {shown}, then run doctor again",
        )
        if not is_running:
            report.may_connect = False
