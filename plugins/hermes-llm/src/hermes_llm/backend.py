"""Sampling on the ``llm`` library: its async models, by model ID or alias.

``llm`` is imported only when models are listed or a completion runs.  Keys, aliases and
the default options are ``llm``'s own (``llm keys set``, ``llm aliases set``, the
``LLM_USER_PATH`` folder); every ``llm`` plugin installed in the same environment adds its
models (``llm-ollama``, ``llm-anthropic``, ``llm-gpt4all``, ``llm-echo`` …).

Mapping of a request onto ``llm``:

* the system prompt → ``system=``; the earlier messages → ``messages=`` (``llm.parts``), the
  last user turn → the prompt text, its images → attachments, its tool results →
  ``tool_results=``;
* server tools → ``llm.Tool`` objects without an implementation (``llm`` never runs them:
  the tool calls go back to the server);
* ``temperature``, the clamped ``maxTokens`` and the stop sequences → the model's own
  options when it has them (``temperature``; ``max_tokens`` / ``max_output_tokens`` /
  ``num_predict``; ``stop`` / ``stop_sequences``), left out when it does not;
* ``tool_choice: required`` cannot be forced through ``llm``: it is sent as ``auto``.
"""

from __future__ import annotations

import base64
import uuid
from typing import Any

from hermes_core.sampling.backend import (
    ChatMessage,
    Completion,
    CompletionRequest,
    ImagePart,
    ModelInfo,
    TextPart,
    ToolResultPart,
    ToolUsePart,
)

__all__ = ["complete", "list_models"]

_MAX_TOKEN_OPTIONS = ("max_tokens", "max_output_tokens", "num_predict", "max_new_tokens")
_STOP_OPTIONS = ("stop_sequences", "stop")


def list_models() -> list[ModelInfo]:
    """Every model ``llm`` can run asynchronously, with its aliases."""
    import llm

    models = []
    for entry in llm.get_models_with_aliases():
        model = entry.async_model
        if model is None:
            continue
        kinds = tuple(getattr(model, "attachment_types", ()) or ())
        models.append(
            ModelInfo(
                id=str(model.model_id),
                aliases=tuple(sorted(str(a) for a in entry.aliases)),
                supports_tools=bool(getattr(model, "supports_tools", False)),
                supports_images=any(str(kind).startswith("image/") for kind in kinds),
            )
        )
    return models


def _options(model: Any, request: CompletionRequest) -> dict[str, Any]:
    fields = set(getattr(model.Options, "model_fields", {}))
    options: dict[str, Any] = {}
    if request.temperature is not None and "temperature" in fields:
        options["temperature"] = request.temperature
    for name in _MAX_TOKEN_OPTIONS:
        if name in fields:
            options[name] = request.max_tokens
            break
    if request.stop_sequences:
        for name in _STOP_OPTIONS:
            if name in fields:
                seqs = list(request.stop_sequences)
                # llm's OpenAI options take one stop string; others take a list.
                options[name] = seqs[0] if name == "stop" else seqs
                break
    return options


def _attachment(part: ImagePart) -> Any:
    import llm

    return llm.Attachment(type=part.mime_type, content=base64.b64decode(part.data))


def _history(messages: tuple[ChatMessage, ...]) -> list[Any]:
    from llm import parts

    history: list[Any] = []
    for message in messages:
        body: list[Any] = []
        results: list[Any] = []
        for part in message.parts:
            if isinstance(part, TextPart):
                body.append(parts.TextPart(text=part.text))
            elif isinstance(part, ImagePart):
                body.append(parts.AttachmentPart(attachment=_attachment(part)))
            elif isinstance(part, ToolUsePart):
                body.append(
                    parts.ToolCallPart(
                        name=part.name, arguments=dict(part.arguments), tool_call_id=part.id
                    )
                )
            elif isinstance(part, ToolResultPart):
                results.append(
                    parts.ToolResultPart(
                        name=part.name, output=part.output, tool_call_id=part.tool_use_id
                    )
                )
        if results:
            history.append(parts.Message(role="tool", parts=results))
        if body:
            history.append(parts.Message(role=message.role, parts=body))
    return history


async def complete(request: CompletionRequest) -> Completion:
    """Run *request* on ``llm.get_async_model(request.model)``."""
    import llm

    model = llm.get_async_model(request.model)
    earlier, last = request.messages[:-1], request.messages[-1]
    prompt: str | None = None
    attachments: list[Any] = []
    tool_results: list[Any] = []
    if last.role == "user":
        texts = [p.text for p in last.parts if isinstance(p, TextPart)]
        prompt = "\n".join(texts) or None
        attachments = [_attachment(p) for p in last.parts if isinstance(p, ImagePart)]
        tool_results = [
            llm.ToolResult(name=p.name, output=p.output, tool_call_id=p.tool_use_id)
            for p in last.parts
            if isinstance(p, ToolResultPart)
        ]
    else:  # the server pre-filled the assistant's turn: it is history too
        earlier = request.messages
    tools: list[Any] = [
        llm.Tool(name=t.name, description=t.description or None, input_schema=dict(t.input_schema))
        for t in request.tools
    ]
    history = _history(earlier)
    response = model.prompt(
        prompt,
        system=request.system or None,
        attachments=attachments or None,
        tools=tools or None,
        tool_results=tool_results or None,
        messages=history or None,
        stream=False,
        **_options(model, request),
    )
    text = await response.text()
    calls = await response.tool_calls()
    usage = await response.usage()
    return Completion(
        text=text,
        tool_calls=tuple(
            ToolUsePart(
                id=call.tool_call_id or f"call_{uuid.uuid4().hex[:12]}",
                name=call.name,
                arguments=dict(call.arguments or {}),
            )
            for call in calls
        ),
        model=str(model.model_id),
        input_tokens=usage.input,
        output_tokens=usage.output,
    )
