"""OAuth 2.1 for HTTP MCP servers (``auth: oauth``), on the official ``mcp`` SDK.

* :func:`~hermes_core.auth.oauth.build_oauth_provider` — the ``httpx2.Auth`` for one server;
* :class:`~hermes_core.auth.storage.TokenStorage` — ``$HERMES_HOME/mcp-tokens/<server>.json``
  (mode 0600, written only when tokens were obtained);
* :mod:`hermes_core.auth.callback` — the browser step (loopback listener, paste-back).

Importing this package does not import ``mcp``: the names below load on first use.
"""

from __future__ import annotations

from typing import Any

from hermes_core._lazy import LazyExports

__all__ = [
    "OAuthCallbackError",
    "OAuthConfigError",
    "OAuthError",
    "OAuthLoginRequired",
    "TokenStorage",
    "build_oauth_provider",
    "parse_redirect",
    "token_path",
]

_EXPORTS = {
    "OAuthCallbackError": "hermes_core.auth.errors",
    "OAuthConfigError": "hermes_core.auth.errors",
    "OAuthError": "hermes_core.auth.errors",
    "OAuthLoginRequired": "hermes_core.auth.errors",
    "TokenStorage": "hermes_core.auth.storage",
    "build_oauth_provider": "hermes_core.auth.oauth",
    "parse_redirect": "hermes_core.auth.callback",
    "token_path": "hermes_core.auth.storage",
}


_LAZY = LazyExports(__name__, _EXPORTS)


def __getattr__(name: str) -> Any:
    return _LAZY.get(name)
