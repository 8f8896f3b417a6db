"""The proxy's hot path on stdio: a plain ``tools/call`` answered without the SDK's dispatch.

A call through ``hermes mcp proxy`` crosses one more process than a call to the server itself,
so the proxy's own hop has to cost little.  The SDK's server runs each request through its
dispatcher (a task, memory streams, per-request contexts, validation on the way in and out):
about 1 ms of the proxy's time per call, more than the whole direct call.  :class:`FastCalls`
takes the one request that dominates a proxy's traffic, a ``tools/call`` of a handshake-era
session that asked for no progress and no task, and answers it itself: the same
:meth:`ProxyServer.answer` the SDK's handler calls (the profile, the host's whole call
pipeline, the downstream client asked the call's questions), its result dumped as the SDK
dumps it.  Everything else (the handshake, listings, resources, prompts, a call with a
progress token or a task, any 2026-07-28 request) goes to the SDK's server unchanged, and so
does every ``notifications/cancelled``; one naming a call in flight here cancels it as the SDK
would (its upstream call is cancelled; no answer is sent).

At most :data:`MAX_IN_FLIGHT` calls run on the hot path at once: one more is answered at once
with an error saying so (the proxy keeps reading, so the client's cancels still arrive), and a
client that sends calls without end cannot fill the proxy's memory with them.

The hot path opens only after the handshake (``notifications/initialized``) and once the SDK
has given the connection's session (asked for the downstream client's answers); before that,
everything is the SDK's.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import TYPE_CHECKING

from hermes_core.json_text import compact_json
from hermes_core.json_types import JsonObject
from hermes_core.serve.proxy.downstream import Downstream
from hermes_core.serve.proxy.plain_call import plain_params
from hermes_core.serve.proxy.server import call_result, plain_result_json

if TYPE_CHECKING:
    from mcp.server.session import ServerSession

    from hermes_core.serve.proxy.server import ProxyServer

__all__ = ["MAX_IN_FLIGHT", "FastCalls"]

log = logging.getLogger(__name__)

#: What a handler's exception becomes (the SDK answers code 0 with its text, too).
_HANDLER_ERROR = 0
#: Calls in flight on the hot path at most; one more is answered with an error at once.
MAX_IN_FLIGHT = 256
#: The error code of a call refused for that (JSON-RPC's "server error" range).
_TOO_MANY = -32000


def _plain_call(raw: Mapping[str, object]) -> tuple[str, JsonObject] | None:
    """``(name, arguments)`` of a plain ``tools/call`` request, else ``None``."""
    return plain_params(raw.get("params"))


class FastCalls:
    """The read side's filter: ``__call__`` takes a message (see the module's docstring)."""

    def __init__(self, proxy: ProxyServer, send_text: Callable[[str], Awaitable[None]]) -> None:
        self.proxy = proxy
        self._send_text = send_text
        self._ready = False
        self._calls: dict[int | str, asyncio.Task[None]] = {}

    def __call__(self, raw: object) -> bool:
        """Whether *raw* (one parsed message) was taken here; ``False``: the SDK's."""
        if not isinstance(raw, dict):
            return False
        method = raw.get("method")
        if method == "tools/call":
            return self._take(raw)
        if method == "notifications/cancelled":
            params = raw.get("params")
            if isinstance(params, dict):
                self._cancel(params.get("requestId"))
        elif method == "notifications/initialized":
            self._ready = True
        elif method == "initialize" or method == "server/discover":
            self._ready = False  # a (new) handshake, or a 2026-07-28 client: the SDK's again
        return False

    def _take(self, raw: Mapping[str, object]) -> bool:
        request_id = raw.get("id")
        if not self._ready or isinstance(request_id, bool):
            return False
        if not isinstance(request_id, int | str) or request_id in self._calls:
            return False
        call = _plain_call(raw)
        session = self.proxy.latest_session()
        if call is None or session is None:
            return False
        if len(self._calls) >= MAX_IN_FLIGHT:
            message = f"too many calls in flight ({MAX_IN_FLIGHT}); retry when one has ended"
            error = json.dumps({"code": _TOO_MANY, "message": message})
            line = f'{{"jsonrpc":"2.0","id":{json.dumps(request_id)},"error":{error}}}'
            self._spawn(self._send(line))
            return True
        task = self._spawn(self._answer(request_id, *call, session))
        self._calls[request_id] = task
        task.add_done_callback(functools.partial(self._ended, request_id))
        return True

    def _ended(self, request_id: int | str, task: asyncio.Task[None]) -> None:
        if self._calls.get(request_id) is task:
            del self._calls[request_id]

    def _spawn(self, work: Coroutine[object, object, None]) -> asyncio.Task[None]:
        return asyncio.get_running_loop().create_task(work)

    def _cancel(self, request_id: object) -> None:
        if isinstance(request_id, int | str) and not isinstance(request_id, bool):
            task = self._calls.pop(request_id, None)  # (no longer in flight: the next may)
            if task is not None:
                task.cancel()

    async def _answer(
        self, request_id: int | str, name: str, arguments: JsonObject, session: ServerSession
    ) -> None:
        head = f'{{"jsonrpc":"2.0","id":{compact_json(request_id)},'
        try:
            data = await self.proxy.answer_data(name, arguments, Downstream(session))
            body = plain_result_json(data)
            if body is None:
                body = call_result(data).model_dump_json(by_alias=True, exclude_none=True)
            line = f'{head}"result":{body}}}'
        except asyncio.CancelledError:
            return  # cancelled by the client (no answer is due) or the connection ended
        except Exception as exc:
            log.exception("tools/call %r failed", name)
            error = json.dumps({"code": _HANDLER_ERROR, "message": str(exc)})
            line = f'{head}"error":{error}}}'
        await self._send(line)

    async def _send(self, line: str) -> None:
        try:
            await self._send_text(line)
        except Exception:  # the client is gone: nobody to answer
            log.debug("tools/call answer not delivered", exc_info=True)

    def close(self) -> None:
        """The connection ended: the calls still in flight are cancelled."""
        self._ready = False
        for task in list(self._calls.values()):
            task.cancel()
