"""The dashboard's door: a one-time token for a cookie, Host/Origin checks, CSRF on every POST.

``hermes dashboard`` prints ``http://127.0.0.1:PORT/login?token=…`` once.  The first request
with that token gets a session cookie (``hermes_dashboard_PORT``; ``HttpOnly;
SameSite=Strict``) and a redirect to ``/``; the token is then spent (a second use gets 401).
Every other request needs the cookie: 401 without it.  A ``Host`` other than
``127.0.0.1:PORT`` / ``localhost:PORT`` (DNS rebinding: a foreign name resolving to
127.0.0.1) or an ``Origin`` other than the page's own gets 403.  A POST must carry the
session's CSRF token as the form field ``csrf`` (or the ``X-CSRF-Token`` header): 403
without it.  Each body is read here, bounded, and handed on unchanged.
"""

from __future__ import annotations

import hmac
import secrets
from http.cookies import SimpleCookie
from urllib.parse import parse_qs

from starlette.types import ASGIApp as App
from starlette.types import Message, Receive, Scope, Send

from hermes_core.serve.http_auth import replayed_body

__all__ = ["COOKIE", "MAX_BODY", "Door", "Secrets"]

COOKIE = "hermes_dashboard"
#: The path of the MCP Apps' documents: their handler sets their own sandboxing policy.
FRAMED = "/apps/frame/"
_FRAME_HEADERS = {b"referrer-policy", b"x-content-type-options", b"cache-control"}
MAX_BODY = 1 << 20

_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-src 'self'; frame-ancestors 'none'; "
    "base-uri 'none'"
)


class Secrets:
    """The one-time login token, the session cookie's value and the CSRF token."""

    def __init__(self) -> None:
        self.login = secrets.token_urlsafe(32)
        self.session = secrets.token_urlsafe(32)
        self.csrf = secrets.token_urlsafe(32)
        self.login_spent = False

    def __repr__(self) -> str:
        return "Secrets(***)"

    def spend(self, given: str) -> bool:
        """Whether *given* is the login token, still unspent (it is spent now)."""
        if self.login_spent or not hmac.compare_digest(given.encode(), self.login.encode()):
            return False
        self.login_spent = True
        return True


def _header(scope: Scope, name: bytes) -> list[str]:
    return [v.decode("latin-1") for k, v in scope.get("headers", []) if k.lower() == name]


async def _reply(send: Send, status: int, text: str, extra: list[tuple[bytes, bytes]]) -> None:
    body = text.encode()
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Door:
    """ASGI middleware in front of the dashboard (see the module docstring)."""

    def __init__(self, app: App, keys: Secrets, port: int) -> None:
        self.app = app
        self.keys = keys
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        self.origins = {f"http://{host}" for host in self.hosts}
        # Cookies are not kept apart by port: each dashboard has its own name.
        self.cookie = f"{COOKIE}_{port}"

    def __repr__(self) -> str:
        return "Door(***)"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            return  # no websockets
        hosts = _header(scope, b"host")
        if len(hosts) != 1 or hosts[0].lower() not in self.hosts:
            await _reply(send, 403, "forbidden: unknown Host (DNS rebinding?)", [])
            return
        origins = _header(scope, b"origin")
        if origins and (len(origins) != 1 or origins[0].lower() not in self.origins):
            await _reply(send, 403, "forbidden: request from another origin", [])
            return
        if scope.get("path") == "/login":
            await self._login(scope, send)
            return
        if not self._has_session(scope):
            await _reply(send, 401, "unauthorized: open the URL `hermes dashboard` printed", [])
            return
        if scope.get("method") == "POST":
            body = await self._body(receive)
            if body is None:
                await _reply(send, 413, "request body too large", [])
                return
            if not self._csrf_ok(scope, body):
                await _reply(send, 403, "forbidden: missing or wrong CSRF token", [])
                return
            receive = replayed_body(body, receive)

        framed = str(scope.get("path", "")).startswith(FRAMED)

        async def secure(message: Message) -> None:
            if message["type"] == "http.response.start":
                own = [
                    (k, v)
                    for k, v in message.get("headers", [])
                    if not framed or k.lower() not in _FRAME_HEADERS
                ]
                policy = [] if framed else [(b"content-security-policy", _CSP.encode())]
                # An app's document (under FRAMED) keeps the policy its handler gave it
                # (sandboxed, framed by this page only); a handler-less one gets none to frame.
                message["headers"] = [
                    *own,
                    *policy,
                    *([] if framed else [(b"x-frame-options", b"DENY")]),
                    (b"referrer-policy", b"same-origin"),
                    (b"x-content-type-options", b"nosniff"),
                    (b"cache-control", b"no-store"),
                ]
                if framed and not any(k.lower() == b"content-security-policy" for k, _ in own):
                    message["headers"].append((b"content-security-policy", _CSP.encode()))
                    message["headers"].append((b"x-frame-options", b"DENY"))
            await send(message)

        await self.app(scope, receive, secure)

    async def _login(self, scope: Scope, send: Send) -> None:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = query.get("token", [""])
        if len(given) != 1 or not self.keys.spend(given[0]):
            await _reply(send, 401, "unauthorized: this login link is wrong or already used", [])
            return
        cookie = f"{self.cookie}={self.keys.session}; HttpOnly; SameSite=Strict; Path=/"
        await _reply(
            send, 303, "logged in", [(b"location", b"/"), (b"set-cookie", cookie.encode())]
        )

    def _has_session(self, scope: Scope) -> bool:
        for raw in _header(scope, b"cookie"):
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(raw)
            except Exception:  # noqa: BLE001 - a malformed cookie header is no session
                continue
            if self.cookie in jar and hmac.compare_digest(
                jar[self.cookie].value.encode(), self.keys.session.encode()
            ):
                return True
        return False

    async def _body(self, receive: Receive) -> bytes | None:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY:
                return None
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        return b"".join(chunks)

    def _csrf_ok(self, scope: Scope, body: bytes) -> bool:
        expected = self.keys.csrf.encode()
        given = _header(scope, b"x-csrf-token")
        if not given:
            kinds = _header(scope, b"content-type")
            if not kinds or not kinds[0].startswith("application/x-www-form-urlencoded"):
                return False
            given = parse_qs(body.decode("utf-8", "replace")).get("csrf", [])
        return len(given) == 1 and hmac.compare_digest(given[0].encode(), expected)
