"""``tools.overrides`` of a server entry: how each of its tools is shown and called.

Keyed by the server's own tool name; each override may rename the tool, give it a title and a
description, fix arguments (removed from the schema the model sees, always sent), give
arguments defaults (sent when the caller omits them), make its annotations more cautious, and
set its own ``max_result_tokens``.  What can be checked without the server's listing is checked
here; the rest (the tool exists, each argument is in its schema and of its type) when the
listing arrives (``hermes_core.host.tools.overrides``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from pydantic import Field, field_validator, model_validator

from hermes_core.config.checks import check_keys, fail, kind_of
from hermes_core.config.model_base import ConfigModel
from hermes_core.config.values import scalar_text
from hermes_core.nesting import MAX_ARGUMENT_DEPTH, depth_of

__all__ = [
    "CAUTIOUS_ANNOTATIONS",
    "MAX_OVERRIDE_DESCRIPTION",
    "MAX_OVERRIDE_NAME",
    "ToolOverrideConfig",
    "check_override_keys",
]

#: The annotations an override may set, each only to its cautious value: a tool can be made to
#: look more dangerous, never safer.
CAUTIOUS_ANNOTATIONS: Mapping[str, bool] = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}
#: The longest new name (before the registry's own 64-character clamp).
MAX_OVERRIDE_NAME = 128
#: The longest title or description an override may give.
MAX_OVERRIDE_DESCRIPTION = 8192
#: The most arguments an override may fix or default.
MAX_OVERRIDE_ARGUMENTS = 256


def _text(value: object, limit: int) -> str:
    text = scalar_text(value)
    if text is None or isinstance(value, bool):
        raise fail(f"must be text (got {kind_of(value)})")
    if not text.strip():
        raise fail("must not be empty")
    if len(text) > limit:
        raise fail(f"is too long ({len(text)} characters; at most {limit})")
    if any(ord(ch) < 32 and ch not in "\n\t" for ch in text) or "\x7f" in text:
        raise fail("contains a control character")
    return text


def _json_value(value: object, *sub: str | int) -> None:
    """Raise unless *value* is plain JSON (YAML dates, NaN and the like cannot be sent)."""
    if value is None or isinstance(value, bool | int | str):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise fail("must be a finite number", *sub)
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            _json_value(item, *sub, index)
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise fail(f"keys must be text (got {kind_of(key)})", *sub)
            _json_value(item, *sub, key)
        return
    raise fail(f"must be a JSON value (got {kind_of(value)})", *sub)


class ToolOverrideConfig(ConfigModel):
    """One tool's override (``tools.overrides.<tool>``)."""

    name: str | None = None
    """The name the tool is registered under instead of its own (``mcp_<server>_<name>``)."""
    title: str | None = None
    description: str | None = None
    arguments: dict[str, object] = Field(default_factory=dict)
    """Fixed arguments: taken out of the schema the model sees, always sent; a caller passing
    one is refused."""
    defaults: dict[str, object] = Field(default_factory=dict)
    """Defaults: shown as the schema's ``default``, sent when the caller leaves them out."""
    annotations: dict[str, bool] = Field(default_factory=dict)
    """Hints toward caution only (:data:`CAUTIOUS_ANNOTATIONS`)."""
    max_result_tokens: int | None = None
    """This tool's result budget, instead of the server's."""

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, value: object) -> str | None:
        return None if value is None else _text(value, MAX_OVERRIDE_NAME)

    @field_validator("title", "description", mode="before")
    @classmethod
    def _shown(cls, value: object) -> str | None:
        return None if value is None else _text(value, MAX_OVERRIDE_DESCRIPTION)

    @field_validator("arguments", "defaults", mode="before")
    @classmethod
    def _arguments(cls, value: object) -> dict[str, object]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise fail(f"must be a mapping of argument: value (got {kind_of(value)})")
        if len(value) > MAX_OVERRIDE_ARGUMENTS:
            raise fail(f"has {len(value)} arguments (at most {MAX_OVERRIDE_ARGUMENTS})")
        for key, item in value.items():
            if not isinstance(key, str) or not key:
                raise fail(f"argument names must be non-empty text (got {kind_of(key)})")
            if depth_of(item, MAX_ARGUMENT_DEPTH) >= MAX_ARGUMENT_DEPTH:
                raise fail(f"nests {MAX_ARGUMENT_DEPTH} levels deep or more", key)
            _json_value(item, key)
        return dict(value)

    @field_validator("annotations", mode="before")
    @classmethod
    def _annotations(cls, value: object) -> dict[str, bool]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise fail(f"must be a mapping of hint: true/false (got {kind_of(value)})")
        hints: dict[str, bool] = {}
        for key, item in value.items():
            check_keys([key], CAUTIOUS_ANNOTATIONS)
            cautious = CAUTIOUS_ANNOTATIONS[key]
            if item is not cautious:
                raise fail(
                    f"an override may only make a tool look more cautious: {key} may only be "
                    f"set to {str(cautious).lower()} (trust does not move)",
                    key,
                )
            hints[key] = item
        return hints

    @field_validator("max_result_tokens", mode="before")
    @classmethod
    def _budget(cls, value: object) -> int | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise fail(f"must be a positive whole number of tokens (got {kind_of(value)})")
        return value

    @model_validator(mode="after")
    def _fixed_or_default(self) -> ToolOverrideConfig:
        check_keys(self.model_extra or {}, type(self).model_fields)
        for key in self.arguments:
            if key in self.defaults:
                raise fail(
                    "is both fixed (arguments) and a default (defaults); keep one", "defaults", key
                )
        return self


def check_override_keys(value: object) -> dict[str, object]:
    """``tools.overrides`` before its entries are validated: a mapping keyed by tool name."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise fail(f"must be a mapping of tool name: override (got {kind_of(value)})")
    for key, item in value.items():
        if not isinstance(key, str) or not key:
            raise fail(f"tool names must be non-empty text (got {kind_of(key)})")
        if item is not None and not isinstance(item, Mapping):
            reason = f"must be a mapping of name:, description:, arguments: … (got {kind_of(item)})"
            raise fail(reason, key)
    return {key: item if item is not None else {} for key, item in value.items()}
