"""A tool's result for a terminal: text content as text, everything else summarised
(``hermes mcp call`` without ``--json``)."""

from __future__ import annotations

import base64
import binascii
import json
import sys
from typing import Any

from hermes_core.sanitize import clean_line, clean_text

__all__ = ["result_text", "show_result"]


def _size(data: Any) -> str:
    if not isinstance(data, str):
        return "no data"
    try:
        count = len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        count = len(data)
    return f"{count / 1024:.1f} KiB" if count >= 1024 else f"{count} bytes"


def _block(item: Any) -> str:
    if not isinstance(item, dict):
        return f"[content: {clean_line(str(type(item).__name__))}]"
    kind = clean_line(str(item.get("type", "?")))
    if kind == "text":
        return clean_text(str(item.get("text", "")))
    mime = clean_line(str(item.get("mimeType") or "unknown type"))
    if kind in ("image", "audio"):
        return f"[{kind}: {mime}, {_size(item.get('data'))}]"
    if kind == "resource_link":
        name = clean_line(str(item.get("name") or ""))
        return (
            f"[resource link: {clean_line(str(item.get('uri', '')))}{f' ({name})' if name else ''}]"
        )
    if kind == "resource" and isinstance(item.get("resource"), dict):
        resource = item["resource"]
        uri = clean_line(str(resource.get("uri", "")))
        rmime = clean_line(str(resource.get("mimeType") or "unknown type"))
        if isinstance(resource.get("text"), str):
            text = clean_text(resource["text"])
            return f"[resource: {uri}, {rmime}, {len(text)} characters]\n{text}"
        return f"[resource: {uri}, {rmime}, {_size(resource.get('blob'))}]"
    return f"[{kind} content]"


def result_text(result: dict[str, Any]) -> str:
    """The text of a ``tools/call`` result: each content block on its own (text as is, images,
    audio and resources as one summary line), else the structured content as JSON."""
    content = result.get("content")
    blocks = [_block(item) for item in content] if isinstance(content, list) else []
    if not blocks and "structuredContent" in result:
        return json.dumps(result["structuredContent"], indent=2, ensure_ascii=False)
    return "\n".join(blocks)


def show_result(result: dict[str, Any], *, as_json: bool) -> None:
    """A call's result on stdout (the raw JSON with *as_json*, else its text); an error, in
    text, on stderr.  ``hermes mcp call``'s output, cold or on the warm host."""
    if as_json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return
    if "error" in result:
        print(f"error: {clean_text(str(result['error']))}", file=sys.stderr)
        return
    text = result_text(result)
    if text:
        print(text)
    if result.get("isError"):
        print("error: the tool reported an error (above)", file=sys.stderr)
