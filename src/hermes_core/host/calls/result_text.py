"""The one text of a call's result: what ``hermes mcp call`` prints (cold or on the warm host),
what ``hermes chat`` hands the model and shows, and the text of the dashboard's result panel.

A result (a ``CallToolResult`` as the host returns it, or the host's own ``{"error": ...}``)
becomes:

- each content block on its own: text as it is; an image or audio clip as one line with its
  type and size (``[image: image/png, 1.2 KiB]``); an embedded resource as ``[resource: URI,
  type, N characters]`` and its text (a binary one with its size); a resource link as
  ``[resource link: URI (name)]``; another kind as ``[KIND content]``;
- the structured content as JSON when no content block is text;
- the host's own failure (not connected, timed out, a refusal,
  :mod:`hermes_core.host.calls.refusals`) as ``error: SENTENCE``.

Every string is sanitised (:func:`~hermes_core.sanitize.clean_text`).  Imports nothing but
the sanitiser, so the warm host's client stays light.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass

from hermes_core.host.calls.refusals import Refusal, refusal_of
from hermes_core.sanitize import clean_line, clean_text

__all__ = ["MEDIA_KINDS", "ResultText", "block_text", "render_text", "size_text"]

#: Content kinds a text door describes in one line instead of showing.
MEDIA_KINDS = ("image", "audio")


@dataclass(frozen=True)
class ResultText:
    """A result as text: *text*, whether it is a failure (*failed*: the host's error or the
    tool's ``isError``), the refusal it is (if it is one), the media kinds it only describes."""

    text: str
    failed: bool
    refusal: Refusal | None = None
    media: tuple[str, ...] = ()
    host_error: bool = False
    """The host's own ``{"error": ...}`` (the tool was not run, or its call failed)."""


def size_text(data: object) -> str:
    """The decoded size of base64 *data*: ``512 bytes``, ``1.2 KiB``, ``no data``."""
    if not isinstance(data, str):
        return "no data"
    try:
        count = len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        count = len(data)
    if count >= 1 << 20:
        return f"{count / (1 << 20):.1f} MiB"
    return f"{count / 1024:.1f} KiB" if count >= 1024 else f"{count} bytes"


def _mime(value: object) -> str:
    return clean_line(str(value or "unknown type"))


def block_text(item: object) -> str:
    """One content block as text (see the module's description)."""
    if not isinstance(item, Mapping):
        return f"[content: {clean_line(type(item).__name__)}]"
    kind = clean_line(str(item.get("type", "?")))
    if kind == "text":
        return clean_text(str(item.get("text", "")))
    if kind in MEDIA_KINDS:
        return f"[{kind}: {_mime(item.get('mimeType'))}, {size_text(item.get('data'))}]"
    if kind == "resource_link":
        name = clean_line(str(item.get("name") or ""))
        uri = clean_line(str(item.get("uri", "")))
        return f"[resource link: {uri}{f' ({name})' if name else ''}]"
    resource = item.get("resource")
    if kind == "resource" and isinstance(resource, Mapping):
        uri = clean_line(str(resource.get("uri", "")))
        mime = _mime(resource.get("mimeType"))
        if isinstance(resource.get("text"), str):
            text = clean_text(resource["text"])
            return f"[resource: {uri}, {mime}, {len(text)} characters]\n{text}"
        return f"[resource: {uri}, {mime}, {size_text(resource.get('blob'))}]"
    return f"[{kind} content]"


def render_text(result: Mapping[str, object]) -> ResultText:
    """*result* as the text a person or a model reads."""
    if "error" in result and "content" not in result:
        refusal = refusal_of(result)
        text = f"error: {clean_text(str(result['error']))}"
        return ResultText(text, True, refusal, host_error=True)
    content = result.get("content")
    items = list(content) if isinstance(content, list) else []
    blocks = [block_text(item) for item in items]
    kinds = [item.get("type") for item in items if isinstance(item, Mapping)]
    structured = result.get("structuredContent")
    if "text" not in kinds and structured is not None:
        blocks.append(clean_text(json.dumps(structured, indent=2, ensure_ascii=False, default=str)))
    media = tuple(dict.fromkeys(k for k in kinds if k in MEDIA_KINDS))
    return ResultText("\n".join(blocks), bool(result.get("isError")), media=media)
