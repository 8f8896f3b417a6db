"""The user's ``config.yaml``: ``mcp_servers`` models, loading, ``${…}`` and safe edits.

* :func:`load_config` reads ``$HERMES_HOME/config.yaml`` into a :class:`HermesConfig`
  (errors as ``<file>:<line>: mcp_servers.<server>.<key>: <what is wrong>``);
* :func:`resolve` expands ``${…}`` in one server entry at connect time;
* :func:`add_server`, :func:`remove_server`, :func:`set_enabled` edit the file
  atomically, keeping everything they do not change byte for byte.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_core._lazy import LazyExports

if TYPE_CHECKING:
    from hermes_core.config.defaults import DEFAULT_CONNECT_TIMEOUT, DEFAULT_TOOL_TIMEOUT, Transport
    from hermes_core.config.document import HermesConfig
    from hermes_core.config.errors import ConfigConflict, ConfigError, ConfigWarning
    from hermes_core.config.identity import IdentityHeader
    from hermes_core.config.interpolate import (
        CONTEXT_VARIABLES,
        expand,
        load_dotenv,
        parse_dotenv,
        resolve,
    )
    from hermes_core.config.loader import (
        LoadedConfig,
        config_path,
        hermes_home,
        load_config,
        parse_config_text,
    )
    from hermes_core.config.server import ServerConfig
    from hermes_core.config.store import add_server, remove_server, set_enabled
    from hermes_core.config.tools import ToolsConfig

__all__ = [
    "CONTEXT_VARIABLES",
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_TOOL_TIMEOUT",
    "ConfigConflict",
    "ConfigError",
    "ConfigWarning",
    "HermesConfig",
    "IdentityHeader",
    "LoadedConfig",
    "ServerConfig",
    "ToolsConfig",
    "Transport",
    "add_server",
    "config_path",
    "expand",
    "hermes_home",
    "load_config",
    "load_dotenv",
    "parse_config_text",
    "parse_dotenv",
    "remove_server",
    "resolve",
    "set_enabled",
]

# Loaded on first use (PEP 562): ``hermes mcp list`` reads the file without the editing code.
_HOME = {
    "CONTEXT_VARIABLES": "interpolate",
    "ConfigConflict": "errors",
    "ConfigError": "errors",
    "ConfigWarning": "errors",
    "DEFAULT_CONNECT_TIMEOUT": "defaults",
    "DEFAULT_TOOL_TIMEOUT": "defaults",
    "HermesConfig": "document",
    "IdentityHeader": "identity",
    "LoadedConfig": "loader",
    "ServerConfig": "server",
    "ToolsConfig": "tools",
    "Transport": "defaults",
    "add_server": "store",
    "config_path": "loader",
    "expand": "interpolate",
    "hermes_home": "loader",
    "load_config": "loader",
    "load_dotenv": "interpolate",
    "parse_config_text": "loader",
    "parse_dotenv": "interpolate",
    "remove_server": "store",
    "resolve": "interpolate",
    "set_enabled": "store",
}


_LAZY = LazyExports(__name__, _HOME)


def __getattr__(name: str) -> object:
    return _LAZY.get(name)


def __dir__() -> list[str]:
    return _LAZY.names()
