"""A tool override (``tools.overrides``) as the host applies it.

Everything is worked out once, when the server's listing arrives: the override is checked
against the tool's input schema (each fixed or default argument must be one of its properties,
of its type), and the schema the model sees is made (fixed arguments taken out, defaults shown
as ``default`` and no longer required).  A call then only merges two small mappings
(:meth:`ToolOverride.arguments_for`), and only for an overridden tool.

Trust does not move: pins are taken on the server's own definition (the trust screen reads the
listing as the server sent it), and the annotations an override sets can only be more cautious
(checked when ``config.yaml`` is read).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hermes_core.json_types import JsonObject, JsonValue

__all__ = ["ToolOverride", "overridden_schema", "override_problem", "shown_name"]

_JSON_TYPES: Mapping[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


@dataclass(frozen=True)
class ToolOverride:
    """One tool's override, as ``config.yaml`` gave it, with where each key was written."""

    tool: str
    """The server's own name of the tool (the key under ``tools.overrides``)."""
    name: str | None = None
    title: str | None = None
    description: str | None = None
    fixed: Mapping[str, JsonValue] = field(default_factory=dict, hash=False)
    defaults: Mapping[str, JsonValue] = field(default_factory=dict, hash=False)
    annotations: Mapping[str, bool] = field(default_factory=dict, hash=False)
    max_result_tokens: int | None = None
    key: str = ""
    """``mcp_servers.<server>.tools.overrides.<tool>``: what an error names."""
    source: str | None = None
    """The file it was read from (``None``: given in code)."""
    lines: Mapping[str, int] = field(default_factory=dict, hash=False, compare=False)
    """Sub-key (``""``, ``arguments.owner``, ``defaults.labels``) -> its line in *source*."""

    def where(self, sub: str = "") -> str:
        """``<file>:<line>: <key>`` of the override or one of its keys."""
        line = self.lines.get(sub) or self.lines.get(sub.split(".")[0]) or self.lines.get("")
        place = f"{self.source}:{line}" if self.source and line else self.source
        key = f"{self.key}.{sub}" if sub else self.key
        return ": ".join(part for part in (place, key) if part)

    def changes(self) -> dict[str, Any]:
        """What the override changes, for ``hermes mcp tools --overrides`` (a record of mixed
        values, each read by its key)."""
        shown: dict[str, Any] = {}
        for key, value in (
            ("name", self.name),
            ("title", self.title),
            ("description", self.description),
            ("arguments", dict(self.fixed)),
            ("defaults", dict(self.defaults)),
            ("annotations", dict(self.annotations)),
            ("max_result_tokens", self.max_result_tokens),
        ):
            if value:
                shown[key] = value
        return shown

    def arguments_for(
        self, arguments: Mapping[str, object]
    ) -> tuple[dict[str, object] | None, list[str]]:
        """The arguments to send for a caller's *arguments* (defaults filled in, fixed ones
        added), or ``(None, the fixed arguments the caller passed)``: refused, never
        overwritten."""
        passed = [key for key in self.fixed if key in arguments]
        if passed:
            return None, passed
        sent: dict[str, object] = {
            key: value for key, value in self.defaults.items() if key not in arguments
        }
        sent.update(arguments)
        sent.update(self.fixed)
        return sent, []


def _type_problem(value: object, schema: object) -> str | None:
    """Why *value* does not fit the property *schema* (its ``type``, ``enum``, ``const`` and an
    array's ``items``), or ``None``; what the schema does not say is not checked."""
    if not isinstance(schema, Mapping):
        return None
    kind = schema.get("type")
    kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else []
    known = [k for k in kinds if isinstance(k, str) and k in _JSON_TYPES]
    if known:
        fits = False
        for name in known:
            if isinstance(value, bool) and name in ("integer", "number"):
                continue
            if isinstance(value, _JSON_TYPES[name]):
                fits = True
        if not fits:
            return f"must be of type {' or '.join(known)} (the tool's input schema says so)"
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum:
        allowed = ", ".join(json.dumps(item, default=str) for item in enum[:10])
        return f"must be one of {allowed} (the tool's input schema says so)"
    if "const" in schema and value != schema["const"]:
        return "must be the tool's constant value (the tool's input schema says so)"
    if isinstance(value, list):
        for index, item in enumerate(value):
            problem = _type_problem(item, schema.get("items"))
            if problem is not None:
                return f"item {index} {problem}"
    return None


def override_problem(override: ToolOverride, schema: Mapping[str, object]) -> str | None:
    """Why *override* cannot apply to a tool of input *schema* (``<file>:<line>: <key>:
    <what>``), or ``None``."""
    properties = schema.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    for kind, values in (("arguments", override.fixed), ("defaults", override.defaults)):
        for key, value in values.items():
            if key not in properties:
                known = ", ".join(sorted(properties)[:20]) or "none"
                return (
                    f"{override.where(f'{kind}.{key}')}: the tool {override.tool!r} has no "
                    f"argument {key!r} (its arguments: {known})"
                )
            problem = _type_problem(value, properties[key])
            if problem is not None:
                return f"{override.where(f'{kind}.{key}')}: {problem}"
    return None


def overridden_schema(override: ToolOverride, schema: Mapping[str, JsonValue]) -> JsonObject:
    """The input schema the model sees: fixed arguments taken out, defaults shown as the
    property's ``default`` and no longer required.  *schema* is not changed."""
    if not override.fixed and not override.defaults:
        return dict(schema)
    shaped = dict(schema)
    given = schema.get("properties")
    properties: JsonObject = dict(given) if isinstance(given, dict) else {}
    for key in override.fixed:
        properties.pop(key, None)
    for key, value in override.defaults.items():
        prop = properties.get(key)
        properties[key] = {**(prop if isinstance(prop, Mapping) else {}), "default": value}
    shaped["properties"] = properties
    required = schema.get("required")
    if isinstance(required, list):
        gone = set(override.fixed) | set(override.defaults)
        kept = [name for name in required if name not in gone]
        if kept:
            shaped["required"] = kept
        else:
            shaped.pop("required", None)
    return shaped


def shown_name(overrides: Mapping[str, ToolOverride], tool: str) -> str:
    """The name *tool* is shown under: its override's ``name``, else its own."""
    override = overrides.get(tool)
    return override.name if override is not None and override.name is not None else tool
