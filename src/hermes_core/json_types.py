"""The shapes of JSON data as the host handles it: what a server, a client or a file sent,
parsed and not yet checked.

``JsonObject`` is what ``json.loads`` gives for an object; its values are narrowed with
``isinstance`` where they are read (they came from outside, so that check is the point), rather
than trusted blindly.  ``JsonValue`` is any value of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeAlias

__all__ = ["JsonArray", "JsonObject", "JsonValue", "json_object", "json_value"]

JsonValue: TypeAlias = "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"
JsonObject: TypeAlias = "dict[str, JsonValue]"
JsonArray: TypeAlias = "list[JsonValue]"


def json_value(value: object) -> JsonValue:
    """*value* as JSON data: mappings (string keys), lists and tuples walked, JSON scalars
    kept, anything else (a YAML date, say) as its text, as a JSON encoder would write it."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Mapping):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_value(v) for v in value]
    return str(value)


def json_object(value: Mapping[str, object]) -> JsonObject:
    """A mapping of values (from a config file, say) as a JSON object (:func:`json_value`)."""
    return {str(k): json_value(v) for k, v in value.items()}
