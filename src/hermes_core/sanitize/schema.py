"""A tool's input schema made usable: :func:`check_input_schema` says why a tool's
``inputSchema`` is unusable; :func:`normalise_input_schema` returns a repaired copy that model
APIs accept; :func:`prepare_input_schema` does both in one pass."""

from __future__ import annotations

import json
from collections.abc import Mapping

from hermes_core.sanitize.schema_repair import (
    MEANING_KEYWORDS as MEANING_KEYWORDS,
)
from hermes_core.sanitize.schema_repair import (
    Node,
)
from hermes_core.sanitize.schema_repair import (
    Unusual as Unusual,
)
from hermes_core.sanitize.schema_repair import (
    copied_root as copied_root,
)
from hermes_core.sanitize.schema_repair import (
    needs_no_repair as needs_no_repair,
)
from hermes_core.sanitize.schema_repair import (
    repair as repair,
)
from hermes_core.sanitize.schema_repair import (
    subschemas as subschemas,
)

__all__ = ["check_input_schema", "normalise_input_schema", "prepare_input_schema"]


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


def check_input_schema(schema: object) -> str | None:
    """Why *schema* cannot be a tool's input schema, or ``None`` when it can.

    ``type: null`` and ``properties: null`` count as absent (:func:`normalise_input_schema`
    fills them in); a present ``type`` must be ``"object"``.
    """
    problem = _structure_problem(schema)
    if problem is not None:
        return problem
    try:
        json.dumps(dict(schema), allow_nan=False)  # type: ignore[call-overload]
    except (TypeError, ValueError) as exc:
        return f"input schema is not JSON-serialisable: {exc}"
    except RecursionError:
        return "input schema is nested too deeply"
    return None


def prepare_input_schema(schema: object) -> tuple[Node | None, str | None]:
    """``(normalised copy, None)``, or ``(None, why it is malformed)`` — in one pass.

    The same result as :func:`check_input_schema` then :func:`normalise_input_schema`, with
    one JSON round trip instead of three (registering thousands of tools stays cheap).
    """
    problem = _structure_problem(schema)
    if problem is not None:
        return None, problem
    assert isinstance(schema, Mapping)
    if not schema:
        return {"type": "object", "properties": {}}, None
    if type(schema) is dict:
        # The usual case, plain JSON from the wire: most schemas need no repair at all, and
        # are kept as they are (one read-only walk, nothing allocated); the others are copied
        # and repaired in one Python pass.
        try:
            if needs_no_repair(schema):
                return schema, None
            return copied_root(schema), None
        except (Unusual, RecursionError):
            pass  # keys to convert, odd types, NaN, cycles...: json's rules and its messages
    try:
        copy: Node = json.loads(json.dumps(dict(schema), allow_nan=False))
    except (TypeError, ValueError) as exc:
        return None, f"input schema is not JSON-serialisable: {exc}"
    except RecursionError:
        return None, "input schema is nested too deeply"
    return _repaired(copy), None


def _structure_problem(schema: object) -> str | None:
    if not isinstance(schema, Mapping):
        return f"input schema must be a JSON object, got {_type_name(schema)}"
    kind = schema.get("type")
    if kind is not None and kind != "object":
        return f'input schema type must be "object", got {kind!r}'
    properties = schema.get("properties")
    if properties is not None and not isinstance(properties, Mapping):
        return f"input schema properties must be an object, got {_type_name(properties)}"
    required = schema.get("required")
    if required is not None:
        if not isinstance(required, list):
            return f"input schema required must be a list, got {_type_name(required)}"
        for entry in required:
            if not isinstance(entry, str):
                return f"input schema required entries must be strings, got {entry!r}"
    return None


def normalise_input_schema(schema: object) -> Node:
    """A repaired deep copy of *schema*, or ``{"type": "object", "properties": {}}``.

    An empty, missing or malformed (:func:`check_input_schema`) schema becomes the empty object
    schema.  Otherwise, at every level: a node with ``properties``/``required`` but no ``type``
    becomes an object; objects always have ``properties``; ``required`` keeps only the names of
    existing properties and disappears when empty; arrays without ``items``/``prefixItems`` get
    ``items: {}``; TAG characters are stripped from ``description`` and ``title`` (never from
    names, enums or defaults, which must stay as the server expects them).  *schema* itself is
    not modified.  A schema using references, compositions or the 2020-12 evaluation keywords
    (:data:`MEANING_KEYWORDS`: ``$ref``, ``$defs``, ``allOf``, ``prefixItems``,
    ``unevaluatedProperties``...) keeps its meaning: no ``type`` is inferred, no ``required``
    pruned, and ``$ref`` is never dereferenced.
    """
    prepared, _problem = prepare_input_schema(schema)
    return prepared if prepared is not None else {"type": "object", "properties": {}}


def _repaired(copy: Node) -> Node:
    """Repair a private JSON copy in place (see :func:`normalise_input_schema`)."""
    copy.setdefault("type", "object")
    if copy["type"] is None:
        copy["type"] = "object"
    keep_meaning = _uses_meaning_keywords(copy)
    pending: list[Node] = [copy]
    while pending:
        pending.extend(repair(pending.pop(), keep_meaning))
    return copy


def _uses_meaning_keywords(schema: Node) -> bool:
    """Whether any schema node under *schema* uses a keyword of :data:`MEANING_KEYWORDS`."""
    pending: list[Node] = [schema]
    while pending:
        node = pending.pop()
        if not MEANING_KEYWORDS.isdisjoint(node):
            return True
        pending.extend(subschemas(node))
    return False
