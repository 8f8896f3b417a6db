"""The built-in transports: stdio, Streamable HTTP and SSE, on the official ``mcp`` SDK.

Each ``connect`` lives in :mod:`hermes_core.host.transports` (with the registrations
themselves, :data:`~hermes_core.host.transports.BUILTIN_TRANSPORTS`) and imports ``mcp``
only when called.
"""

from __future__ import annotations

from collections.abc import Iterable

from hermes_core.host.transports import BUILTIN_TRANSPORTS
from hermes_core.plugins.hookspecs import hookimpl
from hermes_core.plugins.types import TransportSpec


@hookimpl
def transport() -> Iterable[TransportSpec]:
    return BUILTIN_TRANSPORTS
