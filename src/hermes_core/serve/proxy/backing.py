"""The host behind ``hermes mcp proxy`` (and ``hermes mcp up``): built like every other host,
with the downstream clients as the ones asked (:class:`~.downstream.DownstreamElicitor`) and
sampled (:class:`~.sampling.DownstreamSampler`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from hermes_core.sanitize import clean_line
from hermes_core.serve.proxy.downstream import DownstreamElicitor
from hermes_core.serve.proxy.sampling import DownstreamSampler

if TYPE_CHECKING:
    from hermes_core.host.host import MCPHost
    from hermes_core.host.server_spec import HostServer
    from hermes_core.host.setup.factory import HostFactory

__all__ = ["backing_host", "startup_report"]


def backing_host(
    factory: HostFactory, servers: list[HostServer], *, forward_sampling: bool = True
) -> tuple[MCPHost, DownstreamElicitor]:
    """The host for *servers*, and the elicitor that knows each call's downstream caller.
    *forward_sampling*: every server is offered sampling, answered by the downstream client
    when it can (``False``: only what the host itself can answer is offered, as for a warm
    host that serves no MCP clients)."""
    elicitor = DownstreamElicitor()
    router = DownstreamSampler(elicitor) if forward_sampling else None
    host = factory.host(servers, elicitor=elicitor, sampling_router=router)
    return host, elicitor


def startup_report(host: MCPHost, keeps: Callable[[str], bool]) -> list[str]:
    """What the proxy tells its stderr once its servers are up: each server of the profile
    (*keeps*) that offers nothing, and why (the client sees only that its tools are missing),
    then how much is offered."""
    rows = [row for row in host.status() if row.enabled and keeps(row.server)]
    lines = []
    for row in rows:
        if row.offered:
            continue
        why = row.last_error or row.gate or f"not connected ({row.connection})"
        if row.gate and row.last_error:
            why = f"{row.last_error}; {row.gate}"
        lines.append(f"server '{row.server}' offers no tools: {clean_line(why)}")
    offering = sum(1 for row in rows if row.offered)
    lines.append(f"{offering} of {len(rows)} servers offer their tools")
    return lines
