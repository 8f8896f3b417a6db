"""Where a server's ``sampling/createMessage`` goes: a *sampling router* the embedder gives the
host picks, per server, the callback that answers it.

Without a router a server is offered sampling only when the host can answer it itself (a
``sampling_provider`` backend and a model configured: :mod:`hermes_core.sampling.handler`).
A router is for a host that stands in front of another client, as ``hermes mcp proxy`` does:
every server is then offered sampling, and the router's callback decides per request (the
downstream client, when it can sample; else the host's own handler, *own*, with its limits;
else a refusal).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from mcp.client.session import SamplingFnT

    from hermes_core.sampling.handler import SamplingHandler
    from hermes_core.sampling.settings import SamplingSettings

__all__ = ["SamplingRouter"]


class SamplingRouter(Protocol):
    """Makes each server's sampling callback (the SDK's ``(context, params)`` signature)."""

    def callback(
        self, server: str, own: SamplingHandler | None, settings: SamplingSettings
    ) -> SamplingFnT: ...
