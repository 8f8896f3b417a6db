"""Connecting the servers doctor may connect: all at once, each within *timeout* seconds, on a
host of doctor's own that writes nothing (no trust store: no pin is taken; no interceptors; a
lazy server's listing is not cached; no keepalive), closed again at once."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import Mapping

from hermes_core.doctor.error_line import error_line
from hermes_core.doctor.findings import ServerReport, Severity
from hermes_core.host.host import MCPHost
from hermes_core.host.server_spec import HostServer
from hermes_core.host.server_status import ServerStatus
from hermes_core.host.transports import Opener
from hermes_core.sanitize import clean_line

__all__ = ["connect_all"]

#: Seconds granted past *timeout* for the host to give up on its own before doctor stops it.
_GRACE = 5.0


def _for_doctor(server: HostServer, timeout: float) -> HostServer:
    return dataclasses.replace(
        server,
        lazy=False,
        schema_cache=None,
        pin=False,
        keepalive_interval=0.0,
        interceptors=(),
        connect_timeout=min(server.connect_timeout, timeout),
    )


async def connect_all(
    servers: list[HostServer],
    reports: Mapping[str, ServerReport],
    *,
    transports: Mapping[str, Opener],
    timeout: float,
) -> None:
    """Connect each of *servers* whose report allows it and add what was seen to its report."""
    chosen = [_for_doctor(s, timeout) for s in servers if reports[s.name].may_connect]
    if not chosen:
        return
    host = MCPHost(chosen, transports=transports, trust=None, interceptors={})
    outcomes: dict[str, tuple[str | None, float]] = {}
    started = time.monotonic()

    def done(name: str, error: str | None, seconds: float) -> None:
        outcomes[name] = (error, seconds)

    try:
        with contextlib.suppress(TimeoutError):  # each server's own deadline ends it first
            await asyncio.wait_for(host.start(done), timeout + _GRACE)
        rows = {row.server: row for row in host.status()}
        for server in chosen:
            own = [t for t in host.tools(server.name, include_gated=True) if not t.utility]
            _seen(
                reports[server.name],
                host.server_stderr(server.name),
                rows.get(server.name),
                outcomes.get(server.name),
                len(own),
                time.monotonic() - started,
                timeout,
            )
    finally:
        await host.close()


def _seen(
    report: ServerReport,
    stderr: list[str],
    row: ServerStatus | None,
    outcome: tuple[str | None, float] | None,
    tools: int,
    waited: float,
    timeout: float,
) -> None:
    if outcome is None:
        report.connection = "timed out"
        report.connect_seconds = round(waited, 2)
        report.add(
            "connection",
            Severity.PROBLEM,
            f"did not connect within {timeout:g} s",
            f"see what the server prints: hermes mcp test {report.server}",
        )
        return
    error, seconds = outcome
    report.connect_seconds = round(seconds, 2)
    if error is None:
        report.connection = "connected"
        report.tools = tools
        report.add("connection", Severity.OK, f"connected in {seconds:.2f} s")
        report.add(
            "tools",
            Severity.OK if tools else Severity.WARNING,
            f"{tools} tool(s) listed",
            None if tools else "the server lists no tools",
        )
    else:
        report.connection = "failed"
        failure = (row.failure if row is not None else None) or {}
        tail = failure.get("stderr_tail")
        tail_lines = [str(t) for t in tail] if isinstance(tail, list) else []
        lines = stderr or tail_lines or error.splitlines()
        line = error_line(lines) or error.splitlines()[0]
        first = error.splitlines()[0] if error.strip() else "failed"
        first = clean_line(first.partition("; its stderr ended with:")[0])
        report.add(
            "connection",
            Severity.PROBLEM,
            f"failed after {seconds:.2f} s: {first}",
            _fix(cause if isinstance(cause := failure.get("cause"), str) else None, report.server),
        )
        report.add("error", Severity.PROBLEM, clean_line(line))
    for problem in (row.override_problems if row is not None else None) or ():
        report.add(
            "override",
            Severity.PROBLEM,
            clean_line(problem),
            "fix or remove this override in config.yaml (tools.overrides)",
        )
    breaker = (row.breaker if row is not None else None) or {}
    state = breaker.get("state")
    if state:
        report.add(
            "breaker",
            Severity.OK if state == "closed" else Severity.PROBLEM,
            f"circuit breaker {state}",
            None if state == "closed" else "wait for its cool-down or fix the server",
        )


def _fix(cause: str | None, name: str) -> str:
    return {
        "auth": f"sign in again: hermes mcp login {name}",
        "command_missing": "install the command the entry runs, or fix `command:`",
        "network": "check that the server is running and the URL is right",
        "tls": "check the server's certificate (or `tls:` in the entry)",
        "http_status": "check the URL and the credentials the entry sends",
    }.get(cause or "", f"fix what the error says, then: hermes mcp test {name}")
