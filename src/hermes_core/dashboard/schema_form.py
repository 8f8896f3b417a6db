"""A tool's input schema as an HTML form, and the form's values back as arguments.

Each property is one field: text, number, a choice (``enum``; a boolean is true/false/unset),
or JSON for objects, arrays and unions.  A nullable property (``type: [X, "null"]``, or
``anyOf``/``oneOf`` of X and ``null``, as Pydantic writes ``X | None``) is its X field plus a
"null" box.  An empty field is left out of the arguments (the server's default applies).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from hermes_core.dashboard.html import esc
from hermes_core.nesting import MAX_ARGUMENT_DEPTH, json_text_depth, nesting_problem

__all__ = ["ArgumentError", "Field", "arguments", "fields", "form_fields"]

JSON_FIELD = "__json__"


class ArgumentError(ValueError):
    """A form value that is not what the schema asks for (the field and why)."""


@dataclass(frozen=True)
class Field:
    name: str
    kind: str
    """``string``, ``integer``, ``number``, ``boolean``, ``enum`` or ``json``."""
    nullable: bool
    required: bool
    description: str
    choices: tuple[object, ...] = ()
    default: object = None


def _kind(prop: Mapping[str, object]) -> tuple[str, bool, tuple[object, ...]]:
    options = prop.get("anyOf") or prop.get("oneOf")
    if isinstance(options, list):
        real = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
        nullable = len(real) < len(options)
        if len(real) == 1 and isinstance(real[0], dict):
            kind, _inner, choices = _kind(real[0])
            return kind, nullable, choices
        return "json", nullable, ()
    declared = prop.get("type")
    kind = declared if isinstance(declared, str) else "json"
    nullable = False
    if isinstance(declared, list):
        nullable = "null" in declared
        rest = [k for k in declared if k != "null"]
        kind = str(rest[0]) if len(rest) == 1 else "json"
    enum = prop.get("enum")
    if isinstance(enum, list) and enum:
        return "enum", nullable or None in enum, tuple(enum)
    if kind in ("string", "integer", "number", "boolean"):
        return str(kind), nullable, ()
    return "json", nullable, ()


def fields(schema: Mapping[str, object]) -> list[Field]:
    props = schema.get("properties")
    if not isinstance(props, dict):
        return []
    listed = schema.get("required")
    required = set(listed) if isinstance(listed, list) else set()
    found = []
    for name, prop in props.items():
        prop = prop if isinstance(prop, dict) else {}
        kind, nullable, choices = _kind(prop)
        found.append(
            Field(
                str(name),
                kind,
                nullable,
                name in required,
                str(prop.get("description") or prop.get("title") or ""),
                choices,
                prop.get("default"),
            )
        )
    return found


def _input(field: Field) -> str:
    name = f"a:{esc(field.name)}"
    shown = "" if field.default is None else field.default
    if field.kind in ("enum", "boolean"):
        choices = field.choices if field.kind == "enum" else (True, False)
        options = '<option value="">(unset)</option>' + "".join(
            f'<option value="{esc(json.dumps(c))}">{esc(json.dumps(c))}</option>'
            for c in choices
            if c is not None
        )
        return f'<select name="{name}">{options}</select>'
    if field.kind in ("integer", "number"):
        step = "1" if field.kind == "integer" else "any"
        return f'<input type="number" step="{step}" name="{name}" placeholder="{esc(shown)}">'
    if field.kind == "string":
        return f'<input type="text" name="{name}" size="50" placeholder="{esc(shown)}">'
    hint = "JSON" if field.default is None else json.dumps(field.default)
    return f'<textarea name="{name}" rows="3" cols="60" placeholder="{esc(hint)}"></textarea>'


def form_fields(schema: Mapping[str, object]) -> str:
    """The HTML of *schema*'s fields, and a JSON box that overrides them."""
    parts = []
    for field in fields(schema):
        need = " <span class=warn>*</span>" if field.required else ""
        null = (
            f' <label class=inline><input type="checkbox" name="n:{esc(field.name)}"> null</label>'
            if field.nullable
            else ""
        )
        hint = (
            f" <span class=muted>{esc(field.description, 300)}</span>" if field.description else ""
        )
        parts.append(
            f"<label><code>{esc(field.name)}</code> ({esc(field.kind)}){need} "
            f"{_input(field)}{null}{hint}</label>"
        )
    parts.append(
        "<details><summary>arguments as JSON (replaces the fields)</summary>"
        f'<textarea name="{JSON_FIELD}" '
        'rows="4" cols="70" placeholder="{}"></textarea></details>'
    )
    return "".join(parts)


def _value(field: Field, raw: str) -> object:
    nested = field.kind not in ("string", "integer", "number")
    if nested and json_text_depth(raw) + 1 > MAX_ARGUMENT_DEPTH:
        raise ArgumentError(f"{field.name} nests {nesting_problem()}")
    try:
        if field.kind == "string":
            return raw
        if field.kind == "integer":
            return int(raw)
        if field.kind == "number":
            return float(raw)
        return json.loads(raw)
    except ValueError:
        raise ArgumentError(f"{field.name}: {raw[:60]!r} is not a valid {field.kind}") from None


def arguments(schema: Mapping[str, object], form: Mapping[str, str]) -> dict[str, object]:
    """The arguments the submitted *form* gives for *schema*."""
    raw_json = form.get(JSON_FIELD, "").strip()
    if raw_json:
        if json_text_depth(raw_json) > MAX_ARGUMENT_DEPTH:
            raise ArgumentError(f"arguments JSON nests {nesting_problem()}")
        try:
            given = json.loads(raw_json)
        except ValueError as exc:
            raise ArgumentError(f"arguments JSON: {exc}") from None
        if not isinstance(given, dict):
            raise ArgumentError("arguments JSON must be an object")
        return given
    args: dict[str, object] = {}
    for field in fields(schema):
        if field.nullable and form.get(f"n:{field.name}"):
            args[field.name] = None
            continue
        raw = form.get(f"a:{field.name}", "")
        if raw == "" and not (field.kind == "string" and field.required):
            if field.required:
                raise ArgumentError(f"{field.name} is required")
            continue
        args[field.name] = _value(field, raw)
    return args
