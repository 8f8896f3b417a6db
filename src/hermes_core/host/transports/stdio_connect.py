"""The ``stdio`` transport's ``connect``: a subprocess speaking MCP on stdin/stdout."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import IO

from hermes_core.host.transports.child_env import child_environment
from hermes_core.host.transports.message_limit import message_limit
from hermes_core.host.transports.spawned import note_spawned
from hermes_core.host.transports.stdio import child_cwd, open_stdio_process
from hermes_core.plugins.types import ServerSpec, TransportStreams

__all__ = ["open_stdio"]


@asynccontextmanager
async def open_stdio(spec: ServerSpec, errlog: IO[str]) -> AsyncIterator[TransportStreams]:
    """A subprocess speaking MCP on stdin/stdout (the ``stdio`` transport's ``connect``).

    Our own reader (:mod:`hermes_core.host.transports.stdio`): linear, bounded by the server's
    ``max_message_bytes``, and the server's whole process group ends with the connection.
    """
    if not spec.command:
        raise ValueError("a stdio server needs a command")
    cwd = child_cwd(spec.cwd)

    async with open_stdio_process(
        [spec.command, *spec.args],
        server=spec.name or spec.command,
        env=_sdk_default_environment() | child_environment({**spec.env, **_auth_env(spec)}),
        cwd=cwd,
        errlog=errlog,
        max_message_bytes=message_limit(spec),
        on_spawn=note_spawned,
    ) as streams:
        yield streams


def _auth_env(spec: ServerSpec) -> dict[str, str]:
    """The environment an auth provider serving local servers made for this one (its
    ``create`` returned a mapping: see ``AuthProviderSpec.stdio``)."""
    auth = spec.auth
    if not isinstance(auth, Mapping):
        return {}
    return {str(k): str(v) for k, v in auth.items()}


def _sdk_default_environment() -> dict[str, str]:
    from mcp.client.stdio import get_default_environment

    return get_default_environment()
