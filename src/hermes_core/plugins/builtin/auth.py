"""The built-in auth provider names for HTTP servers: static headers and OAuth.

They reserve the names now; the auth issue supplies ``create`` for each.
"""

from __future__ import annotations

from collections.abc import Iterable

from hermes_core.plugins.hookspecs import hookimpl
from hermes_core.plugins.types import AuthProviderSpec

BUILTIN_AUTH_PROVIDERS = (
    AuthProviderSpec("headers", "static headers from config (values may use ${VAR})"),
    AuthProviderSpec("oauth", "OAuth 2.1 with PKCE through the mcp SDK"),
)


@hookimpl
def auth_provider() -> Iterable[AuthProviderSpec]:
    return BUILTIN_AUTH_PROVIDERS
