"""A plain ``tools/call`` on a stdio server's pipe, without the SDK session's request machinery.

The usual call (no progress asked for, no task, a tool without an output schema, no tracing) is
the one message a host sends most.  The SDK's session builds a request model, a memory stream
per request, a tracing span and a request clock, validates the response into a model and the
host then dumps that model back to data: about half of what a proxied call costs the proxy.
:class:`RawCalls` sends the same request as one JSON line on the same pipe (the session's own
:class:`~hermes_core.host.transports.stdio.PipeSender`), with ids of its own (``"h1"``,
``"h2"``, …: strings, never numbers, so they cannot meet the session's ids), and the stdout
pump hands it the responses that carry them (:meth:`RawCalls.take`) before anything else reads
the line.  Everything else the server sends (its requests during the call, notifications,
responses to the session) goes to the session as before.

What the SDK's request does on the way out, it does too: a call cancelled by the host (its
deadline, the caller) tells the server with ``notifications/cancelled``; the connection's end
fails every call in flight with the SDK's own ``CONNECTION_CLOSED`` error, so the connection
reports it as it reports any request's; an error response raises the SDK's ``MCPError``.
What comes back is the response's ``result`` object, unvalidated: the caller checks it
(:func:`hermes_core.host.calls.render.render_raw_result`: the usual text result directly,
anything else through the SDK's ``CallToolResult`` model, as the session would have).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

from hermes_core.json_text import compact_json
from hermes_core.json_types import JsonObject, JsonValue

if TYPE_CHECKING:
    from mcp.shared.exceptions import MCPError

__all__ = ["NotPlain", "RawCalls"]


class NotPlain(Exception):
    """The call's arguments are not JSON the SDK's codec (pydantic-core) can write: nothing was
    sent; the SDK's session takes the call instead (and fails it as it would)."""


def _closed() -> MCPError:
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    return MCPError(code=CONNECTION_CLOSED, message="Connection closed")


class RawCalls:
    """Plain ``tools/call`` requests on one server process's pipe (see the module)."""

    __slots__ = ("_closed", "_next", "_pending", "_send")

    def __init__(self, send: Callable[[str], Awaitable[None]]) -> None:
        self._send = send
        self._pending: dict[str, asyncio.Future[JsonObject]] = {}
        self._next = 0
        self._closed = False

    @property
    def waiting(self) -> bool:
        """Whether a call is waiting for its response (the pump looks only then)."""
        return bool(self._pending)

    @property
    def closed(self) -> bool:
        return self._closed

    async def tools_call(self, tool: str, arguments: Mapping[str, object]) -> JsonObject:
        """``tools/call`` of *tool*: the response's ``result`` object."""
        if self._closed:
            raise _closed()
        self._next += 1
        request_id = f"h{self._next}"
        params = {"name": tool, "arguments": arguments}
        request = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
        try:
            line = compact_json(request)
        except (TypeError, ValueError):
            raise NotPlain from None  # (an object no codec writes: the SDK's way says so)
        answer: asyncio.Future[JsonObject] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = answer
        try:
            await self._send(line)
            response = await answer
        except asyncio.CancelledError:
            if self._pending.pop(request_id, None) is not None and not self._closed:
                self._cancel(request_id)
            raise
        finally:
            self._pending.pop(request_id, None)
        return _result_of(response)

    def _cancel(self, request_id: str) -> None:
        """Tell the server a call was abandoned (as the SDK's session does), without waiting."""
        params: JsonObject = {"requestId": request_id, "reason": "caller cancelled"}
        note = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}
        sending = asyncio.ensure_future(self._send(compact_json(note)))
        sending.add_done_callback(_quiet)

    def take(self, message: JsonValue, *, after_others: bool = False) -> bool:
        """Whether *message* (one line of the server's, parsed) answers a call here: a
        JSON-RPC response with one of these ids and a ``result`` or ``error`` object.

        *after_others*: the server sent the session other messages since (a
        ``tools/list_changed`` before its answer, say); the answer is then handed over a few
        loop turns later, once the session's handlers for them have started, as the SDK's
        session orders them (its handlers run before a waiting request resumes)."""
        if type(message) is not dict or "method" in message:
            return False
        request_id = message.get("id")
        if type(request_id) is not str or message.get("jsonrpc") != "2.0":
            return False
        if type(message.get("result")) is not dict and type(message.get("error")) is not dict:
            return False
        answer = self._pending.pop(request_id, None)
        if answer is None:
            return False
        if after_others:
            answer.get_loop().call_soon(_hand_over, answer, message, _HANDLER_TURNS)
        elif not answer.done():
            answer.set_result(message)
        return True

    def close(self) -> None:
        """The connection ended: every call in flight fails as the SDK's would."""
        self._closed = True
        pending, self._pending = self._pending, {}
        for answer in pending.values():
            if not answer.done():
                answer.set_exception(_closed())


#: Loop turns an answer waits behind the session's messages: the session's reader takes one,
#: the handler task it starts runs its first step in the next.
_HANDLER_TURNS = 3


def _hand_over(answer: asyncio.Future[JsonObject], message: JsonObject, turns: int) -> None:
    if turns > 1:
        answer.get_loop().call_soon(_hand_over, answer, message, turns - 1)
    elif not answer.done():
        answer.set_result(message)


def _quiet(sending: asyncio.Future[None]) -> None:
    if not sending.cancelled():
        sending.exception()  # (the pipe broke: the connection's end says so)


def _result_of(response: JsonObject) -> JsonObject:
    result = response.get("result")
    if type(result) is dict:
        return result
    from mcp.shared.exceptions import MCPError
    from mcp_types import ErrorData

    error = ErrorData.model_validate(response.get("error"))
    raise MCPError(code=error.code, message=error.message, data=error.data)
