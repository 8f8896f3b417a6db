"""The SDK's ``sampling_callback`` for one server: limits, model choice, conversion, audit.

A request is answered in this order; the first refusal wins and is a JSON-RPC error
(code ``-1``, ``data: {"reason": ...}``) the server can read:

1. **Rate**: at most ``max_rpm`` requests in any sliding 60 s window (``rate_limited``).
2. **Model**: ``sampling.model``, else the hints against ``allowed_models``
   (``model_not_allowed``; see :mod:`hermes_core.sampling.catalog`).
3. **Content**: text, images (if the model takes them), ``tool_use``/``tool_result``;
   audio is refused (``unsupported``).  ``includeContext`` is answered as ``none``: the
   host keeps no conversation to add.
4. **Tools**: ``max_tool_rounds: 0`` refuses requests that carry tools; a model asking
   for round N+1 when the exchange (the request's messages) already holds
   ``max_tool_rounds`` tool-use rounds is refused (``tool_rounds``).
5. **Approval** (``approval: ask``): the user sees the server, the model and the messages
   through the elicitation channel; anything but "yes" refuses (``declined``).
6. **The call**, bounded by ``timeout`` (``timeout``); a backend error is ``-32603``.

``maxTokens`` is clamped to ``max_tokens_cap``.  Each request is logged once at
``log_level`` (server, model, message count, tokens, outcome); the prompt text only when
``log_level`` is ``debug``, and then at debug level.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hermes_core.offers.elicitation import ElicitationRequest, Elicitor
from hermes_core.plugins.types import SamplingProvider
from hermes_core.sampling.approval_text import approval_text
from hermes_core.sampling.backend import (
    ChatMessage,
    Completion,
    CompletionRequest,
    ImagePart,
    Part,
    SamplingTool,
    TextPart,
    ToolResultPart,
    ToolUsePart,
)
from hermes_core.sampling.catalog import ModelCatalog, OfferedModel, SamplingPlan
from hermes_core.sampling.limiter import SlidingWindowLimiter, fleet_allows
from hermes_core.sampling.settings import SamplingSettings
from hermes_core.sanitize import strip_tags

if TYPE_CHECKING:
    from mcp.client.context import ClientRequestContext
    from mcp_types import (
        CreateMessageRequestParams,
        CreateMessageResult,
        CreateMessageResultWithTools,
        ErrorData,
        SamplingCapability,
        SamplingMessageContentBlock,
    )

__all__ = ["REFUSED", "SamplingCounters", "SamplingHandler", "SamplingRefused"]

log = logging.getLogger("hermes_core.sampling")
#: The error code of a refused request (the spec's example code for a user rejection).
REFUSED = -1
_INTERNAL_ERROR = -32603
_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING}
_SHOWN_CHARS = 2000
_SECRETISH = re.compile(r"(?i)\b(sk-[A-Za-z0-9_-]{8,}|Bearer\s+\S+|api[_-]?key\S*)")


class SamplingRefused(Exception):
    """A request the host will not run: *reason* is the counter it lands in."""

    def __init__(self, reason: str, message: str, *, code: int = REFUSED) -> None:
        super().__init__(message)
        self.reason = reason
        self.code = code


@dataclass
class SamplingCounters:
    """Per-server sampling metrics (``hermes mcp status``)."""

    requests: int = 0
    completed: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    errors: int = 0
    timeouts: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    last_model: str | None = None


def shown(text: str, limit: int = _SHOWN_CHARS) -> str:
    """Server text made safe to show a person: no control or invisible characters, bounded."""
    text = strip_tags(text)
    kept = "".join(
        ch
        for ch in text
        if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf", "Co", "Cs")
    )
    return kept if len(kept) <= limit else kept[:limit] + "…"


def _redacted(text: str) -> str:
    return _SECRETISH.sub("***", text)


def _text_of(content: Iterable[object] | None) -> str:
    """The text blocks of a tool result's content, joined (other blocks summarised)."""
    parts = []
    for block in content or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(str(getattr(block, "text", "")))
        else:
            parts.append(f"[{kind} content]")
    return "\n".join(parts)


def convert_messages(params: CreateMessageRequestParams) -> tuple[ChatMessage, ...]:
    """The request's messages as backend-neutral :class:`ChatMessage` objects."""
    names: dict[str, str] = {}
    messages = []
    for message in params.messages:
        parts: list[Part] = []
        for block in message.content_as_list:
            kind = block.type
            if block.type == "text":
                parts.append(TextPart(block.text))
            elif block.type == "image":
                parts.append(ImagePart(block.data, block.mime_type))
            elif block.type == "tool_use":
                names[block.id] = block.name
                parts.append(ToolUsePart(block.id, block.name, dict(block.input)))
            elif block.type == "tool_result":
                output = _text_of(block.content)
                if block.structured_content is not None and not output:
                    output = json.dumps(block.structured_content, ensure_ascii=False)
                parts.append(
                    ToolResultPart(
                        block.tool_use_id,
                        names.get(block.tool_use_id, ""),
                        output,
                        bool(block.is_error),
                    )
                )
            else:
                raise SamplingRefused("unsupported", f"{kind} content is not supported")
        messages.append(ChatMessage(message.role, tuple(parts)))
    return tuple(messages)


def tool_rounds(messages: tuple[ChatMessage, ...]) -> int:
    """Tool-use rounds already in the exchange: assistant messages that asked for a tool."""
    return sum(
        1
        for m in messages
        if m.role == "assistant" and any(isinstance(p, ToolUsePart) for p in m.parts)
    )


class SamplingHandler:
    """Answers one server's sampling requests (see the module docstring)."""

    def __init__(
        self,
        server: str,
        settings: SamplingSettings,
        catalog: ModelCatalog,
        plan: SamplingPlan,
        *,
        approver: Elicitor | None = None,
        approval_timeout: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.server = server
        self.settings = settings
        self.catalog = catalog
        self.plan = plan
        self.approver = approver
        self.approval_timeout = approval_timeout
        self.limiter = SlidingWindowLimiter(settings.max_rpm, 60.0, clock)
        self.counters = SamplingCounters()

    def __repr__(self) -> str:
        return f"SamplingHandler({self.server!r})"

    @property
    def capabilities(self) -> SamplingCapability:
        """The ``sampling`` capability to advertise (``tools`` unless tool rounds are off)."""
        from mcp import types

        tools = types.SamplingToolsCapability() if self.settings.max_tool_rounds > 0 else None
        return types.SamplingCapability(tools=tools)

    async def __call__(
        self, context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult | CreateMessageResultWithTools | ErrorData:
        from mcp import types

        self.counters.requests += 1
        started = time.monotonic()
        model: str | None = None
        try:
            result, model, completion = await self._answer(params)
        except SamplingRefused as refused:
            if refused.reason == "timeout":
                self.counters.timeouts += 1
            elif refused.reason == "error":
                self.counters.errors += 1
            else:
                self.counters.refused[refused.reason] = (
                    self.counters.refused.get(refused.reason, 0) + 1
                )
            self._audit(params, model, None, f"refused: {refused.reason}", started)
            return types.ErrorData(
                code=refused.code,
                message=str(refused),
                data={"reason": refused.reason, "server": self.server},
            )
        self.counters.completed += 1
        self.counters.tokens_in += completion.input_tokens or 0
        self.counters.tokens_out += completion.output_tokens or 0
        self.counters.last_model = model
        self._audit(params, model, completion, "completed", started)
        return result

    # -- the steps ----------------------------------------------------------------------------
    async def _answer(
        self, params: CreateMessageRequestParams
    ) -> tuple[CreateMessageResult | CreateMessageResultWithTools, str, Completion]:

        s = self.settings
        if not self.limiter.acquire():
            wait = self.limiter.retry_after()
            raise SamplingRefused(
                "rate_limited",
                f"Sampling rate limit exceeded for server '{self.server}' "
                f"({s.max_rpm} requests per minute; try again in {wait:.0f} s)",
            )
        if not await fleet_allows(f"sampling:{self.server}", s.max_rpm, 60.0):
            raise SamplingRefused(
                "rate_limited",
                f"Sampling rate limit exceeded for server '{self.server}' across the fleet "
                f"({s.max_rpm} requests per minute on all replicas together, or the fleet's "
                "bus cannot count them now); try again later",
            )
        hints = [
            h.name
            for h in (getattr(params.model_preferences, "hints", None) or [])
            if isinstance(h.name, str) and h.name
        ]
        picked = ModelCatalog.pick(self.plan, hints)
        if not isinstance(picked, OfferedModel):
            allowed = ", ".join(m.id for m in self.plan.allowed)
            raise SamplingRefused(
                "model_not_allowed",
                f"Model '{shown(picked, 100)}' not allowed for server '{self.server}'. "
                f"Allowed: {allowed}",
            )
        messages = convert_messages(params)
        if not picked.info.supports_images and any(
            isinstance(p, ImagePart) for m in messages for p in m.parts
        ):
            raise SamplingRefused("unsupported", f"model '{picked.id}' does not accept images")
        request = self._request(params, picked, messages)
        if s.approval == "ask":
            await self._approve(request)
        completion = await self._complete(picked, request)
        model = completion.model or picked.id
        with_tools = params.tools is not None or params.tool_choice is not None
        return self._reply(completion, model, request, messages, with_tools), model, completion

    def _request(
        self,
        params: CreateMessageRequestParams,
        picked: OfferedModel,
        messages: tuple[ChatMessage, ...],
    ) -> CompletionRequest:
        """The completion request for *params*: the tokens cut to the cap, the server's tools
        offered unless ``toolChoice`` is ``none`` (refused when tool rounds are off)."""
        s = self.settings
        tools: tuple[SamplingTool, ...] = ()
        choice = getattr(params.tool_choice, "mode", None) or "auto"
        if params.tools:
            if s.max_tool_rounds == 0:
                raise SamplingRefused(
                    "tool_rounds",
                    f"Tool use in sampling is disabled for server '{self.server}' "
                    "(max_tool_rounds: 0)",
                )
            if choice != "none":
                tools = tuple(
                    SamplingTool(t.name, t.description or "", dict(t.input_schema or {}))
                    for t in params.tools
                )
        return CompletionRequest(
            model=picked.id,
            messages=messages,
            max_tokens=max(1, min(int(params.max_tokens), s.max_tokens_cap)),
            system=params.system_prompt,
            temperature=params.temperature,
            stop_sequences=tuple(params.stop_sequences or ()),
            tools=tools,
            tool_choice="required" if choice == "required" and tools else "auto",
        )

    def _reply(
        self,
        completion: Completion,
        model: str,
        request: CompletionRequest,
        messages: tuple[ChatMessage, ...],
        with_tools: bool,
    ) -> CreateMessageResult | CreateMessageResultWithTools:
        """The ``sampling/createMessage`` result for *completion*: tool uses within the round
        limit, or the text (with the tools shape when the request carried tools)."""
        from mcp import types

        s = self.settings
        if completion.tool_calls:
            if not request.tools:
                raise SamplingRefused(
                    "error", f"model '{model}' asked for a tool the server did not offer"
                )
            rounds = tool_rounds(messages) + 1
            if rounds > s.max_tool_rounds:
                raise SamplingRefused(
                    "tool_rounds",
                    f"Tool loop limit exceeded for server '{self.server}' "
                    f"(max_tool_rounds: {s.max_tool_rounds})",
                )
            blocks: list[SamplingMessageContentBlock] = []
            if completion.text:
                blocks.append(types.TextContent(text=completion.text))
            blocks.extend(
                types.ToolUseContent(id=c.id, name=c.name, input=dict(c.arguments))
                for c in completion.tool_calls
            )
            return types.CreateMessageResultWithTools(
                role="assistant", content=blocks, model=model, stop_reason="toolUse"
            )
        stop = completion.stop_reason or "endTurn"
        text = types.TextContent(text=completion.text)
        if with_tools:
            return types.CreateMessageResultWithTools(
                role="assistant", content=[text], model=model, stop_reason=stop
            )
        return types.CreateMessageResult(
            role="assistant", content=text, model=model, stop_reason=stop
        )

    async def _approve(self, request: CompletionRequest) -> None:
        if self.approver is None:
            raise SamplingRefused("declined", "sampling.approval is ask and nobody can be asked")
        shown_text = approval_text(self.server, request)
        if not shown_text.complete:  # never ask to approve what the person cannot see
            log.warning(
                "MCP server '%s': sampling request refused: %s", self.server, shown_text.why_not
            )
            raise SamplingRefused(
                "declined", f"sampling request refused: {shown_text.why_not}; it was not sent"
            )
        question = ElicitationRequest(
            server=self.server,
            message=shown_text.text,
            fields=(),
            schema={},
            kind="approval",
            subject="sampling",
        )
        try:
            answer = await asyncio.wait_for(self.approver(question), self.approval_timeout)
        except TimeoutError:
            raise SamplingRefused("declined", "the user did not answer in time") from None
        except Exception as exc:  # noqa: BLE001 - fail closed
            log.warning("MCP server '%s': asking to approve sampling failed: %s", self.server, exc)
            raise SamplingRefused("declined", "the user could not be asked") from None
        if answer.action != "accept":
            raise SamplingRefused("declined", "User rejected sampling request")

    async def _complete(self, picked: OfferedModel, request: CompletionRequest) -> Completion:
        provider: SamplingProvider = self.catalog.providers[picked.backend]
        try:
            completion = await asyncio.wait_for(provider.complete(request), self.settings.timeout)
        except TimeoutError:
            raise SamplingRefused(
                "timeout",
                f"Sampling LLM call timed out after {self.settings.timeout:g} s "
                f"for server '{self.server}'",
            ) from None
        except Exception as exc:  # noqa: BLE001 - a backend failure is an answer, not a crash
            detail = _redacted(shown(f"{type(exc).__name__}: {exc}", 300))
            raise SamplingRefused(
                "error", f"Sampling LLM call failed: {detail}", code=_INTERNAL_ERROR
            ) from None
        if not isinstance(completion, Completion):
            raise SamplingRefused(
                "error",
                f"sampling backend '{picked.backend}' returned a {type(completion).__name__}",
                code=_INTERNAL_ERROR,
            )
        return completion

    # -- audit ----------------------------------------------------------------------------------
    def _audit(
        self,
        params: CreateMessageRequestParams,
        model: str | None,
        completion: Completion | None,
        outcome: str,
        started: float,
    ) -> None:
        level = _LEVELS[self.settings.log_level]
        count = len(getattr(params, "messages", []) or [])
        tokens = (
            f"tokens in {completion.input_tokens or 0} / out {completion.output_tokens or 0}"
            if completion is not None
            else "no tokens"
        )
        try:
            asked = min(int(params.max_tokens), self.settings.max_tokens_cap)
        except (AttributeError, TypeError, ValueError):
            asked = self.settings.max_tokens_cap
        log.log(
            level,
            "sampling: server '%s', model %s, %d message(s), max %d tokens, %s, %s (%.2f s)",
            self.server,
            model or "-",
            count,
            asked,
            tokens,
            outcome,
            time.monotonic() - started,
        )
        if level == logging.DEBUG:
            texts = [
                block.text
                for message in getattr(params, "messages", []) or []
                for block in message.content_as_list
                if getattr(block, "type", "") == "text"
            ]
            log.debug(
                "sampling: server '%s' prompt: %s",
                self.server,
                shown(" | ".join(texts), 500),
            )
