"""The providers of the grants with no browser step: the SDK's extension providers, as they are,
plus what the host asks of every ``auth: oauth`` provider before it connects.

``host_server`` gives a provider that may run a browser login (``interactive`` and no tokens
yet) a longer connect timeout; these never do, so they say ``interactive = False``.
Imported only when such a server is set up (it imports ``mcp``).
"""

from __future__ import annotations

from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
)
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider

__all__ = ["ClientCredentialsProvider", "IdentityAssertionProvider", "PrivateKeyJWTProvider"]


class _NoBrowser:
    #: Never a browser login to wait for (``HermesOAuthProvider.interactive`` says when there is).
    interactive = False


class ClientCredentialsProvider(_NoBrowser, ClientCredentialsOAuthProvider):
    """``grant: client_credentials`` with a client secret."""


class PrivateKeyJWTProvider(_NoBrowser, PrivateKeyJWTOAuthProvider):
    """``grant: client_credentials`` with ``private_key_jwt`` client authentication."""


class IdentityAssertionProvider(_NoBrowser, IdentityAssertionOAuthProvider):
    """``grant: identity_assertion`` (SEP-990): an ID-JAG for an access token (RFC 7523)."""
