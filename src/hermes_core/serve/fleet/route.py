"""Which replica answers a request: this one, or the owner of its session or held call.

Each profile's ASGI app is wrapped in a :class:`FleetRoute`.  A request naming a 2025-11-25
``Mcp-Session-Id`` this replica did not create is looked up on the bus: the owner alive, it is
forwarded there (:mod:`.forward`); the owner gone (killed, its heartbeat expired), the answer
is 404 *Session not found* with the reason, and the client starts a new session.  A
2026-07-28 ``tools/call`` carrying a ``requestState`` this replica does not hold goes to the
replica holding that call the same way; the holder gone, the answer is an error saying the
call was not completed and its question was never answered.  A session or a call belongs to
one profile: looked up under another profile's token, it is unknown (no forward, nothing
learned).  A session created here (the ``Mcp-Session-Id`` of an ``initialize`` answer) is
claimed on the bus; a ``DELETE`` releases it.
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from hermes_core.host.fleet.bus import SESSION_SECONDS, FleetBus, Ownership
from hermes_core.json_types import JsonObject, JsonValue
from hermes_core.serve.fleet.forward import FORWARDED_HEADER, Forwarded, Forwarder
from hermes_core.serve.http_auth import (
    App,
    Message,
    Receive,
    Scope,
    Send,
    body_of,
    header_pairs,
    replayed_body,
)

__all__ = ["MAX_BODY", "FleetRoute", "request_state"]

log = logging.getLogger(__name__)
#: A POST body read to find its ``requestState`` (a larger one is refused: 413).
MAX_BODY = 4 * 1024 * 1024
_SESSION = b"mcp-session-id"
_MAX_MINE = 65536
INVALID_PARAMS = -32602
_BUSY = "the replica that owns this request is busy; try again"


def request_state(body: bytes) -> tuple[JsonValue, str] | None:
    """``(id, requestState)`` of a ``tools/call`` request in a JSON-RPC POST *body*."""
    if b"requestState" not in body:
        return None
    try:
        message = json.loads(body)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return None
    params = message.get("params")
    state = params.get("requestState") if isinstance(params, dict) else None
    return (message.get("id"), state) if isinstance(state, str) else None


class FleetRoute:
    """A profile's app (*app*), with requests owned elsewhere sent to their owner."""

    def __init__(
        self,
        app: App,
        bus: FleetBus,
        forwarder: Forwarder,
        profile: str,
        holds: Callable[[str], bool],
    ) -> None:
        """*holds(state)*: whether this replica's proxy holds the call *state* names."""
        self.app = app
        self.bus = bus
        self.forwarder = forwarder
        self.profile = profile
        self.holds = holds
        self._mine: OrderedDict[str, None] = OrderedDict()
        """The sessions created here (the newest last)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        headers = list(header_pairs(scope))
        sessions = [v for k, v in headers if k.lower() == _SESSION]
        session = sessions[0].decode("latin-1") if len(sessions) == 1 else None
        if any(k.lower() == FORWARDED_HEADER for k, _ in headers):
            # A peer's forward: served here, always (never forwarded again).
            await self._local(session if session in self._mine else None, scope, receive, send)
            return
        if session is not None and session not in self._mine:
            await self._elsewhere(session, scope, receive, send)
            return
        if session is None and scope.get("method") == "POST":
            body = await _body(receive)
            if body is None:
                await _answer(send, 413, {"error": "request body too large"})
                return
            found = request_state(body)
            if found is not None and not self.holds(found[1]):
                await self._held_elsewhere(found, body, scope, receive, send)
                return
            receive = replayed_body(body, receive)
        await self._local(session, scope, receive, send)

    async def _local(self, session: str | None, scope: Scope, receive: Receive, send: Send) -> None:
        """Served here; a session created by this request is claimed, a deleted one released."""
        if session is not None:
            if scope.get("method") == "DELETE":
                self._mine.pop(session, None)
                await _quietly(self.bus.release("session", session))
            else:
                await _quietly(self.bus.keep("session", session, self.profile, SESSION_SECONDS))
            await self.app(scope, receive, send)
            return

        async def claiming(message: Message) -> None:
            if message.get("type") == "http.response.start":
                for key, value in header_pairs(message):
                    if key.lower() == _SESSION:
                        created = value.decode("latin-1")
                        self._remember(created)
                        await _quietly(
                            self.bus.claim("session", created, self.profile, SESSION_SECONDS)
                        )
            await send(message)

        await self.app(scope, receive, claiming)

    def sessions(self) -> list[str]:
        """The sessions created here (a bus that lost its keys is told them again)."""
        return list(self._mine)

    def _remember(self, session: str) -> None:
        self._mine[session] = None
        while len(self._mine) > _MAX_MINE:
            self._mine.popitem(last=False)

    async def _elsewhere(self, session: str, scope: Scope, receive: Receive, send: Send) -> None:
        owner = await self.bus.owner("session", session, self.profile)
        if owner.state is Ownership.UNREACHABLE:
            await _answer(
                send, 503, _error(None, -32603, "the fleet's bus is unreachable; try again")
            )
            return
        if owner.state is Ownership.REMOTE and owner.address is not None:
            body = await _body(receive) if scope.get("method") == "POST" else b""
            if body is None:
                await _answer(send, 413, {"error": "request body too large"})
                return
            done = await self.forwarder.forward(owner.address, scope, body, receive, send)
            if done is Forwarded.SENT:
                return
            if done is Forwarded.BUSY:
                await _answer(send, 503, _error(None, -32603, _BUSY))
                return
        if owner.state in (Ownership.REMOTE, Ownership.GONE):
            message = (
                "Session not found: the replica that held it is gone "
                "(its calls in flight were lost); start a new session"
            )
            await _answer(send, 404, _error("server-error", -32600, message))
            return
        await self.app(scope, receive, send)  # ours, or unknown: the local app answers

    async def _held_elsewhere(
        self, found: tuple[JsonValue, str], body: bytes, scope: Scope, receive: Receive, send: Send
    ) -> None:
        request_id, state = found
        owner = await self.bus.owner("held", state, self.profile)
        if owner.state is Ownership.REMOTE and owner.address is not None:
            done = await self.forwarder.forward(owner.address, scope, body, receive, send)
            if done is Forwarded.SENT:
                return
            if done is Forwarded.BUSY:
                await _answer(send, 503, _error(request_id, -32603, _BUSY))
                return
        if owner.state in (Ownership.REMOTE, Ownership.GONE):
            text = (
                "the replica holding this call is gone: the call was not completed and its "
                "question was not answered; start the call again"
            )
        elif owner.state is Ownership.UNREACHABLE:
            text = "the fleet's bus is unreachable: this held call cannot be found now; try again"
        else:
            await self.app(scope, replayed_body(body, receive), send)  # "unknown or expired"
            return
        await _answer(send, 200, _error(request_id, INVALID_PARAMS, text))


def _error(request_id: JsonValue, code: int, message: str) -> JsonObject:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


async def _quietly(step: Awaitable[None]) -> None:
    """A bus write that may fail: the request is served anyway (logged)."""
    try:
        await step
    except Exception as exc:  # noqa: BLE001 - the bus or a peer failing never ends the replica
        log.warning("the fleet's bus was not updated: %s", str(exc).splitlines()[0][:200])


async def _body(receive: Receive) -> bytes | None:
    """The whole request body (``None``: longer than :data:`MAX_BODY`)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message.get("type") != "http.request":
            break
        chunk = body_of(message)
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


async def _answer(send: Send, status: int, payload: JsonObject) -> None:
    body = json.dumps(payload).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
