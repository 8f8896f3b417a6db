"""The built-in auth provider names for HTTP servers: static headers and OAuth.

``oauth``'s ``create`` is :func:`hermes_core.auth.oauth.build_oauth_provider` (importing it
does not import ``mcp``); static headers need no ``create``.
"""

from __future__ import annotations

from collections.abc import Iterable

from hermes_core.auth.oauth import build_oauth_provider
from hermes_core.plugins.hookspecs import hookimpl
from hermes_core.plugins.types import AuthProviderSpec

BUILTIN_AUTH_PROVIDERS = (
    AuthProviderSpec("headers", "static headers from config (values may use ${VAR})"),
    AuthProviderSpec(
        "oauth", "OAuth 2.1 with PKCE through the mcp SDK", create=build_oauth_provider
    ),
)


@hookimpl
def auth_provider() -> Iterable[AuthProviderSpec]:
    return BUILTIN_AUTH_PROVIDERS
