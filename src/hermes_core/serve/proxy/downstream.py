"""The downstream client of ``hermes mcp proxy`` as the host's elicitor.

The host asks questions through one :data:`~hermes_core.offers.elicitation.Elicitor`: an
upstream server's ``elicitation/create``, and the approval of a write-capable tool of an
untrusted server.  Behind the proxy, the person to ask is the downstream client's user, so
:class:`DownstreamElicitor` sends the question to the client whose call it belongs to, when
that client declared the elicitation capability (form mode).  A client that did not, or a
question that belongs to no call, is declined: an approval then fails closed ("not run").

The approval is asked in the call's own task (:data:`current_downstream`); an upstream
server's question arrives on the host's session task, so it goes to the client with a call
in flight to that server (the latest one, when several are).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol, TypeAlias, runtime_checkable

import mcp_types as types
from mcp.shared.message import ServerMessageMetadata

from hermes_core.offers.elicitation import ElicitationAnswer, ElicitationRequest

if TYPE_CHECKING:
    from mcp.server.session import ServerSession

__all__ = [
    "Asker",
    "Downstream",
    "DownstreamElicitor",
    "Sampler",
    "SamplingAnswer",
    "answer_of",
    "current_downstream",
    "declares",
    "form_schema",
]

log = logging.getLogger(__name__)
SamplingAnswer: TypeAlias = "types.CreateMessageResult | types.CreateMessageResultWithTools"
"""A client's answer to a sampling request."""


class Asker(Protocol):
    """Whoever a call's questions go to: a downstream MCP client, a warm host's CLI client."""

    @property
    def can_elicit(self) -> bool: ...

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer: ...


@runtime_checkable
class Sampler(Protocol):
    """A caller that can answer an upstream server's sampling requests itself."""

    @property
    def can_sample(self) -> bool: ...

    async def sample(
        self, params: types.CreateMessageRequestParams, timeout: float
    ) -> SamplingAnswer: ...


class Downstream:
    """One downstream request's client: its session and what it declared.  *request_id*:
    the request's own id, so that a question rides that request's stream (Streamable HTTP);
    ``None``: the connection's own channel (stdio)."""

    def __init__(self, session: ServerSession, request_id: types.RequestId | None = None) -> None:
        self.session = session
        self.request_id = request_id

    @property
    def can_elicit(self) -> bool:
        return declares(self.session.client_capabilities, "elicitation")

    @property
    def can_sample(self) -> bool:
        return declares(self.session.client_capabilities, "sampling")

    def _metadata(self) -> ServerMessageMetadata | None:
        if self.request_id is None:
            return None
        return ServerMessageMetadata(related_request_id=self.request_id)

    async def sample(
        self, params: types.CreateMessageRequestParams, timeout: float
    ) -> SamplingAnswer:
        """Send *params* to the client; its result."""
        request = types.CreateMessageRequest(params=params)
        metadata = self._metadata()
        if params.tools:
            return await self.session.send_request(
                request,
                types.CreateMessageResultWithTools,
                request_read_timeout_seconds=timeout,
                metadata=metadata,
            )
        return await self.session.send_request(
            request,
            types.CreateMessageResult,
            request_read_timeout_seconds=timeout,
            metadata=metadata,
        )

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        answer = await self.session.elicit_form(
            request.message, form_schema(request), related_request_id=self.request_id
        )
        return answer_of(answer)


def declares(capabilities: types.ClientCapabilities | None, name: str) -> bool:
    """Whether a client's *capabilities* (``ClientCapabilities`` or ``None``) declare *name*."""
    return capabilities is not None and getattr(capabilities, name, None) is not None


def form_schema(request: ElicitationRequest) -> dict[str, object]:
    """The ``requestedSchema`` of a form question to a downstream client."""
    schema: dict[str, object] = (
        dict(request.schema) if request.schema else {"type": "object", "properties": {}}
    )
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    return schema


def answer_of(result: types.ElicitResult) -> ElicitationAnswer:
    """A downstream client's ``ElicitResult`` as the host's answer."""
    if result.action == "accept":
        return ElicitationAnswer("accept", dict(result.content or {}))
    return ElicitationAnswer("cancel" if result.action == "cancel" else "decline")


current_downstream: contextvars.ContextVar[Asker | None] = contextvars.ContextVar(
    "hermes_proxy_downstream", default=None
)


class DownstreamElicitor:
    """The host's elicitor behind the proxy (see the module's docstring)."""

    def __init__(self) -> None:
        self.active: dict[str, list[Asker]] = {}
        """Server -> the downstream callers with a call in flight to it (oldest first)."""

    @contextlib.contextmanager
    def calling(self, server: str, caller: Asker) -> Iterator[None]:
        """*caller* has a call in flight to *server* (and is the one to ask) meanwhile."""
        callers = self.active.setdefault(server, [])
        callers.append(caller)
        token = current_downstream.set(caller)
        try:
            yield
        finally:
            current_downstream.reset(token)
            callers.remove(caller)
            if not callers:
                self.active.pop(server, None)

    def caller_for(self, server: str) -> Asker | None:
        """Who a question of *server* goes to: the call's own caller when asked in its task,
        else the latest caller with a call in flight to *server*; ``None``: nobody."""
        target = current_downstream.get()
        if target is None:
            callers = self.active.get(server)
            target = callers[-1] if callers else None
        return target

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        target = self.caller_for(request.server)
        if target is None or not target.can_elicit:
            why = "no downstream caller" if target is None else "it cannot elicit"
            log.info("MCP server '%s': question declined (%s)", request.server, why)
            return ElicitationAnswer("decline")
        return await target.elicit(request)
