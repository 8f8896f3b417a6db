"""Why a server's app gate opens or not here: what ``hermes apps check --explain`` prints
(the steps, every location tried, the version read), as lines for the MCP page."""

from __future__ import annotations

from hermes_core.host.liveness.endpoint import LiveEndpoint, live_endpoint, liveness_app
from hermes_platform import declaration
from hermes_platform.resolver.availability import explain

__all__ = ["gate_lines"]


def gate_lines(server: str) -> list[str] | None:
    """The explanation for *server*'s app declaration; ``None`` when it declares no app."""
    decl = declaration.lookup(server)
    if decl is None:
        return None
    found = explain(decl, name=server)
    result = found.availability
    lines = [
        f"state: {result.state} (offerable: {'yes' if result.offerable else 'no'})",
        f"evaluated as {found.os}" + (f", GPU class {found.gpu}" if found.gpu else ""),
        f"path: {result.path or '-'}  version: {result.version or '-'}"
        f"  min_version: {result.min_version or '-'}",
    ]
    if found.version_kind not in (None, "none"):
        lines.append(f"version source: {found.version_kind}")
    lines.extend(f"- {step}" for step in found.steps)
    for location in found.locations:
        extra = f" file={location.file}" if location.file else ""
        lines.append(f"location[{location.index}] {location.kind} {location.value}{extra}")
        if location.error:
            lines.append(f"    ! locator failed: {location.error}")
        if not location.candidates and not location.error:
            lines.append("    (no place to look on this OS)")
        for cand in location.candidates:
            mark = "found    " if cand.present else "not found"
            version = ""
            if cand.version_state != "not_checked":
                version = (
                    f"  version {cand.version}"
                    if cand.version
                    else f"  version unreadable ({cand.version_state}: {cand.version_detail})"
                )
            lines.append(f"    {mark} {cand.path}{version}")
    app = liveness_app(decl)
    if app is not None:  # an app that serves MCP itself: whether it runs (never its token)
        seen = live_endpoint(server, decl)
        running = (
            f"running, serving at {seen.url} (pid {seen.pid})"
            if isinstance(seen, LiveEndpoint)
            else f"not running ({seen.reason if seen is not None else 'no liveness here'})"
        )
        lines.append(f"runtime file: {app.liveness_path}: {running}")
    return lines
