"""The shape of ``config.yaml``'s ``mcp_servers``: pydantic models, errors and warnings.

Every value a user can get wrong is checked by a validator of ours, so each
problem carries a plain sentence ("must be a number of seconds (got a list)")
and the key path it belongs to; the loader adds the file and the line.  No
message ever quotes a configured value: header values, ``env`` values and key
passphrases are secrets, and the ``repr`` of a model hides them as well.

The models live in one module each, in this order (each imports only those above it):

* :mod:`~hermes_core.config.errors`, :mod:`~hermes_core.config.checks` (the validators'
  error, :func:`kind_of`), :mod:`~hermes_core.config.defaults`,
  :mod:`~hermes_core.config.values` (shared field checks, :func:`display_url`);
* the blocks of an entry: :mod:`~hermes_core.config.tools`,
  :mod:`~hermes_core.config.breaker`, :mod:`~hermes_core.config.identity`,
  :mod:`~hermes_core.config.oauth`, :mod:`~hermes_core.config.sampling`,
  :mod:`~hermes_core.config.elicitation`, :mod:`~hermes_core.config.roots`;
* the entry, :mod:`~hermes_core.config.server`; the file, :mod:`~hermes_core.config.document`.

This module gathers their public names where code has always imported them.
"""

from __future__ import annotations

from hermes_core.config.breaker import BreakerConfig
from hermes_core.config.checks import kind_of
from hermes_core.config.defaults import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_KEEPALIVE_INTERVAL,
    DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_TOOL_TIMEOUT,
    MAX_MESSAGE_BYTES,
    MIN_KEEPALIVE_INTERVAL,
    MIN_MESSAGE_BYTES,
    SERVER_NAME,
    Transport,
)
from hermes_core.config.document import HermesConfig
from hermes_core.config.errors import ConfigConflict, ConfigError, ConfigWarning
from hermes_core.config.identity import IdentityHeader, parse_identity_header
from hermes_core.config.server import ServerConfig
from hermes_core.config.tools import ToolsConfig
from hermes_core.config.values import display_url, scalar_text, url_problem, value_problem

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_KEEPALIVE_INTERVAL",
    "DEFAULT_MAX_MESSAGE_BYTES",
    "DEFAULT_TOOL_TIMEOUT",
    "MAX_MESSAGE_BYTES",
    "MIN_KEEPALIVE_INTERVAL",
    "MIN_MESSAGE_BYTES",
    "SERVER_NAME",
    "BreakerConfig",
    "ConfigConflict",
    "ConfigError",
    "ConfigWarning",
    "HermesConfig",
    "IdentityHeader",
    "ServerConfig",
    "ToolsConfig",
    "Transport",
    "display_url",
    "kind_of",
    "parse_identity_header",
    "scalar_text",
    "url_problem",
    "value_problem",
]
