"""The host behind ``hermes mcp proxy`` (and ``hermes mcp up``): built like every other host,
with the downstream clients as the ones asked (:class:`~.downstream.DownstreamElicitor`) and
sampled (:class:`~.sampling.DownstreamSampler`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_core.serve.proxy.downstream import DownstreamElicitor
from hermes_core.serve.proxy.sampling import DownstreamSampler

if TYPE_CHECKING:
    from hermes_core.host.factory import HostFactory
    from hermes_core.host.host import MCPHost
    from hermes_core.host.spec import HostServer

__all__ = ["backing_host"]


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
