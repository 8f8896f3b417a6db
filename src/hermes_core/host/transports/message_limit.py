"""The bound on one message from a server (``max_message_bytes``) and the error past it."""

from __future__ import annotations

from hermes_core.plugins.types import ServerSpec

__all__ = ["DEFAULT_MAX_MESSAGE_BYTES", "MessageTooLargeError", "message_limit"]

DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""A server's ``max_message_bytes`` unless configured."""


class MessageTooLargeError(Exception):
    """A server sent a message larger than its ``max_message_bytes``."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the server sent a message larger than max_message_bytes ({limit} bytes)")


def message_limit(spec: ServerSpec) -> int:
    """The server's ``max_message_bytes`` (64 MiB unless it gives a positive one)."""
    value = spec.max_message_bytes
    return value if value > 0 else DEFAULT_MAX_MESSAGE_BYTES
