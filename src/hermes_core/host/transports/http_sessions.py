"""The ``Mcp-Session-Id`` each Streamable HTTP server last gave, by server name: what the
telemetry step records as ``mcp.session.id`` (read from the responses, never sent from here)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx2

__all__ = ["SESSION_HEADER", "session_hook", "session_id"]

SESSION_HEADER = "mcp-session-id"
#: The longest session id kept (the spec allows visible ASCII only; longer ones are dropped).
MAX_SESSION_ID = 256
_IDS: dict[str, str] = {}


def session_hook(server: str) -> Callable[[httpx2.Response], Coroutine[object, object, None]]:
    """An ``httpx2`` response hook noting *server*'s session id."""

    async def noted(response: httpx2.Response) -> None:
        value = response.headers.get(SESSION_HEADER)
        if (
            isinstance(value, str)
            and 0 < len(value) <= MAX_SESSION_ID
            and value.isascii()
            and value.isprintable()
            and _IDS.get(server) != value
        ):
            _IDS[server] = value

    return noted


def session_id(server: str) -> str | None:
    """The session id *server* last gave (``None``: none, or not an HTTP server)."""
    return _IDS.get(server)
