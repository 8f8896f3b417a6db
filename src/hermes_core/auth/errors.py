"""Errors of the OAuth support: each message says what happened and what to do next.

No message ever quotes a token, a client secret or an authorization code.
"""

from __future__ import annotations

__all__ = ["OAuthCallbackError", "OAuthConfigError", "OAuthError", "OAuthLoginRequired"]


class OAuthError(RuntimeError):
    """Base of the OAuth errors raised by Hermes (not by the SDK)."""


class OAuthConfigError(OAuthError, ValueError):
    """An ``oauth:`` block that cannot be used (the message names the key, never a secret)."""


class OAuthLoginRequired(OAuthError):
    """The server needs a browser login and this session cannot do one (no terminal)."""

    def __init__(self, server: str, reason: str) -> None:
        super().__init__(
            f"MCP server '{server}' needs an OAuth login ({reason}) and this session is not "
            f"interactive. Run `hermes mcp login {server}` in a terminal, then retry."
        )
        self.server = server


class OAuthCallbackError(OAuthError):
    """The browser step did not produce an authorization code (timeout, denial, busy port)."""

    def __init__(self, message: str, *, timed_out: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out
        """No redirect came back in time (as opposed to a denial or a busy port)."""
