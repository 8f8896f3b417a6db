"""The bearer token of ``hermes mcp serve --http``.

Every HTTP request needs ``Authorization: Bearer <token>``, on loopback too: any local
process or user (and a web page, through DNS rebinding) can reach a loopback port, and the
tools read people's messages.  The token is 32 random bytes (URL-safe base64), generated on
the first ``--http`` run, stored in ``$HERMES_HOME/serve-token`` with mode 0600 and printed
once; ``--new-token`` replaces it.  A missing or wrong token gets 401 and nothing else.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

__all__ = ["TOKEN_FILE", "BearerGate", "load_or_create_token"]

TOKEN_FILE = "serve-token"
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def load_or_create_token(
    home: Path, *, renew: bool = False, name: str = TOKEN_FILE
) -> tuple[str, bool]:
    """``(token, created)``: the token stored in ``home/name``, or a new one written with
    mode 0600 (``hermes mcp proxy`` keeps its own, ``proxy-token``)."""
    path = home / name
    if not renew:
        with contextlib.suppress(FileNotFoundError):
            token = path.read_text(encoding="ascii").strip()
            if len(token) >= 32:
                return token, False
    token = secrets.token_urlsafe(32)
    home.mkdir(parents=True, mode=0o700, exist_ok=True)
    tmp = home / f".{name}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(token + "\n")
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return token, True


class BearerGate:
    """ASGI middleware: HTTP requests without the right bearer token get 401 (a websocket is
    closed); only the server's own lifespan events pass without one."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    def __repr__(self) -> str:
        return "BearerGate(***)"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope.get("type")
        if kind == "websocket" and not self._allowed(scope):
            await send({"type": "websocket.close", "code": 1008})
            return
        if kind == "http" and not self._allowed(scope):
            body = b'{"error": "unauthorized: send Authorization: Bearer <token>"}'
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"www-authenticate", b'Bearer realm="hermes"'),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def _allowed(self, scope: Scope) -> bool:
        given = [v for k, v in scope.get("headers", []) if k.lower() == b"authorization"]
        return len(given) == 1 and hmac.compare_digest(given[0], self._expected)
