"""The repairs of a tool's input schema, node by node: the copying pass and the read-only check
that most schemas need none (see :func:`hermes_core.sanitize.schema.normalise_input_schema`)."""

from __future__ import annotations

from typing import TypeAlias

from hermes_core.sanitize.text import clean_text

#: A schema node: a JSON object, its values checked where they are read.
Node: TypeAlias = dict[str, object]

_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_ONE = (
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
)


#: Keywords through which a node's properties, ``required`` names or type can come from
#: elsewhere (a reference, a composition, a condition, a pattern) or be evaluated across nodes
#: (2020-12 ``unevaluated*``, ``prefixItems``).  In a schema using any of them, inferring a
#: ``type`` or pruning ``required`` would change what it accepts, so neither is done anywhere
#: in it: only the repairs that keep its meaning (TAG characters in ``description``/``title``,
#: ``properties: {}`` on an object, ``items: {}`` on an array) apply.
MEANING_KEYWORDS = frozenset(
    {
        "$ref",
        "$dynamicRef",
        "$recursiveRef",
        "$defs",
        "definitions",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "dependentSchemas",
        "dependentRequired",
        "patternProperties",
        "unevaluatedProperties",
        "unevaluatedItems",
        "prefixItems",
    }
)


_SUBSCHEMA_KEYS: dict[str, str] = {
    **dict.fromkeys(_SCHEMA_MAPS, "map"),
    **dict.fromkeys(_SCHEMA_LISTS, "list"),
    **dict.fromkeys(_SCHEMA_ONE, "one"),
    "items": "items",
}


def repair(node: Node, keep_meaning: bool = False) -> list[Node]:
    """Repair one schema node in place; return its sub-schemas."""
    _repair_node(node, keep_meaning)
    return subschemas(node)


def _repair_node(node: Node, keep_meaning: bool = False) -> None:
    """The repairs of one node, its sub-schemas left alone (*keep_meaning*: only those that
    keep what the schema accepts, see :data:`MEANING_KEYWORDS`)."""
    for text_key in ("description", "title"):
        text = node.get(text_key)
        if isinstance(text, str):
            node[text_key] = clean_text(text)
    if keep_meaning:
        if node.get("type") == "object" and not isinstance(node.get("properties"), dict):
            node["properties"] = {}
        elif node.get("type") == "array" and "items" not in node and "prefixItems" not in node:
            node["items"] = {}
        return
    if node.get("type") is None and ("properties" in node or "required" in node):
        node["type"] = "object"
    kind = node.get("type")
    if kind == "object":
        names = node.get("properties")
        if not isinstance(names, dict):
            names = node["properties"] = {}
        if "required" in node:
            required = node["required"]
            pruned = (
                [n for n in dict.fromkeys(r for r in required if isinstance(r, str)) if n in names]
                if isinstance(required, list)
                else []
            )
            if pruned:
                node["required"] = pruned
            else:
                del node["required"]
    elif kind == "array" and "items" not in node and "prefixItems" not in node:
        node["items"] = {}


def subschemas(node: Node) -> list[Node]:
    # Walk the node's own keys (usually a handful), not every keyword there is.
    subs: list[Node] = []
    for key, value in node.items():
        kind_of_key = _SUBSCHEMA_KEYS.get(key)
        if kind_of_key is None:
            continue
        if kind_of_key == "map":
            if isinstance(value, dict):
                subs.extend(v for v in value.values() if isinstance(v, dict))
        elif isinstance(value, list):
            if kind_of_key in ("list", "items"):
                subs.extend(v for v in value if isinstance(v, dict))
        elif isinstance(value, dict):
            subs.append(value)
    return subs


class Unusual(Exception):
    """Not plain JSON (exact dict/list/str/int/bool/None, finite floats, str keys)."""


def _plain(value: object) -> object:
    """A copy of a non-schema JSON value (``default``, ``enum``, ``const``...)."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if type(value) is float:
        if value - value != 0.0:  # inf or nan
            raise Unusual
        return value
    if type(value) is dict:
        copy: Node = {}
        for key, item in value.items():
            if type(key) is not str:
                raise Unusual
            copy[key] = _plain(item)
        return copy
    if type(value) is list:
        return [_plain(item) for item in value]
    raise Unusual


def _copied(
    node: dict[object, object], keep_meaning: bool = False, marks: list[str] | None = None
) -> Node:
    """A repaired copy of one schema node and, through :data:`_SUBSCHEMA_KEYS`, its
    sub-schemas: the result of a JSON round trip then :func:`repair` at every level.
    Keywords of :data:`MEANING_KEYWORDS` met on the way are appended to *marks*."""
    copy: Node = {}
    for key, value in node.items():
        if type(key) is not str:
            raise Unusual
        if marks is not None and key in MEANING_KEYWORDS:
            marks.append(key)
        role = _SUBSCHEMA_KEYS.get(key)
        if role is None:
            copy[key] = _plain(value)
        elif type(value) is dict:
            if role == "map":
                inner: Node = {}
                for name, sub in value.items():
                    if type(name) is not str:
                        raise Unusual
                    inner[name] = (
                        _copied(sub, keep_meaning, marks) if type(sub) is dict else _plain(sub)
                    )
                copy[key] = inner
            else:
                copy[key] = _copied(value, keep_meaning, marks)
        elif type(value) is list and role in ("list", "items"):
            copy[key] = [
                _copied(sub, keep_meaning, marks) if type(sub) is dict else _plain(sub)
                for sub in value
            ]
        else:
            copy[key] = _plain(value)
    _repair_node(copy, keep_meaning)
    return copy


def copied_root(schema: dict[object, object]) -> Node:
    kind = schema.get("type", "object")
    if kind is None or "type" not in schema:
        schema = {**schema, "type": "object"}
    marks: list[str] = []
    copy = _copied(schema, marks=marks)
    # A schema using references or compositions (rare): copied again, its meaning kept.
    return _copied(schema, keep_meaning=True) if marks else copy


_SCALARS = frozenset({str, int, bool, type(None)})
#: Schemas nested deeper than this are left to the copying pass (which is recursive).
_NO_REPAIR_MAX_DEPTH = 64


def needs_no_repair(schema: dict[object, object]) -> bool:
    """Whether :func:`copied_root` would return an equal copy of *schema*: plain JSON at
    every level, a root ``type: object``, and no node that :func:`_repair_node` would change
    under either rule set (see :data:`MEANING_KEYWORDS`).  Raises :class:`Unusual` where
    the copy would (odd types, NaN, non-string keys).

    One read-only walk.  ``False`` only sends the schema through the copying pass, which is
    always right: so a node the usual rules would repair answers ``False`` even where the
    schema's meaning keywords would have kept it as it is (rare: such schemas are copied)."""
    if schema.get("type") != "object":
        return False
    pending: list[tuple[dict[object, object], int]] = [(schema, 0)]
    while pending:
        node, depth = pending.pop()
        if depth > _NO_REPAIR_MAX_DEPTH:
            return False  # deep nesting: the copying pass decides (and its errors say why)
        for text_key in ("description", "title"):
            text = node.get(text_key)
            if type(text) is str and clean_text(text) is not text:
                return False
        kind = node.get("type")
        if kind == "object":
            names = node.get("properties")
            if type(names) is not dict:
                return False
            if "required" in node and not _required_is_clean(node["required"], names):
                return False
        elif kind == "array":
            if "items" not in node and "prefixItems" not in node:
                return False
        elif kind is None and ("properties" in node or "required" in node):
            return False  # a type would be inferred
        depth += 1
        for key, value in node.items():
            if type(key) is not str:
                raise Unusual
            role = _SUBSCHEMA_KEYS.get(key)
            if role is None:
                if type(value) not in _SCALARS:
                    _check_plain(value)
            elif type(value) is dict:
                if role == "map":
                    for name, sub in value.items():
                        if type(name) is not str:
                            raise Unusual
                        if type(sub) is dict:
                            pending.append((sub, depth))
                        else:
                            _check_plain(sub)
                else:
                    pending.append((value, depth))
            elif type(value) is list and role in ("list", "items"):
                for sub in value:
                    if type(sub) is dict:
                        pending.append((sub, depth))
                    else:
                        _check_plain(sub)
            else:
                _check_plain(value)
    return True


def _required_is_clean(required: object, names: dict[object, object]) -> bool:
    """Whether ``required`` survives pruning as it is: a non-empty list of distinct strings,
    each a property name."""
    if type(required) is not list or not required:
        return False
    seen: set[str] = set()
    for entry in required:
        if type(entry) is not str or entry not in names or entry in seen:
            return False
        seen.add(entry)
    return True


def _check_plain(value: object) -> None:
    """Raise :class:`Unusual` where :func:`_plain` would (read only, nothing copied)."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return
    if type(value) is float:
        if value - value != 0.0:  # inf or nan
            raise Unusual
        return
    if type(value) is dict:
        for key, item in value.items():
            if type(key) is not str:
                raise Unusual
            _check_plain(item)
        return
    if type(value) is list:
        for item in value:
            _check_plain(item)
        return
    raise Unusual
