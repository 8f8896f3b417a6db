"""The defaults and bounds of a server entry, and what a server name may be."""

from __future__ import annotations

import re
from typing import Literal

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_KEEPALIVE_INTERVAL",
    "DEFAULT_MAX_MESSAGE_BYTES",
    "DEFAULT_TOOL_TIMEOUT",
    "MAX_MESSAGE_BYTES",
    "MIN_KEEPALIVE_INTERVAL",
    "MIN_MESSAGE_BYTES",
    "SERVER_NAME",
    "Transport",
]

#: Per tool-call timeout when neither the server nor ``timeouts.mcp.tool_call`` sets one.
DEFAULT_TOOL_TIMEOUT = 300.0
#: Bound on connecting, the ``initialize`` handshake and discovery of one server.
DEFAULT_CONNECT_TIMEOUT = 60.0

#: Seconds of silence after which a connected server is probed (``keepalive_interval``).
DEFAULT_KEEPALIVE_INTERVAL = 180.0
#: The shortest keepalive interval; shorter values are raised to it (with a warning).
MIN_KEEPALIVE_INTERVAL = 5.0

#: A server name: it becomes part of tool names and of ``mcp-tokens/<server>.json``.
SERVER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")

Transport = Literal["stdio", "streamable_http", "sse"]
"""The built-in transports' names (a plugin's transport may be selected as well)."""
DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024
MIN_MESSAGE_BYTES = 4096
MAX_MESSAGE_BYTES = 1024 * 1024 * 1024
