"""A tool's result as the host returns it: JSON-ready, TAG characters stripped, ``_meta``
cleaned; the usual text-only result takes a direct path."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from hermes_core.json_types import JsonObject, JsonValue
from hermes_core.sanitize import (
    SHORT_ASCII,
    ascii_control,
    clean_meta,
    clean_text,
    sanitize_value,
)

if TYPE_CHECKING:
    from mcp_types import CallToolResult, TextContent
    from pydantic import BaseModel

__all__ = ["plain_text_result", "render_any_result", "render_raw_result", "render_result"]

_PLAIN_TYPES: tuple[type[CallToolResult], type[TextContent]] | None = None
"""The SDK's ``CallToolResult`` and ``TextContent``, imported on the first result."""


def plain_text_result(result: BaseModel) -> JsonObject | None:
    """The usual result, text content and nothing else, rendered directly: what
    :func:`render_result`'s dump and walk would give, or ``None`` when *result* holds anything
    more (metadata, structured content, annotations, other content, extra fields, text that
    loses characters to :func:`clean_text`), which the general way renders."""
    global _PLAIN_TYPES  # a cache of an import
    if _PLAIN_TYPES is None:
        from mcp_types import CallToolResult, TextContent

        _PLAIN_TYPES = (CallToolResult, TextContent)
    result_type, text_type = _PLAIN_TYPES
    if (
        type(result) is not result_type
        or result.meta is not None
        or result.structured_content is not None
        or result.result_type != "complete"
        or type(result.is_error) is not bool
        or result.__pydantic_extra__  # (model_extra, without the property's call)
    ):
        return None
    content: list[JsonValue] = []
    for item in result.content:
        if (
            type(item) is not text_type
            or item.annotations is not None
            or item.meta is not None
            or item.__pydantic_extra__
        ):
            return None
        text = item.text
        if type(text) is not str:
            return None
        # Short plain ASCII (most text) is checked here; anything else by clean_text.
        if not (len(text) < SHORT_ASCII and text.isascii() and ascii_control(text) is None) and (
            clean_text(text) is not text
        ):
            return None
        content.append({"type": "text", "text": text})
    return {"content": content, "isError": result.is_error, "resultType": "complete"}


def render_result(result: BaseModel) -> JsonObject:
    """A ``CallToolResult`` as JSON-ready data, TAG characters stripped, ``_meta`` cleaned.

    The usual result (text content only) is built directly (:func:`plain_text_result`);
    anything else takes one ``model_dump`` (pydantic's serialiser, in Rust; nothing is encoded as
    JSON text), then one walk over the strings (:func:`sanitize_value`: pure-ASCII text is only
    searched for controls, and the same objects come back when nothing changes)."""
    plain = plain_text_result(result)
    return plain if plain is not None else render_any_result(result)


def render_any_result(result: BaseModel) -> JsonObject:
    data = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    meta = data.pop("_meta", None)
    rendered: JsonObject = sanitize_value(data)
    if meta is not None and (meta := clean_meta(meta)):
        rendered["_meta"] = cast(JsonObject, meta)  # (a cleaned copy of JSON: JSON)
    content = rendered.get("content")
    for item in content if isinstance(content, list) else ():
        if type(item) is dict and "_meta" in item:
            cleaned = clean_meta(item.pop("_meta"))
            if cleaned:
                item["_meta"] = cast(JsonObject, cleaned)  # (likewise)
    if "isError" not in rendered:
        rendered["isError"] = False
    return rendered


_PLAIN_KEYS = frozenset({"content", "isError"})


def render_raw_result(result: JsonObject) -> JsonObject:
    """A ``tools/call`` response's ``result`` object as it came (not validated yet: see
    :mod:`hermes_core.host.transports.raw_calls`), rendered as :func:`render_result` renders the
    SDK's model of it: the usual text result checked and built directly; anything else
    validated by the SDK's ``CallToolResult`` (a result it refuses fails the call as the SDK's
    session would) and rendered the general way."""
    if _PLAIN_KEYS.issuperset(result):
        content, is_error = result.get("content"), result.get("isError", False)
        if type(content) is list and type(is_error) is bool:
            rendered: list[JsonValue] = []
            for item in content:
                if type(item) is not dict or len(item) != 2 or item.get("type") != "text":
                    break
                text = item.get("text")
                if type(text) is not str:
                    break
                if not (
                    len(text) < SHORT_ASCII and text.isascii() and ascii_control(text) is None
                ) and (clean_text(text) is not text):
                    break
                rendered.append({"type": "text", "text": text})
            else:
                return {"content": rendered, "isError": is_error, "resultType": "complete"}
    from mcp_types import CallToolResult

    return render_result(CallToolResult.model_validate(result))
