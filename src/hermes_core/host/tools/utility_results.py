"""What a utility tool (a server's resources and prompts as tools) answers: a valid
``CallToolResult`` like any tool's, so every door shows it as it shows a tool's result.

- a listing (``list_resources``, ``list_resource_templates``, ``list_prompts``): one text
  block, a line per item, and the items as structured content (``{KEY: [...], "pages": N}``,
  with ``nextCursor``, ``truncated`` and ``note`` when it stopped early);
- ``read_resource``: each of the resource's contents as an embedded resource block;
- ``get_prompt``: its messages as text (``role:`` then the content), and the prompt as
  structured content (``{"description": ..., "messages": [...]}``).

:func:`utility_data` gives back what the MCP request answered (the listing, the contents,
the prompt), for a door that forwards it as such (``hermes mcp proxy``'s resources and
prompts).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hermes_core.host.calls.result_text import block_text
from hermes_core.json_types import JsonObject, JsonValue
from hermes_core.sanitize import clean_line

__all__ = ["listing_result", "prompt_result", "resource_result", "utility_data"]

#: The longest description a listing's line shows (its first line, cut).
LINE_DESCRIPTION = 200

_NOUNS = {
    "resources": "resources",
    "resourceTemplates": "resource templates",
    "prompts": "prompts",
}


def _text(text: str) -> JsonObject:
    return {"type": "text", "text": text}


def _short(value: object) -> str:
    line = clean_line(str(value or "").strip().split("\n", 1)[0])
    return line if len(line) <= LINE_DESCRIPTION else line[: LINE_DESCRIPTION - 1] + "…"


def _line(key: str, item: object) -> str:
    if not isinstance(item, Mapping):
        return f"- {_short(item)}"
    if key == "prompts":
        arguments = [
            f"{_short(a.get('name'))}{'' if a.get('required') else '?'}"
            for a in item.get("arguments") or ()
            if isinstance(a, Mapping)
        ]
        head = f"- {_short(item.get('name'))}({', '.join(arguments)})"
    else:
        where = item.get("uri" if key == "resources" else "uriTemplate")
        head = f"- {_short(where)}"
        name = _short(item.get("title") or item.get("name"))
        head += f"  {name}" if name else ""
        head += f" ({_short(item['mimeType'])})" if item.get("mimeType") else ""
    description = _short(item.get("description"))
    return f"{head}: {description}" if description else head


def listing_result(
    server: str,
    key: str,
    items: list[JsonValue],
    pages: int,
    next_cursor: str | None,
    cut: str | None,
) -> JsonObject:
    """A listing's result: *items* under *key*, from *pages* pages; *cut*: why it stopped
    early (then *next_cursor* goes on from there, when the server gave one)."""
    noun = _NOUNS[key]
    structured: JsonObject = {key: items, "pages": pages}
    if items:
        lines = [f"MCP server '{server}' lists {len(items)} {noun}:"]
        lines.extend(_line(key, item) for item in items)
    else:
        lines = [f"MCP server '{server}' lists no {noun}."]
    if cut is not None:
        structured["truncated"] = True
        note = (
            f"listing stopped early: {cut}; showing the first {len(items)} {key} of MCP "
            f"server '{server}'"
        )
        structured["note"] = note
        lines.append(note)
    if next_cursor is not None:
        structured["nextCursor"] = next_cursor
        lines.append(f"more: call again with cursor={next_cursor!r} for the next page")
    return {"content": [_text("\n".join(lines))], "structuredContent": structured, "isError": False}


def resource_result(read: Mapping[str, JsonValue]) -> JsonObject:
    """A ``resources/read`` answer (*read*, sanitised) as embedded resources."""
    contents = read.get("contents")
    blocks: list[JsonValue] = [
        {"type": "resource", "resource": item}
        for item in (contents if isinstance(contents, list) else ())
        if isinstance(item, dict)
    ]
    result: JsonObject = {"content": blocks, "isError": False}
    if not blocks:
        result["content"] = [_text("the resource has no contents")]
    meta = read.get("_meta")
    if isinstance(meta, dict):
        result["_meta"] = meta
    return result


def prompt_result(prompt: Mapping[str, JsonValue]) -> JsonObject:
    """A ``prompts/get`` answer (*prompt*, sanitised) as text and structured content."""
    parts: list[str] = []
    description = prompt.get("description")
    if description:
        parts.append(_short(description))
    messages = prompt.get("messages")
    for message in messages if isinstance(messages, list) else ():
        if isinstance(message, dict):
            role = clean_line(str(message.get("role", "?")))
            parts.append(f"{role}:\n{block_text(message.get('content'))}")
    structured: JsonObject = {k: v for k, v in prompt.items() if k != "_meta"}
    text = "\n\n".join(parts) or "the prompt has no messages"
    return {"content": [_text(text)], "structuredContent": structured, "isError": False}


def utility_data(tool: str, result: Mapping[str, object]) -> dict[str, Any] | None:
    """What utility *tool*'s MCP request answered, from its *result* (``None``: the host's
    error, or a result that is not a utility's): the listing or the prompt (its structured
    content), or a read's ``{"contents": [...]}``."""
    if "error" in result or result.get("isError"):
        return None
    if tool == "read_resource":
        content = result.get("content")
        contents = [
            block["resource"]
            for block in (content if isinstance(content, list) else ())
            if isinstance(block, Mapping) and isinstance(block.get("resource"), Mapping)
        ]
        data: dict[str, Any] = {"contents": contents}
        if isinstance(result.get("_meta"), Mapping):
            data["_meta"] = result["_meta"]
        return data
    structured = result.get("structuredContent")
    return dict(structured) if isinstance(structured, Mapping) else None
