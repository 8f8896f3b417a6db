"""The error a connection raises: which server, what happened, and whether to retry."""

from __future__ import annotations

from hermes_core.host.connection.diagnostics import ConnectFailure
from hermes_core.sanitize import clean_text

__all__ = ["ServerError"]


class ServerError(RuntimeError):
    """A server could not be reached or a call to it failed; the message says what happened."""

    def __init__(
        self,
        server: str,
        message: str,
        *,
        retryable: bool = False,
        failure: ConnectFailure | None = None,
    ) -> None:
        message = clean_text(message)  # it can quote the server (stderr, error texts)
        own = message.startswith(f"MCP server '{server}'")  # already says which server
        super().__init__(message if own else f"MCP server '{server}': {message}")
        self.server = server
        self.detail = message
        self.retryable = retryable
        self.failure = failure
        """For a failed connection attempt: what happened, as a record."""
