"""What a person reads before approving a server's sampling request: all of what is sent.

Every text that goes to the model is shown: the system prompt, each message's text, the
tools' calls, results, names and descriptions.  Runs of whitespace show as one space (600
spaces cannot push an instruction out of sight), and what cannot be shown (control and
invisible characters, or text past :data:`APPROVAL_CHARS` in all) is counted and marked in
the text.  A request with anything not shown is not sent, whatever the answer:
:attr:`ApprovalText.complete` is false and the handler refuses it before asking.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass

from hermes_core.sampling.backend import (
    CompletionRequest,
    ImagePart,
    TextPart,
    ToolResultPart,
    ToolUsePart,
)
from hermes_core.sanitize import strip_tags

__all__ = ["APPROVAL_CHARS", "ApprovalText", "approval_text"]

APPROVAL_CHARS = 8000
"""The most characters of a request's text an approval shows (after whitespace is collapsed);
a longer request is refused, not shown in part."""

_HIDDEN = ("Cc", "Cf", "Co", "Cs", "Cn")


@dataclass(frozen=True)
class ApprovalText:
    """The question's text, and whether it shows all that would be sent (if not, why)."""

    text: str
    complete: bool
    why_not: str = ""


class _Writer:
    """The lines of the question within the budget, counting what could not be shown."""

    def __init__(self, budget: int) -> None:
        self.lines: list[str] = []
        self.left = budget
        self.cut = 0  # characters past the budget
        self.hidden = 0  # control or invisible characters

    def visible(self, text: str) -> str:
        """*text* as shown: tags and invisible characters out (counted), whitespace as one."""
        plain = strip_tags(text)
        self.hidden += len(text) - len(plain)
        kept = []
        for ch in plain:
            if ch.isspace():
                kept.append(" ")
            elif unicodedata.category(ch) in _HIDDEN:
                self.hidden += 1
            else:
                kept.append(ch)
        return " ".join("".join(kept).split())

    def add(self, prefix: str, text: str) -> None:
        body = self.visible(text)
        if len(body) > self.left:
            self.cut += len(body) - self.left
            body = body[: self.left] + "…"
            self.left = 0
        else:
            self.left -= len(body)
        self.lines.append(f"{prefix}{body}")


def approval_text(server: str, request: CompletionRequest) -> ApprovalText:
    """The approval question for *request* from *server* (see the module)."""
    out = _Writer(APPROVAL_CHARS)
    out.lines.append(
        f"MCP server '{out.visible(server)}' wants model '{out.visible(request.model)}' to answer:"
    )
    if request.system:
        out.add("  [system] ", request.system)
    for message in request.messages:
        for part in message.parts:
            role = f"  [{message.role}] "
            if isinstance(part, TextPart):
                out.add(role, part.text)
            elif isinstance(part, ImagePart):
                out.add(role, f"(an image, {part.mime_type})")
            elif isinstance(part, ToolUsePart):
                arguments = json.dumps(dict(part.arguments), ensure_ascii=False, default=str)
                out.add(role, f"(calls tool {part.name} with {arguments})")
            elif isinstance(part, ToolResultPart):
                out.add(role, f"(result of tool {part.name}: {part.output})")
    for tool in request.tools:
        schema = json.dumps(dict(tool.input_schema), ensure_ascii=False, default=str)
        out.add("  tool: ", f"{tool.name}: {tool.description} {schema}")
    for stop in request.stop_sequences:
        out.add("  stop at: ", stop)
    out.lines.append(f"  at most {request.max_tokens} tokens")
    missing = []
    if out.cut:
        missing.append(f"{out.cut} characters past the {APPROVAL_CHARS} an approval shows")
    if out.hidden:
        missing.append(f"{out.hidden} control or invisible characters")
    if missing:
        note = " and ".join(missing)
        out.lines.append(f"  [not shown: {note}; the request is not sent]")
        return ApprovalText("\n".join(out.lines), False, f"it holds what cannot be shown ({note})")
    return ApprovalText("\n".join(out.lines), True)
