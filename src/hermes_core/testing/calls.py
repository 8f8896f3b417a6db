"""An :class:`~hermes_core.plugins.interceptors.InterceptedCall` for an interceptor's unit tests,
without writing its eleven fields by hand."""

from __future__ import annotations

import time
from collections.abc import Mapping

from hermes_core.plugins.interceptors import InterceptedCall

__all__ = ["make_call"]


def make_call(
    tool: str = "echo",
    arguments: Mapping[str, object] | None = None,
    *,
    server: str = "demo",
    annotations: Mapping[str, object] | None = None,
    trust: str = "full",
    transport: str = "stdio",
    url: str | None = None,
    command: str | None = "demo-mcp",
    max_result_tokens: int = 25_000,
) -> InterceptedCall:
    """A call of *tool* on *server* as an interceptor sees it: registered as
    ``mcp_<server>_<tool>``; a stdio server unless a *url* is given."""
    return InterceptedCall(
        name=f"mcp_{server}_{tool}".replace("-", "_"),
        server=server,
        tool=tool,
        arguments=dict(arguments or {}),
        annotations=dict(annotations or {}),
        trust=trust,
        transport="streamable_http" if url is not None and transport == "stdio" else transport,
        url=url,
        command=None if url is not None else command,
        max_result_tokens=max_result_tokens,
        started=time.monotonic(),
    )
