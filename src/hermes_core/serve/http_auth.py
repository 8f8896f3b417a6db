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
import stat
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from pathlib import Path

__all__ = [
    "TOKEN_FILE",
    "BearerGate",
    "TokenFileError",
    "body_of",
    "header_pairs",
    "load_or_create_token",
    "replayed_body",
    "scope_text",
]

TOKEN_FILE = "serve-token"
Scope = MutableMapping[str, object]
"""An ASGI connection's scope (values narrowed where read)."""
Message = MutableMapping[str, object]
"""An ASGI event, received or sent."""
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def header_pairs(scope: Scope) -> Iterable[tuple[bytes, bytes]]:
    """The request's headers (ASGI: a list of ``(name, value)`` byte pairs, names lower-case)."""
    headers = scope.get("headers")
    return headers if isinstance(headers, list | tuple) else ()


def scope_text(scope: Scope, key: str, default: str = "") -> str:
    """The text at *key* of *scope* (``method``, ``path``, ``type``), else *default*."""
    value = scope.get(key)
    return value if isinstance(value, str) else default


def body_of(message: Message) -> bytes:
    """The body bytes of an ``http.request`` event (none: empty)."""
    body = message.get("body")
    return bytes(body) if isinstance(body, bytes | bytearray) else b""


class TokenFileError(Exception):
    """The token file is not one the server will use (a link, not a regular file, another
    user's): the message names the file and what to do."""


_MAX_TOKEN_BYTES = 4096


def load_or_create_token(
    home: Path,
    *,
    renew: bool = False,
    say: Callable[[str], None] | None = None,
    name: str = TOKEN_FILE,
) -> tuple[str, bool]:
    """``(token, created)``: the token stored in ``home/name`` (``hermes mcp proxy`` keeps its
    own, ``proxy-token``), or a new one written with mode 0600.

    The stored file is opened without following a link and without blocking (a FIFO),
    and used only when it is a regular file of this user; one readable or writable by
    others is made 0600 first, and *say* is told so.  A new token goes to a temporary file
    created exclusively (``O_EXCL``, no link followed: a link planted at its name is never
    written through), then replaces the token file."""
    path = home / name
    if not renew:
        token = _stored(path, say)
        if token is not None:
            return token, False
    token = secrets.token_urlsafe(32)
    home.mkdir(parents=True, mode=0o700, exist_ok=True)
    tmp = home / f".{name}.{secrets.token_hex(8)}.tmp"
    flags = os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(tmp, flags, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(token + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return token, True


def _stored(path: Path, say: Callable[[str], None] | None) -> str | None:
    """The token in *path*, ``None`` when there is none (or it is too short to be one)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if path.is_symlink():
            raise TokenFileError(
                f"{path}: is a symbolic link; the bearer token is read only from a regular "
                "file (remove it, or run with --new-token to replace it)"
            ) from None
        raise TokenFileError(f"{path}: cannot be read: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise TokenFileError(
                f"{path}: is not a regular file (remove it, or run with --new-token)"
            )
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            raise TokenFileError(
                f"{path}: belongs to another user (uid {info.st_uid}); remove it, or run "
                "with --new-token"
            )
        if stat.S_IMODE(info.st_mode) & 0o077:
            os.fchmod(stream.fileno(), 0o600)
            if say is not None:
                loose = stat.S_IMODE(info.st_mode)
                say(f"{path} was mode {loose:o} (others could read the token); it is now 0600")
        data = stream.read(_MAX_TOKEN_BYTES)
    token = data.decode("ascii", errors="replace").strip()
    return token if len(token) >= 32 and token.isascii() and token.isprintable() else None


class BearerGate:
    """ASGI middleware: HTTP requests without the right bearer token get 401 (a websocket is
    closed); only the server's own lifespan events pass without one."""

    def __init__(self, app: App, token: str) -> None:
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
                        (b"connection", b"close"),  # it holds no place (http_guard)
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def _allowed(self, scope: Scope) -> bool:
        given = [v for k, v in header_pairs(scope) if k.lower() == b"authorization"]
        return len(given) == 1 and hmac.compare_digest(given[0], self._expected)


def replayed_body(body: bytes, then: Receive | None = None) -> Receive:
    """An ASGI ``receive`` that gives *body* once, whole, then *then*'s messages (the client's
    own: its disconnect); without *then*, a disconnect (a request made up in the server)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await then() if then is not None else {"type": "http.disconnect"}

    return receive
