"""MCP roots: the folders the host tells a server it may work in (``roots:`` in config.yaml).

A server with no ``roots:`` is offered none: the SDK's default callback refuses a
``roots/list`` request ("List roots not supported") and the ``roots`` capability is not
advertised.  With ``roots:`` the host answers ``roots/list`` (handshake era) and a 2026-07-28
``InputRequiredResult`` round asking for roots with the configured folders, as ``file://``
URIs.  A config change that alters a server's roots restarts that server (a new session
receives the new list), so no ``notifications/roots/list_changed`` is ever needed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp.client.context import ClientRequestContext
    from mcp_types import ListRootsResult

    from hermes_core.config.roots import RootConfig

__all__ = ["Root", "RootsHandler", "roots_of"]

log = logging.getLogger("hermes_core.host.roots")  # its name before the move


@dataclass(frozen=True)
class Root:
    """One configured root: an absolute folder, its ``file://`` URI and an optional label."""

    path: str
    uri: str
    name: str | None = None


def roots_of(configured: Iterable[RootConfig] | None) -> tuple[Root, ...]:
    """The :class:`Root` list of a resolved entry's ``roots:`` (absolute paths)."""
    return tuple(
        Root(path=item.path, uri=Path(item.path).as_uri(), name=item.name)
        for item in configured or ()
    )


class RootsHandler:
    """The SDK's ``list_roots_callback`` for one server: answers with the configured roots
    (in the handshake era's ``roots/list`` and in a 2026-07-28 input-required round alike)."""

    def __init__(self, server: str, roots: tuple[Root, ...]) -> None:
        self.server = server
        self.roots = roots

    async def __call__(self, context: ClientRequestContext) -> ListRootsResult:
        from mcp_types import ListRootsResult
        from mcp_types import Root as WireRoot

        log.debug("MCP server '%s' asked for its roots (%d)", self.server, len(self.roots))
        return ListRootsResult(
            roots=[WireRoot(uri=root.uri, name=root.name) for root in self.roots]  # type: ignore[arg-type]
        )
