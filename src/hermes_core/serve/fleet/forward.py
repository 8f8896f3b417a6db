"""One HTTP request handed to the replica that owns its session or held call.

The request goes as it came (method, path, query, headers with the client's bearer token, the
body already read), marked :data:`FORWARDED_HEADER` so the owner serves it itself and never
forwards it again; the owner's answer streams back as it comes (an SSE stream of server-to-
client messages too).  The owner checks the token as for any request: a forward grants
nothing a direct request would not.  The client going away closes the forwarded request.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
from typing import TYPE_CHECKING

from hermes_core.serve.http_auth import Receive, Scope, Send, header_pairs, scope_text

if TYPE_CHECKING:
    import httpx2

__all__ = ["FORWARDED_HEADER", "Forwarded", "Forwarder"]

log = logging.getLogger(__name__)
FORWARDED_HEADER = b"x-hermes-forwarded"
_HOP = {
    b"connection",
    b"keep-alive",
    b"transfer-encoding",
    b"te",
    b"upgrade",
    b"proxy-authorization",
    b"host",
    b"content-length",
    FORWARDED_HEADER,
}
_HOP_ANSWER = _HOP | {b"date", b"server"}
"""Also dropped from an answer: the server sending it to the client sets its own."""
CONNECT_SECONDS = 2.0
#: How long a forward waits for a free connection to its owner before it is answered 503.
POOL_SECONDS = 10.0
MAX_FORWARDS = 2048


class Forwarded(enum.Enum):
    SENT = "sent"
    """The owner's answer went to the client."""
    UNREACHABLE = "unreachable"
    """The owner could not be reached (nothing was sent: the caller answers)."""
    BUSY = "busy"
    """Every connection to the owner is in use (nothing was sent: the caller answers 503)."""


class Forwarder:
    """Forwards requests to other replicas over one pooled HTTP client."""

    def __init__(self, replica: str) -> None:
        self.replica = replica
        self._client: httpx2.AsyncClient | None = None

    def _http(self) -> httpx2.AsyncClient:
        if self._client is None:
            import httpx2

            self._client = httpx2.AsyncClient(
                timeout=httpx2.Timeout(None, connect=CONNECT_SECONDS, pool=POOL_SECONDS),
                limits=httpx2.Limits(max_connections=MAX_FORWARDS, max_keepalive_connections=64),
                trust_env=False,
            )
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def forward(
        self, address: str, scope: Scope, body: bytes, receive: Receive, send: Send
    ) -> Forwarded:
        """Send the request to *address* and its answer to *send*."""
        import httpx2

        raw_path, query = scope.get("raw_path"), scope.get("query_string")
        path = raw_path if isinstance(raw_path, bytes) else scope_text(scope, "path", "/").encode()
        query = query if isinstance(query, bytes) else b""
        url = f"http://{address}{path.decode('latin-1')}" + (
            f"?{query.decode('latin-1')}" if query else ""
        )
        headers = [(k, v) for k, v in header_pairs(scope) if k.lower() not in _HOP]
        headers.append((FORWARDED_HEADER, self.replica.encode()))
        client = self._http()
        request = client.build_request(
            scope_text(scope, "method", "GET"), url, headers=headers, content=body
        )
        try:
            response = await client.send(request, stream=True)
        except httpx2.PoolTimeout:
            log.warning("every connection to the replica %s is in use", address)
            return Forwarded.BUSY
        except httpx2.HTTPError as exc:
            log.info("the owning replica %s is unreachable: %s", address, exc)
            return Forwarded.UNREACHABLE
        gone = asyncio.get_running_loop().create_task(_client_gone(receive))
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": response.status_code,
                    "headers": [
                        (k.lower(), v) for k, v in response.headers.raw if k.lower() not in _HOP
                    ],
                }
            )
            chunks = response.aiter_raw().__aiter__()
            while True:
                step = asyncio.ensure_future(chunks.__anext__())
                await asyncio.wait({step, gone}, return_when=asyncio.FIRST_COMPLETED)
                if not step.done():  # the client went: stop reading the owner's answer
                    step.cancel()
                    with contextlib.suppress(BaseException):
                        await step
                    break
                try:
                    chunk = step.result()
                except StopAsyncIteration:
                    break
                except httpx2.HTTPError as exc:
                    log.info("the owning replica %s stopped answering: %s", address, exc)
                    break
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            gone.cancel()
            await response.aclose()
        return Forwarded.SENT


async def _client_gone(receive: Receive) -> None:
    while (await receive()).get("type") != "http.disconnect":
        pass
