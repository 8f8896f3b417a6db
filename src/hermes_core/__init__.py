"""Hermes core: the MCP host built on ``hermes_platform``.

The names an embedding agent needs are importable from here (loaded on first
use, so ``import hermes_core`` stays cheap)::

    from hermes_core import HostFactory, HostServer, MCPHost, SyncMCPHost, load_config

``HostFactory.from_plugins().host()`` builds the host as the ``hermes`` command does.
"""

from __future__ import annotations

from typing import Any

from hermes_core._lazy import LazyExports

__version__ = "0.1.0"

_EXPORTS = {
    "HostFactory": "hermes_core.host.setup.factory",
    "HostServer": "hermes_core.host.server_spec",
    "MCPHost": "hermes_core.host.host",
    "SyncMCPHost": "hermes_core.host.sync",
    "host_servers": "hermes_core.host.setup.from_config",
    "load_config": "hermes_core.config.loader",
    "hookimpl": "hermes_core.plugins.hookspecs",
    "create_plugin_manager": "hermes_core.plugins.manager",
}

__all__ = ["__version__", *_EXPORTS]


_LAZY = LazyExports(__name__, _EXPORTS)


def __getattr__(name: str) -> Any:
    return _LAZY.get(name)
