"""The proxy's hot path over Streamable HTTP: a plain ``tools/call`` POST answered with one
JSON body, without the SDK's per-request machinery.

For each POST the SDK's Streamable HTTP server builds a request object, validates the message
with pydantic, opens an SSE response with a task group and two memory streams, hands the
message to the session's dispatcher (another task, a per-request context, validation of the
params and of the result) and streams the answer back as an event: most of the proxy's CPU
per call.  :class:`HttpFastCalls` wraps a profile's ASGI app and takes the one request that
dominates a proxy's traffic, and answers it itself: the same
:meth:`~hermes_core.serve.proxy.server.ProxyServer.answer_data` the SDK's handler calls (the
profile, the host's whole call pipeline), the result written as the SDK writes it, as one
``application/json`` body (a client of Streamable HTTP accepts either that or a stream).

A POST is taken only when the SDK would serve it as such a call, and everything the SDK
checks holds: the path ``/mcp``; ``Content-Type: application/json``; an ``Accept`` naming
both JSON and event streams (wildcards as the SDK reads them); the Host/Origin checks of
:func:`~hermes_core.serve.http_guard.transport_security` when they are on; a declared body
length up to :data:`MAX_BODY`; an ``Mcp-Session-Id`` of a live session of this profile
whose handshake is done, a 2025-era ``Mcp-Protocol-Version``; one JSON-RPC request
``tools/call`` with only ``name``/``arguments`` and tracing ``_meta`` (no progress token, no
task); and a client that declared neither elicitation nor sampling (a question for it could
only ride the request's own event stream, which the SDK keeps).  Anything else, and every
failure of those checks, goes to the SDK unchanged (the body replayed as read), which
answers it or refuses it as always.

The call holds its session as the SDK's requests do (no idle timeout while it runs; the
countdown restarts when it ends).  A client that disconnects before the answer cancels the
call, and a ``notifications/cancelled`` naming it cancels it too (the notice goes on to the
SDK as well, which answers 202 as always).
"""

from __future__ import annotations

import asyncio
import enum
import json
import logging
import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

import anyio
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from hermes_core.json_types import JsonObject
from hermes_core.serve.http_auth import (
    App,
    Receive,
    Scope,
    Send,
    body_of,
    header_pairs,
    replayed_body,
)
from hermes_core.serve.proxy.downstream import Downstream, declares
from hermes_core.serve.proxy.plain_call import plain_params
from hermes_core.serve.proxy.server import call_result, plain_result_json

if TYPE_CHECKING:
    from mcp.server.streamable_http import StreamableHTTPServerTransport
    from mcp.server.transport_security import TransportSecuritySettings

    from hermes_core.serve.proxy.server import ProxyServer

__all__ = ["MAX_BODY", "HttpFastCalls", "plain_call"]

log = logging.getLogger(__name__)
#: A POST declaring a longer body goes to the SDK unread (its own limit applies).
MAX_BODY = 1024 * 1024
_PATH = "/mcp"
_MESSAGE_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
#: What a handler's exception becomes (the SDK answers code 0 with its text, too).
_HANDLER_ERROR = 0
_JSON = b"application/json"
_CANCELLED = '{"code":-32800,"message":"Request cancelled"}'


class _Head:
    """The headers the hot path reads, in one pass over the request's (a header given twice:
    none read, the request is the SDK's)."""

    __slots__ = ("accept", "content_type", "host", "length", "origin", "session", "version")

    def __init__(self, headers: Iterable[tuple[bytes, bytes]]) -> None:
        seen: dict[bytes, bytes] = {}
        count = 0
        for key, value in headers:
            seen[key] = value
            count += 1
        if count != len(seen):
            seen = {}
        self.accept = seen.get(b"accept", b"").decode("latin-1")
        self.content_type = seen.get(b"content-type", b"").decode("latin-1")
        self.host = seen.get(b"host", b"").decode("latin-1")
        self.length = seen.get(b"content-length", b"")
        origin = seen.get(b"origin")
        self.origin = origin.decode("latin-1") if origin is not None else None
        self.session = seen.get(b"mcp-session-id", b"").decode("latin-1")
        self.version = seen.get(b"mcp-protocol-version", b"").decode("latin-1")


def _accepts(accept: str) -> bool:
    """Whether *accept* names both JSON and event streams, as the SDK reads it."""
    types = {part.split(";")[0].strip().lower() for part in accept.split(",")}
    if "*/*" in types:
        return True
    return bool(types & {"application/json", "application/*"}) and bool(
        types & {"text/event-stream", "text/*"}
    )


def _json_type(content_type: str) -> bool:
    """Whether *content_type* is JSON, as both of the SDK's checks read it."""
    if not content_type.lower().startswith("application/json"):
        return False
    return any(part.strip() == "application/json" for part in content_type.split(";")[0].split(","))


class _Door:
    """The SDK's Host/Origin checks (``None`` settings or protection off: none)."""

    def __init__(self, settings: TransportSecuritySettings | None) -> None:
        self.on = settings is not None and settings.enable_dns_rebinding_protection
        hosts = settings.allowed_hosts if settings is not None else []
        origins = settings.allowed_origins if settings is not None else []
        self._hosts = frozenset(hosts)
        self._host_bases = tuple(h[:-1] for h in hosts if h.endswith(":*"))
        self._origins = frozenset(origins)
        self._origin_bases = tuple(o[:-1] for o in origins if o.endswith(":*"))

    def passes(self, host: str, origin: str | None) -> bool:
        if not self.on:
            return True
        if not host or (host not in self._hosts and not host.startswith(self._host_bases)):
            return False
        return not origin or origin in self._origins or origin.startswith(self._origin_bases)


def plain_call(message: object) -> tuple[int | str, str, JsonObject] | None:
    """``(id, name, arguments)`` of a plain ``tools/call`` JSON-RPC request, else ``None``."""
    if not isinstance(message, dict) or not _MESSAGE_KEYS.issuperset(message):
        return None
    if message.get("jsonrpc") != "2.0" or message.get("method") != "tools/call":
        return None
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        return None
    call = plain_params(message.get("params"))
    return None if call is None else (request_id, *call)


def _cancelled(message: object) -> int | str | None:
    """The ``requestId`` a ``notifications/cancelled`` names, else ``None``."""
    if not isinstance(message, dict) or message.get("method") != "notifications/cancelled":
        return None
    params = message.get("params")
    found = params.get("requestId") if isinstance(params, dict) else None
    return found if isinstance(found, int | str) and not isinstance(found, bool) else None


class HttpFastCalls:
    """ASGI middleware over a profile's app (see the module's docstring)."""

    def __init__(
        self, app: App, proxy: ProxyServer, security: TransportSecuritySettings | None
    ) -> None:
        self.app = app
        self.proxy = proxy
        self._door = _Door(security)
        self._calls: dict[tuple[str, int | str], _Call] = {}
        """(session id, request id) -> the call being answered here."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope.get("type") != "http"
            or scope.get("method") != "POST"
            or scope.get("path") != _PATH
        ):
            await self.app(scope, receive, send)
            return
        head = _Head(header_pairs(scope))
        transport = self._transport(head)
        if transport is None or not head.length.isdigit():
            await self.app(scope, receive, send)
            return
        length = int(head.length)
        if length > MAX_BODY:
            await self.app(scope, receive, send)
            return
        body = await _read(receive, length)
        if body is None:  # the client went while sending it: nobody to answer
            return
        try:
            message = json.loads(body)
        except ValueError:
            message = None
        call = plain_call(message)
        session_id = transport.mcp_session_id or ""
        if call is not None and (session_id, call[0]) not in self._calls:
            caller = self._caller(session_id)
            if caller is not None:
                await self._answer(transport, session_id, caller, *call, receive, send)
                return
        cancelled = _cancelled(message)
        if cancelled is not None:
            running = self._calls.get((session_id, cancelled))
            if running is not None:
                running.stop(_Stop.CANCELLED)
        await self.app(scope, replayed_body(body, receive), send)

    def _transport(self, head: _Head) -> StreamableHTTPServerTransport | None:
        """The live session this request's head names, when every header check of the SDK
        passes; else ``None`` (the SDK's)."""
        if not head.session or head.version not in HANDSHAKE_PROTOCOL_VERSIONS:
            return None
        if not _json_type(head.content_type) or not _accepts(head.accept):
            return None
        if not self._door.passes(head.host, head.origin):
            return None
        manager = self.proxy.server.session_manager
        # The SDK keeps its sessions privately (a pinned minor version): id -> transport.
        transport = manager._server_instances.get(head.session)
        if transport is None or transport.is_terminated:
            return None
        idle = transport.idle_scope
        return None if idle is not None and idle.cancel_called else transport

    def _caller(self, session_id: str) -> Downstream | None:
        """The call's asker: the session's client, when its handshake is done and it asked
        for no questions to ride its requests (elicitation, sampling); else ``None``."""
        session = self.proxy.http_session(session_id)
        if session is None:
            return None
        capabilities = session.client_capabilities
        if declares(capabilities, "elicitation") or declares(capabilities, "sampling"):
            return None
        return Downstream(session)

    async def _answer(
        self,
        transport: StreamableHTTPServerTransport,
        session_id: str,
        caller: Downstream,
        request_id: int | str,
        name: str,
        arguments: JsonObject,
        receive: Receive,
        send: Send,
    ) -> None:
        key = (session_id, request_id)
        call = self._calls[key] = _Call()
        watcher = asyncio.get_running_loop().create_task(_watch(receive, call))
        head = f'{{"jsonrpc":"2.0","id":{json.dumps(request_id)},'
        try:
            with _Held(transport):
                data = await self.proxy.answer_data(name, arguments, caller)
            body = plain_result_json(data)
            if body is None:
                body = call_result(data).model_dump_json(by_alias=True, exclude_none=True)
            answer = f'{head}"result":{body}}}'
        except asyncio.CancelledError:
            if call.stopped is None:
                raise  # the server is stopping
            call.task.uncancel()
            if call.stopped is _Stop.GONE:
                return  # nobody to answer
            answer = f'{head}"error":{_CANCELLED}}}'  # as the SDK answers a cancelled request
        except Exception as exc:
            log.exception("tools/call %r failed", name)
            error = json.dumps({"code": _HANDLER_ERROR, "message": str(exc)})
            answer = f'{head}"error":{error}}}'
        finally:
            watcher.cancel()
            del self._calls[key]
        await _respond(send, answer.encode(), session_id)


class _Stop(enum.Enum):
    """Why a call on the hot path was stopped."""

    GONE = "the client disconnected"
    CANCELLED = "the client cancelled it"


class _Call:
    """A call being answered on the hot path: its task (the request's own)."""

    __slots__ = ("stopped", "task")

    def __init__(self) -> None:
        task = asyncio.current_task()
        assert task is not None  # (an ASGI app runs in a task)
        self.task = task
        self.stopped: _Stop | None = None

    def stop(self, why: _Stop) -> None:
        if self.stopped is None:
            self.stopped = why
            self.task.cancel()


class _Held:
    """The session is held while a call runs, as the SDK holds it for its requests: no idle
    countdown meanwhile; it restarts when the last request in flight ends."""

    def __init__(self, transport: StreamableHTTPServerTransport) -> None:
        self._transport = transport
        # The SDK's own bookkeeping of requests in flight (private, a pinned minor version).
        self._timeout = transport._idle_timeout

    def __enter__(self) -> None:
        transport, idle = self._transport, self._transport.idle_scope
        if idle is not None and self._timeout is not None:
            transport._requests_in_flight += 1
            idle.deadline = math.inf

    def __exit__(self, *exc: object) -> None:
        transport, idle = self._transport, self._transport.idle_scope
        if idle is not None and self._timeout is not None:
            transport._requests_in_flight -= 1
            if not transport._requests_in_flight:
                idle.deadline = anyio.current_time() + self._timeout


async def _read(receive: Receive, length: int) -> bytes | None:
    """The request's body (at most *length* bytes: the server holds it to its declared
    length); ``None`` when the client disconnected first."""
    chunks = bytearray()
    while True:
        message = await receive()
        if message.get("type") != "http.request":
            return None
        chunks.extend(body_of(message))
        if len(chunks) > length or not message.get("more_body"):
            return bytes(chunks)


async def _watch(receive: Receive, call: _Call) -> None:
    """Stop *call* when its client disconnects (its body is read: the next message can only
    be that)."""
    message = await receive()
    if message.get("type") == "http.disconnect":
        call.stop(_Stop.GONE)


async def _respond(send: Send, body: bytes, session_id: str) -> None:
    headers = [
        (b"content-type", _JSON),
        (b"content-length", str(len(body)).encode()),
        (b"mcp-session-id", session_id.encode()),
    ]
    try:
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})
    except OSError:  # the client is gone: nobody to answer
        log.debug("tools/call answer not delivered", exc_info=True)
