"""The proxy's transports: stdio (one client), and Streamable HTTP with a bearer token per
profile (the rules of ``hermes mcp serve --http``: a token on every request, loopback by
default, the Host/Origin checks on every loopback address, its request body limit, the header
timeout and the connection cap of :mod:`~hermes_core.serve.http_guard`).

Over HTTP each token selects one :class:`ProxyServer` (a profile); a request whose token is
none of them gets 401 at once, its connection closed, and reaches no server.  The tokens are
compared in constant time.  Requests with a token are answered :data:`MAX_CONNECTIONS` at a
time (one more gets 503): requests without one never count.  ``GET /healthz`` and
``GET /readyz`` are answered without a token (:mod:`~hermes_core.serve.fleet.health`).
"""

from __future__ import annotations

import contextlib
import hmac
from collections.abc import Callable, Mapping

from hermes_core.host.transports.stdio import PipeSender
from hermes_core.serve.fleet.health import Health
from hermes_core.serve.http_auth import App, Receive, Scope, Send, header_pairs
from hermes_core.serve.http_guard import HEADER_TIMEOUT, guarded_protocol, transport_security
from hermes_core.serve.proxy.disconnects import CancelOnDisconnect
from hermes_core.serve.proxy.fast_calls import FastCalls
from hermes_core.serve.proxy.http_calls import HttpFastCalls
from hermes_core.serve.proxy.server import ProxyServer
from hermes_core.serve.stdio_pipes import stdio_pipes

__all__ = ["MAX_CONNECTIONS", "TokenRouter", "serve_http", "serve_stdio"]

#: Requests with a token the HTTP proxy answers at once; beyond them, 503 at once.
MAX_CONNECTIONS = 512
_UNAUTHORIZED = b'{"error": "unauthorized: send Authorization: Bearer <token>"}'
_BUSY = b'{"error": "busy: too many requests in progress; try again"}'


async def serve_stdio(proxy: ProxyServer) -> None:
    """Serve *proxy* on this process's stdin/stdout until the client closes it: on asyncio
    pipes (:mod:`~hermes_core.serve.stdio_pipes`), or the SDK's transport where stdin or
    stdout is a regular file."""
    fast: list[FastCalls] = []

    def hot_path(sender: PipeSender) -> FastCalls:
        fast.append(FastCalls(proxy, sender.send_text))
        return fast[-1]

    async with stdio_pipes(intercept=hot_path) as streams:
        if streams is not None:
            try:
                await proxy.server.run(*streams, proxy.options())
            finally:
                for calls in fast:
                    calls.close()
            return
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await proxy.server.run(read, write, proxy.options())


class TokenRouter:
    """ASGI app: the bearer token picks the profile's app; no match is 401."""

    def __init__(
        self, apps: Mapping[str, App], limit: int = MAX_CONNECTIONS, health: Health | None = None
    ) -> None:
        self._apps = [(f"Bearer {token}".encode(), app) for token, app in apps.items()]
        self._limit = limit
        self._health = health or Health()
        self.in_flight = 0
        """Requests with a token being answered now."""

    def __repr__(self) -> str:
        return f"TokenRouter({len(self._apps)} profiles, tokens ***)"

    def _app(self, scope: Scope) -> App | None:
        given = [v for k, v in header_pairs(scope) if k.lower() == b"authorization"]
        if len(given) != 1:
            return None
        found = None
        for expected, app in self._apps:  # every token compared: no timing of the match
            if hmac.compare_digest(given[0], expected):
                found = app
        return found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope.get("type")
        if kind not in ("http", "websocket"):
            return
        if await self._health.answer(scope, send):
            return
        app = self._app(scope)
        if app is not None and self.in_flight < self._limit:
            self.in_flight += 1
            try:
                await app(scope, receive, send)
            finally:
                self.in_flight -= 1
            return
        if kind == "websocket":
            await send({"type": "websocket.close", "code": 1008 if app is None else 1013})
            return
        if app is None:
            await _answer(send, 401, _UNAUTHORIZED, (b"www-authenticate", b'Bearer realm="hermes"'))
        else:
            await _answer(send, 503, _BUSY, (b"retry-after", b"1"))


async def _answer(send: Send, status: int, body: bytes, header: tuple[bytes, bytes]) -> None:
    """*status* with the JSON *body*, and the connection closed after it (it holds no place)."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                header,
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def serve_http(
    proxies: Mapping[str, ProxyServer],
    *,
    host: str,
    port: int,
    verbose: bool = False,
    header_timeout: float = HEADER_TIMEOUT,
    health: Health | None = None,
    wrap: Callable[[App, ProxyServer], App] | None = None,
) -> None:
    """Serve each of *proxies* (token -> proxy) on ``http://host:port/mcp``; a connection
    has *header_timeout* seconds to send each request's head.  *health*: the probes of
    ``/readyz``; *wrap(app, proxy)*: each profile's app as served (a fleet's routing)."""
    import uvicorn

    security = transport_security(host)
    apps = {}
    for token, proxy in proxies.items():
        sdk = proxy.server.streamable_http_app(host=host, transport_security=security)
        app: App = HttpFastCalls(CancelOnDisconnect(sdk), proxy, security)
        apps[token] = wrap(app, proxy) if wrap is not None else app
    config = uvicorn.Config(
        TokenRouter(apps, health=health),
        host=host,
        port=port,
        log_level="debug" if verbose else "warning",
        access_log=verbose,
        lifespan="off",
        http=guarded_protocol(header_timeout),
    )
    async with contextlib.AsyncExitStack() as stack:
        for proxy in proxies.values():
            await stack.enter_async_context(proxy.server.session_manager.run())
        await uvicorn.Server(config).serve()
