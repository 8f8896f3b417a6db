"""Where a :class:`~hermes_core.auth.storage.TokenStorage` keeps its document when not in
``mcp-tokens/<server>.json``: the :class:`TokenBackend` protocol
(:class:`~hermes_core.auth.pg_tokens.PgTokenBackend`, the state database, implements it)."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

__all__ = ["TokenBackend"]


class TokenBackend(Protocol):
    """One server's token document somewhere shared."""

    @property
    def where(self) -> str:
        """What holds it, as it may be shown (no secret)."""
        ...

    def read(self) -> bytes | None: ...
    def write(self, data: bytes) -> None: ...
    def stamp(self) -> Any:
        """What changes whenever the document does (``None``: none there)."""
        ...

    def remove(self) -> None: ...
    def refresh_lock(self) -> AbstractAsyncContextManager[None]:
        """Held while the tokens are refreshed, so one process refreshes at a time."""
        ...
