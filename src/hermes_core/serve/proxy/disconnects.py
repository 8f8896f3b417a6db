"""A downstream HTTP client that goes mid-call cancels the call (``hermes mcp proxy --http``).

The SDK's Streamable HTTP server keeps running a request whose client disconnected (the
revision lets a client resume a stream, and says a disconnect is not a cancel).  The proxy
keeps no event store, so nobody could ever read that answer, while the upstream call behind
it runs on (a paid API, a long write, a slot in a server that runs one call at a time).
:class:`CancelOnDisconnect` wraps a profile's ASGI app: it reads along the POST body it passes
on (up to :data:`MAX_WATCHED_BYTES`), notes whether the answer was sent to its end, and when
the client went first, it hands the same app a ``notifications/cancelled`` for each request
that POST carried, on the same session with the same headers, as the client would have sent
it: the SDK cancels the handler, and the host's call pipeline cancels the upstream call.
"""

from __future__ import annotations

import json
import logging

from hermes_core.json_types import JsonObject
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

__all__ = ["MAX_WATCHED_BYTES", "CancelOnDisconnect", "request_ids"]

log = logging.getLogger(__name__)
#: A POST body longer than this is passed on unread (its requests are not cancelled on a
#: disconnect); the SDK's own body limit applies to it as always.
MAX_WATCHED_BYTES = 1024 * 1024


def request_ids(body: bytes) -> list[tuple[int | str, JsonObject | None]]:
    """The ``(id, _meta)`` of each request in a JSON-RPC POST body (one message or a batch)."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return []
    messages = parsed if isinstance(parsed, list) else [parsed]
    found = []
    for message in messages:
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            continue
        request_id = message.get("id")
        if isinstance(request_id, bool) or not isinstance(request_id, int | str):
            continue
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        found.append((request_id, meta if isinstance(meta, dict) else None))
    return found


class CancelOnDisconnect:
    """ASGI middleware (see the module's docstring)."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        body = bytearray()
        state = {"answered": False, "gone": False}

        async def watched_receive() -> Message:
            message = await receive()
            kind = message.get("type")
            if kind == "http.request" and len(body) <= MAX_WATCHED_BYTES:
                body.extend(body_of(message))
            elif kind == "http.disconnect" and not state["answered"]:
                state["gone"] = True
            return message

        async def watched_send(message: Message) -> None:
            if message.get("type") == "http.response.body" and not message.get("more_body"):
                state["answered"] = True
            await send(message)

        try:
            await self.app(scope, watched_receive, watched_send)
        finally:
            if state["gone"] and not state["answered"] and len(body) <= MAX_WATCHED_BYTES:
                await self._cancel(scope, bytes(body))

    async def _cancel(self, scope: Scope, body: bytes) -> None:
        for request_id, meta in request_ids(body):
            params: JsonObject = {"requestId": request_id, "reason": "client disconnected"}
            if meta is not None and any(key.startswith("io.modelcontextprotocol/") for key in meta):
                params["_meta"] = meta  # a 2026-07-28 request's envelope goes with its cancel
            notice = json.dumps(
                {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}
            ).encode()
            try:
                await self.app(_scope_for(scope, len(notice)), replayed_body(notice), _discard)
            except Exception:
                log.debug("cancel after a disconnect not delivered", exc_info=True)


def _scope_for(scope: Scope, length: int) -> Scope:
    headers = [(k, v) for k, v in header_pairs(scope) if k.lower() != b"content-length"]
    headers.append((b"content-length", str(length).encode()))
    return {**scope, "headers": headers}


async def _discard(message: Message) -> None:
    return None
