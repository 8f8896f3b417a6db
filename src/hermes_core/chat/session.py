"""One ``hermes chat`` conversation on an ``llm`` model: a turn streams the model's answer and
runs the tools it calls through the host's call pipeline, round after round, until it answers
without calling one.

``llm`` (and the model's plugin) is imported when a session starts, never at the CLI's
start-up.  The model gets the host's offered tools as ``llm.Tool`` objects without an
implementation: ``llm`` never runs them, :class:`ChatSession` does (``MCPHost.call_tool``,
so the gates, trust approvals, elicitation and deadlines apply), and sends the results back
as ``tool_results``.  A tool's failure is the tool's result (its error text), never the end
of the session.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol, cast

from hermes_core.chat.offering import SEARCH_TOOL, ToolOffer
from hermes_core.host.calls.refusals import CallState, unknown_tool
from hermes_core.host.calls.result_text import render_text

if TYPE_CHECKING:
    import llm

    from hermes_core.host.host import MCPHost

__all__ = [
    "MAX_TOOL_ROUNDS",
    "UNSEEN_MEDIA",
    "ChatError",
    "ChatOutput",
    "ChatSession",
    "load_model",
    "result_text",
]

#: Tool-calling rounds in one turn before the turn is stopped.
MAX_TOOL_ROUNDS = 10
#: The longest tool result sent to the model (characters); longer ones are cut.
MAX_RESULT_CHARS = 100_000

#: What the model is told after a result that held an image or audio (the one sentence of
#: the door that cannot offer it).
UNSEEN_MEDIA = (
    "(hermes chat gives the model a one-line description of each image and audio clip, "
    "never its data.)"
)

SYSTEM_PROMPT = (
    "You are Hermes, an assistant with tools from MCP servers. Use the tools when they help "
    "answer; say so when a tool fails."
)

Recorder = Callable[[str, str], None]
"""``record(role, text)``: keeps a message of the conversation (``state.db``)."""


class ChatError(Exception):
    """The model cannot be used (unknown, or it needs a key): the message says what to do."""


class ChatOutput(Protocol):
    """Where a session shows what happens (the terminal)."""

    def text(self, chunk: str) -> None: ...

    def end_of_answer(self) -> None: ...

    def tool_call(self, name: str, arguments: Mapping[str, object]) -> None: ...

    def tool_result(self, name: str, text: str, failed: bool) -> None: ...

    def progress(self, progress: float, total: float | None, message: str | None) -> None: ...

    def notice(self, text: str) -> None: ...


def result_text(result: Mapping[str, object]) -> tuple[str, bool]:
    """A host result as the model reads it, and whether it is a failure: the text every door
    shows (:mod:`hermes_core.host.calls.result_text`: text content, images and audio as one
    line each, the structured content when no block is text, the host's error as ``error:
    …``), and :data:`UNSEEN_MEDIA` after it when it held an image or audio."""
    shown = render_text(result)
    text = shown.text
    if len(text) > MAX_RESULT_CHARS:
        text = text[:MAX_RESULT_CHARS] + f"\n[cut: the result was {len(text)} characters]"
    if shown.media:
        text += f"\n{UNSEEN_MEDIA}"
    return text, shown.failed


def load_model(model_id: str | None) -> llm.AsyncModel:
    """``llm``'s async model *model_id* (``None``: ``llm``'s default model), ready to use;
    :class:`ChatError` when it is unknown or its key is missing."""
    import llm

    try:
        model = llm.get_async_model(model_id) if model_id else llm.get_async_model()
    except llm.UnknownModelError as exc:
        raise ChatError(
            f"unknown model {model_id!r}: `llm models` lists the installed ones "
            f"(add providers with `llm install llm-anthropic`, `llm-gemini`, `llm-ollama` …)"
        ) from exc
    try:
        model.get_key()
    except llm.NeedsKeyException as exc:
        raise ChatError(f"model {model.model_id!r}: {exc}") from exc
    return model


class ChatSession:
    """A conversation with one model at a time, over the tools *offer* gives it."""

    def __init__(
        self,
        host: MCPHost,
        offer: ToolOffer,
        model_id: str | None,
        output: ChatOutput,
        *,
        record: Recorder | None = None,
        system: str = SYSTEM_PROMPT,
        max_rounds: int = MAX_TOOL_ROUNDS,
    ) -> None:
        self._host = host
        self._offer = offer
        self._out = output
        self._record = record
        self._system = system
        self._max_rounds = max_rounds
        self._model = load_model(model_id)
        self._conversation = self._model.conversation()
        self._history: list[object] = []
        """The earlier turns, sent once to a model switched to (``/model``)."""
        self.tokens = (0, 0)
        """Input and output tokens so far, as the model reported them."""

    @property
    def model_id(self) -> str:
        return str(self._model.model_id)

    async def switch_model(self, model_id: str) -> None:
        """Talk to *model_id* from now on; it is sent the conversation so far."""
        model = load_model(model_id)
        history = self._history  # nothing said since the last switch: the same history
        if self._conversation.responses:
            # An async conversation's responses are AsyncResponses.
            last = cast("llm.AsyncResponse", self._conversation.responses[-1])
            history = [*last.prompt.messages, *(await last.messages())]
        self._model, self._conversation = model, model.conversation()
        self._history = history

    def _tools(self) -> list[llm.models.ToolDef]:
        import llm

        return [
            llm.Tool(
                name=str(s["name"]),
                description=str(s["description"]) or None,
                input_schema=dict(s["input_schema"]),
            )
            for s in self._offer.schemas()
        ]

    async def ask(self, text: str) -> str:
        """One turn: *text* to the model, its tool calls run, until it answers; the answer
        (every round's text) is returned and was streamed to the output."""
        if self._record:
            self._record("user", text)
        self._offer.update()  # servers may have come, gone or changed their tools since
        answer: list[str] = []
        prompt: str | None = text
        results: list[llm.ToolResult] | None = None
        for round_number in range(self._max_rounds + 1):
            response = self._prompt(prompt, results)
            async for chunk in response:
                answer.append(chunk)
                self._out.text(chunk)
            self._out.end_of_answer()
            usage = await response.usage()
            self.tokens = (
                self.tokens[0] + (usage.input or 0),
                self.tokens[1] + (usage.output or 0),
            )
            calls = await response.tool_calls()
            if not calls:
                break
            if round_number == self._max_rounds:
                self._out.notice(
                    f"stopped: the model called tools {self._max_rounds} rounds running"
                )
                break
            results = await self._run_all(list(calls))
            prompt = None
        reply = "".join(answer)
        if self._record:
            self._record("assistant", reply)
        return reply

    def _prompt(
        self, prompt: str | None, results: list[llm.ToolResult] | None
    ) -> llm.AsyncResponse:
        first = not self._conversation.responses
        tools = self._tools()
        return self._conversation.prompt(
            prompt,
            system=self._system if first and not self._history else None,
            tools=tools or None,
            tool_results=results or None,
            messages=self._history if first and self._history else None,
        )

    async def _run_all(self, calls: list[llm.ToolCall]) -> list[llm.ToolResult]:
        """Run one round's tool calls: those of servers with ``supports_parallel_tool_calls:
        true`` side by side, the rest one after another in the model's order (beside them);
        the results in the model's order."""
        import llm

        done: dict[int, tuple[str, str, bool]] = {}
        together = [i for i, call in enumerate(calls) if self._parallel(str(call.name))]
        if len(together) < 2:
            together = []
        alone = [i for i in range(len(calls)) if i not in together]

        async def run(index: int) -> None:
            done[index] = await self._run(calls[index])

        async def in_turn() -> None:
            for index in alone:
                await run(index)

        async with asyncio.TaskGroup() as group:
            group.create_task(in_turn())
            for index in together:
                group.create_task(run(index))
        results = []
        for index, call in enumerate(calls):
            name, text, _failed = done[index]  # every task ran to its end
            if self._record:
                self._record("tool", f"{name}: {text}")
            results.append(llm.ToolResult(name=name, output=text, tool_call_id=call.tool_call_id))
        return results

    def _parallel(self, name: str) -> bool:
        """Whether a call of *name* may overlap others: an offered tool of a server whose
        calls may overlap (``supports_parallel_tool_calls``)."""
        if name == SEARCH_TOOL and self._offer.searching:
            return False
        entry = self._host.registry.get(name)
        return entry is not None and entry.supports_parallel_tool_calls

    async def _not_offered(
        self, name: str, arguments: dict[str, object], offered: list[str]
    ) -> Mapping[str, object]:
        """The answer to a call of a tool the model is not offered: the host's refusal (held
        back by the policy, a pin or a decision; not offered; its app gated), the words every
        door uses, else an unknown tool (with the search hint when searching)."""
        entry = self._host.registry.get(name)
        if entry is None or not self._host.gate.check(entry.server):
            refused: Mapping[str, object] = await self._host.call_tool(name, arguments)
            if refused.get("state") != CallState.UNKNOWN_TOOL:
                return refused
        hint = f"; call {SEARCH_TOOL} to find tools" if self._offer.searching else ""
        return unknown_tool(name, offered, hint)

    async def _run(self, call: llm.ToolCall) -> tuple[str, str, bool]:
        name = str(call.name)
        arguments = dict(call.arguments or {})
        self._out.tool_call(name, arguments)
        offered = [e.name for e in self._offer.tools()]
        if name == SEARCH_TOOL and self._offer.searching:
            result: Mapping[str, object] = self._offer.search(arguments)
            text, failed = json.dumps(result, ensure_ascii=False), "error" in result
        elif name not in offered:
            text, failed = result_text(await self._not_offered(name, arguments, offered))
        else:

            def progress(progress: float, total: float | None, message: str | None) -> None:
                self._out.progress(progress, total, f"{name}: {message}" if message else name)

            try:
                result = await self._host.call_tool(name, arguments, on_progress=progress)
                text, failed = result_text(result)
            except Exception as exc:  # noqa: BLE001 - a tool's failure never ends the session
                text, failed = f"error: {type(exc).__name__}: {exc}", True
        self._out.tool_result(name, text, failed)
        return name, text, failed
