"""What a sampling backend receives and returns: backend-neutral, standard-library types.

A backend (contributed through the ``sampling_provider`` hook) never sees an ``mcp``
type: the host converts the server's request into a :class:`CompletionRequest` and the
backend's :class:`Completion` back into the MCP result.  Two callables make a backend:

* a :class:`ModelLister` — the models it can run now (IDs and aliases);
* a :class:`Completer` — one completion for one request, ``async``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

__all__ = [
    "ChatMessage",
    "Completer",
    "Completion",
    "CompletionRequest",
    "ImagePart",
    "ModelInfo",
    "ModelLister",
    "Part",
    "SamplingTool",
    "TextPart",
    "ToolResultPart",
    "ToolUsePart",
]


@dataclass(frozen=True)
class TextPart:
    """Text in a message."""

    text: str


@dataclass(frozen=True)
class ImagePart:
    """An image in a message: base64 *data* of type *mime_type* (``image/png``)."""

    data: str = field(repr=False)
    mime_type: str


@dataclass(frozen=True)
class ToolUsePart:
    """The assistant asked to run a tool (in an assistant message)."""

    id: str
    name: str
    arguments: Mapping[str, object] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class ToolResultPart:
    """What a tool returned, as text (in a user message, after the matching ``ToolUsePart``)."""

    tool_use_id: str
    name: str
    output: str
    is_error: bool = False


Part = TextPart | ImagePart | ToolUsePart | ToolResultPart


@dataclass(frozen=True)
class ChatMessage:
    """One message of the conversation, ``user`` or ``assistant``."""

    role: Literal["user", "assistant"]
    parts: tuple[Part, ...]


@dataclass(frozen=True)
class SamplingTool:
    """A tool the server lets the model call (the server runs it, not the host)."""

    name: str
    description: str = ""
    input_schema: Mapping[str, object] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class CompletionRequest:
    """One completion to run.

    ``max_tokens`` is already clamped to the server's ``max_tokens_cap``.  ``tools`` is empty
    when the server offered none (or ``tool_choice`` is ``none``); ``tool_choice`` is
    ``auto`` or ``required`` (a backend that cannot force a tool call treats it as ``auto``).
    """

    model: str
    messages: tuple[ChatMessage, ...]
    max_tokens: int
    system: str | None = None
    temperature: float | None = None
    stop_sequences: tuple[str, ...] = ()
    tools: tuple[SamplingTool, ...] = ()
    tool_choice: Literal["auto", "required"] = "auto"
    settings: object = field(default=None, compare=False, repr=False)
    """The backend's settings from ``sampling_backends.<name>`` in ``config.yaml``: an instance
    of its ``SamplingProvider.settings`` model (the plain mapping for a backend without one),
    ``None`` when the file has none.  May hold secrets: never log it."""


@dataclass(frozen=True)
class Completion:
    """The model's answer: text, tool calls, or both.

    ``stop_reason``: ``endTurn``, ``maxTokens``, ``stopSequence`` or ``toolUse`` (``None``
    when the backend cannot tell; the host then says ``toolUse`` for tool calls and
    ``endTurn`` otherwise).  ``model`` is the model that answered (an alias resolved to its ID).
    """

    text: str = ""
    tool_calls: tuple[ToolUsePart, ...] = ()
    model: str = ""
    stop_reason: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None


@dataclass(frozen=True)
class ModelInfo:
    """A model a backend can run: its ID, the aliases it answers to, what it accepts."""

    id: str
    aliases: tuple[str, ...] = ()
    supports_tools: bool = False
    supports_images: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        return (self.id, *self.aliases)


class ModelLister(Protocol):
    """The models a backend can run now.

    Called once when a host starts (in a worker thread: it may read files and import the
    LLM library) and by ``hermes mcp sampling models``.  Must not call the network.
    """

    def __call__(self) -> Sequence[ModelInfo]: ...


class Completer(Protocol):
    """Run one completion.  Raise any exception to fail it (its message is shown, redacted);
    the host bounds the call with the server's ``sampling.timeout`` and cancels it on expiry."""

    async def __call__(self, request: CompletionRequest) -> Completion: ...
