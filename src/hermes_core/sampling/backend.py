"""What a sampling backend receives and returns (the types a ``sampling_provider`` plugin
implements), defined in :mod:`hermes_core.plugins.sampling_backend` and importable from here,
the path plugin authors use (docs/plugins/sampling_provider.md)."""

from __future__ import annotations

from hermes_core.plugins.sampling_backend import (
    ChatMessage,
    Completer,
    Completion,
    CompletionRequest,
    ImagePart,
    ModelInfo,
    ModelLister,
    Part,
    SamplingTool,
    TextPart,
    ToolResultPart,
    ToolUsePart,
)

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
