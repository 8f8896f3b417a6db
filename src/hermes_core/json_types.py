"""The shapes of JSON data as the host handles it: what a server, a client or a file sent,
parsed and not yet checked.

``JsonObject`` is what ``json.loads`` gives for an object; its values are narrowed with
``isinstance`` where they are read (they came from outside, so that check is the point), rather
than trusted as ``Any``.  ``JsonValue`` is any value of it.
"""

from __future__ import annotations

from typing import TypeAlias

__all__ = ["JsonArray", "JsonObject", "JsonValue"]

JsonValue: TypeAlias = "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"
JsonObject: TypeAlias = "dict[str, JsonValue]"
JsonArray: TypeAlias = "list[JsonValue]"
