"""The built-in auth providers for HTTP servers: static headers and OAuth.

They are selected with ``auth: headers`` / ``auth: oauth`` exactly as a plugin's provider
is, and their ``create`` is called the same way (importing this module does not import
``mcp``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from hermes_core.plugins.hookspecs import hookimpl
from hermes_core.plugins.types import AuthContext, AuthProviderSpec

if TYPE_CHECKING:
    import httpx2


def create_headers(context: AuthContext) -> httpx2.Auth | None:
    """``auth: headers``: the entry's ``headers:`` are sent as they are; nothing to add."""
    return None


def create_oauth(context: AuthContext) -> httpx2.Auth:
    """``auth: oauth``: OAuth 2.1 from the entry's ``oauth:`` settings (tokens in
    ``$HERMES_HOME/mcp-tokens``); a bad ``oauth:`` raises ``ValueError``."""
    from hermes_core.auth.oauth import build_oauth_provider

    return build_oauth_provider(
        context.server,
        context.url,
        context.settings,
        home=context.home,
        interactive=context.interactive,
        env=context.env,
    )


BUILTIN_AUTH_PROVIDERS = (
    AuthProviderSpec(
        "headers", "static headers from config (values may use ${VAR})", create=create_headers
    ),
    AuthProviderSpec("oauth", "OAuth 2.1 with PKCE through the mcp SDK", create=create_oauth),
)


@hookimpl
def auth_provider() -> Iterable[AuthProviderSpec]:
    return BUILTIN_AUTH_PROVIDERS
