"""A 2026-07-28 downstream client's questions, as ``input_required`` rounds.

On the 2026-07-28 revision a server sends its client no requests: a call that needs the
client's input returns an ``InputRequiredResult`` (the questions, keyed, and an opaque
``requestState``), and the client calls again with the answers (``inputResponses``) and that
state.  Behind the proxy the questions come from the host while the call is running: an
upstream server's elicitation or sampling request, or the approval of a write-capable tool of
an untrusted server.  So a modern client's call runs in its own task, asked through a
:class:`RoundAsker`; when it asks, the downstream request is answered with the questions and
the call is *held* under a fresh random ``requestState``.  The retry carrying that state
(for the same tool and arguments) hands the answers to the waiting questions and waits again,
for the result or the next questions.

Bounds: a held call whose retry does not come within :data:`HOLD_SECONDS` is cancelled
(its upstream call too; an approval it waited on fails closed); at most :data:`MAX_HELD`
calls are held per proxy, and a question beyond that is declined; a state that is unknown,
expired, used already, or sent with another tool or other arguments is an error
(``INVALID_PARAMS``), never a way into somebody else's call.  A cancelled downstream request
cancels its call.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import TypeAlias, TypeVar

import mcp_types as types
from mcp.shared.exceptions import MCPError

from hermes_core.offers.elicitation import DEFAULT_TIMEOUT, ElicitationAnswer, ElicitationRequest
from hermes_core.serve.proxy.downstream import SamplingAnswer, answer_of, declares, form_schema

__all__ = ["HOLD_SECONDS", "MAX_HELD", "HeldCalls", "RoundAsker"]

log = logging.getLogger(__name__)
INVALID_PARAMS = -32602
#: How long a held call waits for the client's retry (the time a person gets to answer).
HOLD_SECONDS = DEFAULT_TIMEOUT
#: How many calls one proxy holds at once.
MAX_HELD = 64
_Request: TypeAlias = "types.ElicitRequest | types.CreateMessageRequest | types.ListRootsRequest"
_Answer: TypeAlias = "types.ElicitResult | SamplingAnswer | types.ListRootsResult"
_T = TypeVar("_T")


@dataclass
class _Question:
    request: _Request
    expects: tuple[type, ...]
    answer: asyncio.Future[_Answer | None]


class RoundAsker:
    """One modern call's caller: its questions wait for the client's next retry."""

    def __init__(self, capabilities: types.ClientCapabilities | None) -> None:
        self.capabilities = capabilities
        self.unsent: dict[str, _Question] = {}
        self.sent: dict[str, _Question] = {}
        self.asked = asyncio.Event()
        self._count = 0

    @property
    def can_elicit(self) -> bool:
        return declares(self.capabilities, "elicitation")

    @property
    def can_sample(self) -> bool:
        return declares(self.capabilities, "sampling")

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        params = types.ElicitRequestFormParams(
            message=request.message, requested_schema=form_schema(request)
        )
        answer = await self._ask(types.ElicitRequest(params=params), (types.ElicitResult,))
        if not isinstance(answer, types.ElicitResult):
            return ElicitationAnswer("decline")
        return answer_of(answer)

    async def sample(
        self, params: types.CreateMessageRequestParams, timeout: float
    ) -> SamplingAnswer:
        expects = (types.CreateMessageResult, types.CreateMessageResultWithTools)
        answer = await self._ask(types.CreateMessageRequest(params=params), expects)
        if not isinstance(answer, expects):
            raise RuntimeError("the client sent no answer that fits the sampling request")
        return answer

    async def _ask(self, request: _Request, expects: tuple[type, ...]) -> _Answer | None:
        self._count += 1
        question = _Question(request, expects, asyncio.get_running_loop().create_future())
        self.unsent[f"q{self._count}"] = question
        self.asked.set()
        return await question.answer

    def answer(self, responses: Mapping[str, _Answer] | None) -> None:
        """Hand the retry's *responses* to the questions sent; one left unanswered is asked
        again in the next round."""
        for key, response in (responses or {}).items():
            question = self.sent.pop(key, None)
            if question is not None and not question.answer.done():
                fits = isinstance(response, question.expects)
                question.answer.set_result(response if fits else None)
        self.unsent = {**self.sent, **self.unsent}
        self.sent = {}

    def decline_all(self) -> None:
        for question in [*self.unsent.values(), *self.sent.values()]:
            if not question.answer.done():
                question.answer.set_result(None)
        self.unsent, self.sent = {}, {}


@dataclass
class _Held:
    name: str
    arguments: Mapping[str, object]
    asker: RoundAsker
    task: asyncio.Task[types.CallToolResult]
    expiry: asyncio.TimerHandle | None = field(default=None)


def _retrieve(task: asyncio.Task[_T]) -> None:
    """A held call that ends with nobody waiting (expired) leaves no unretrieved error."""
    if not task.cancelled():
        task.exception()


class HeldCalls:
    """The modern calls waiting for their clients' answers, by ``requestState``."""

    def __init__(self) -> None:
        self._held: dict[str, _Held] = {}
        self.on_hold: Callable[[str], Awaitable[None]] | None = None
        """Told each new ``requestState`` before it is answered (a fleet claims it)."""
        self.on_release: Callable[[str], None] | None = None
        """Told each state that is no longer held (retried, expired)."""

    def __len__(self) -> int:
        return len(self._held)

    def holds(self, state: str) -> bool:
        return state in self._held

    def states(self) -> list[str]:
        """The ``requestState`` of each call held now."""
        return list(self._held)

    async def start(
        self,
        name: str,
        arguments: Mapping[str, object],
        asker: RoundAsker,
        run: Coroutine[object, object, types.CallToolResult],
    ) -> types.CallToolResult | types.InputRequiredResult:
        """Run *run* (the call, asking *asker*); its result, or the first questions."""
        task = asyncio.get_running_loop().create_task(run)
        task.add_done_callback(_retrieve)
        return await self._settle(_Held(name, arguments, asker, task))

    async def resume(
        self,
        name: str,
        arguments: Mapping[str, object],
        state: str,
        responses: Mapping[str, _Answer] | None,
    ) -> types.CallToolResult | types.InputRequiredResult:
        """The retry of a held call: its answers given, its result or the next questions."""
        held = self._held.get(state)
        if held is None or held.name != name or held.arguments != arguments:
            raise MCPError(INVALID_PARAMS, "unknown or expired requestState for this call")
        del self._held[state]
        self._released(state)
        if held.expiry is not None:
            held.expiry.cancel()
        held.asker.answer(responses)
        return await self._settle(held)

    async def _settle(self, held: _Held) -> types.CallToolResult | types.InputRequiredResult:
        asker, task = held.asker, held.task
        try:
            while True:
                if not asker.unsent:
                    asker.asked.clear()
                    asked = asyncio.ensure_future(asker.asked.wait())
                    try:
                        await asyncio.wait({task, asked}, return_when=asyncio.FIRST_COMPLETED)
                    finally:
                        asked.cancel()
                if task.done():
                    return task.result()
                if not asker.unsent:
                    continue
                if len(self._held) >= MAX_HELD:
                    log.warning("%d calls wait for their clients' answers: declined", MAX_HELD)
                    asker.decline_all()
                    continue
                result = self._hold(held)
                if self.on_hold is not None and result.request_state is not None:
                    await self.on_hold(result.request_state)
                return result
        except asyncio.CancelledError:
            task.cancel()  # the client cancelled its request (or the connection went)
            raise

    def _hold(self, held: _Held) -> types.InputRequiredResult:
        state = secrets.token_urlsafe(24)
        asker = held.asker
        asker.sent, asker.unsent = asker.unsent, {}
        self._held[state] = held
        held.expiry = asyncio.get_running_loop().call_later(HOLD_SECONDS, self._expire, state)
        requests = {key: question.request for key, question in asker.sent.items()}
        return types.InputRequiredResult(input_requests=requests, request_state=state)

    def _expire(self, state: str) -> None:
        held = self._held.pop(state, None)
        if held is not None:
            self._released(state)
            log.info("a held call of %r was not retried in time: cancelled", held.name)
            held.asker.decline_all()
            held.task.cancel()

    def _released(self, state: str) -> None:
        if self.on_release is not None:
            self.on_release(state)

    def close(self) -> None:
        for held in self._held.values():
            if held.expiry is not None:
                held.expiry.cancel()
            held.task.cancel()
        self._held.clear()
