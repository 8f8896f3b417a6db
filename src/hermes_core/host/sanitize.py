"""Clean what MCP servers send before a model sees it: TAG characters, ``_meta``, input schemas.

**TAG characters.**  Unicode TAG characters (U+E0000–U+E007F) are invisible in every terminal and
chat UI, yet models read them, so a server can hide instructions in a description or a result
("ASCII smuggling").  :func:`strip_tags` removes all of them except inside a well-formed emoji tag
sequence, the subdivision flags (🏴 + tag letters/digits + CANCEL TAG: Scotland, Wales, England,
US states...).  A flag sequence is kept only when its tag part spells a Unicode subdivision id
(UTS #51 / CLDR ``unicode_subdivision_id``: two lowercase letters or three digits, then one to
four lowercase letters or digits), so a flag cannot carry a payload of more than seven
lowercase-alphanumeric tags; a lone run, an unterminated run (the 🏴 survives, its tags do not) or
a run after any other character is removed.  :func:`sanitize_value` applies the same to every
string, keys included, of a JSON-like value (``structuredContent``, ``_meta``, resource and prompt
metadata), without recursion limits and in linear time.

**Controls and invisible characters.**  :func:`clean_text` (which :func:`sanitize_value` applies
to every string) also removes what lets a server rewrite the user's terminal or hide text from a
reader: C0 controls except tab and newline (``ESC[2J``, OSC titles, ``\\r`` overwriting a line,
backspaces), DEL and C1 controls (U+0080–U+009F, ``CSI`` on some terminals); bidi embeddings,
overrides and isolates (U+202A–U+202E, U+2066–U+2069: "Trojan Source" reordering); zero-width
and invisible format characters (U+200B, U+2060–U+2064, U+FEFF, U+180E, U+206A–U+206F).  ZERO
WIDTH JOINER / NON-JOINER (U+200D/U+200C) are kept only alone between two non-ASCII characters,
where emoji sequences and Indic or Persian writing need them; anywhere else, or in runs, they
go.  :func:`clean_line` is for text shown on one line (it turns line breaks into spaces).

**``_meta``.**  :func:`clean_meta` keeps vendor keys (``com.example/handoff``) and drops keys
under a prefix the MCP specification reserves.  Both revisions of the key-naming rule are
honoured, since servers in the wild follow either: 2025-06-18 reserves a prefix with a
``modelcontextprotocol`` or ``mcp`` label followed by at least one more label
(``modelcontextprotocol.io/``, ``tools.mcp.com/``); 2025-11-25 reserves a prefix whose *second*
label is one of them (``io.modelcontextprotocol/``, ``dev.mcp/``).  ``com.example.mcp/`` is
reserved by neither.  Labels compare case-insensitively.

**Input schemas.**  :func:`check_input_schema` says why a tool's ``inputSchema`` is unusable;
:func:`normalise_input_schema` returns a repaired copy that model APIs accept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeAlias, TypeVar, cast

__all__ = [
    "SHORT_ASCII",
    "ascii_control",
    "check_input_schema",
    "clean_line",
    "clean_meta",
    "clean_text",
    "is_reserved_meta_key",
    "normalise_input_schema",
    "prepare_input_schema",
    "sanitize_value",
    "strip_tags",
]

_T = TypeVar("_T")

_ANY_TAG = re.compile("[\U000e0000-\U000e007f]")
_TAG_LOWER = "[\U000e0061-\U000e007a]"  # TAG LATIN SMALL LETTER A..Z
_TAG_DIGIT = "[\U000e0030-\U000e0039]"  # TAG DIGIT ZERO..NINE
_TAG_ALNUM = "[\U000e0030-\U000e0039\U000e0061-\U000e007a]"
_FLAG_SEQUENCE = f"\U0001f3f4(?:{_TAG_LOWER}{{2}}|{_TAG_DIGIT}{{3}}){_TAG_ALNUM}{{1,4}}\U000e007f"
_FLAG = re.compile(_FLAG_SEQUENCE)
_TAG_RUN = re.compile("[\U000e0000-\U000e007f]+")


def strip_tags(text: str) -> str:
    """*text* without Unicode TAG characters, keeping well-formed subdivision flags whole.

    When nothing is removed (no TAG characters, or only inside flags) the same object comes
    back.  Linear in ``len(text)``: the
    flag pattern is bounded (at most nine characters per 🏴 tried) and the rest is plain deletion.
    """
    if text.isascii() or _ANY_TAG.search(text) is None:
        return text
    parts: list[str] = []
    start = 0
    for flag in _FLAG.finditer(text):
        parts.append(_TAG_RUN.sub("", text[start : flag.start()]))
        parts.append(flag.group())
        start = flag.end()
    parts.append(_TAG_RUN.sub("", text[start:]))
    result = "".join(parts)
    # Only deletions happen, so equal length means nothing was removed (only valid flags).
    return text if len(result) == len(text) else result


_INVISIBLE = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 but tab and newline, DEL, C1
    "\u180e\u200b\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
)
_ANY_INVISIBLE = re.compile(f"[{_INVISIBLE}]")
# A joiner survives only alone between two non-ASCII characters (after the rest is gone).
_STRAY_JOINER = re.compile(
    "(?<![^\x00-\x7f\u200c\u200d])[\u200c\u200d]|[\u200c\u200d](?![^\x00-\x7f\u200c\u200d])"
)
_JOINER_RUN = re.compile("[\u200c\u200d]{2,}")
_ASCII_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
_ASCII_CONTROLS = tuple(chr(code) for code in (*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F))
#: Above this length one ``in`` test per control character (a ``memchr`` each, about 0.3 ns a
#: character together) beats the regex (several ns a character); below it, one regex call wins.
_LONG_ASCII = 512
#: For callers that check short ASCII text themselves (one regex search, no call of ours):
#: ``len(text) < SHORT_ASCII and text.isascii() and ascii_control(text) is None`` means
#: :func:`clean_text` would return *text* unchanged.
SHORT_ASCII = _LONG_ASCII
ascii_control = _ASCII_CONTROL.search


def _has_ascii_control(text: str) -> bool:
    """Whether the pure-ASCII *text* holds a control :func:`clean_text` removes."""
    if len(text) < _LONG_ASCII:
        return _ASCII_CONTROL.search(text) is not None
    return any(control in text for control in _ASCII_CONTROLS)


_NEEDS_CLEANING = re.compile(f"[{_INVISIBLE}\u200c\u200d\U000e0000-\U000e007f]")


def clean_text(text: str) -> str:
    """*text* without TAG characters (:func:`strip_tags`), controls other than tab and newline,
    bidi overrides and isolates, and zero-width characters (see the module docstring).

    When nothing is removed the same object comes back.  Linear in ``len(text)``.
    """
    if text.isascii():  # a flag the string keeps: no scan
        return _ANY_INVISIBLE.sub("", text) if _has_ascii_control(text) else text
    if _NEEDS_CLEANING.search(text) is None:
        return text
    result = _ANY_INVISIBLE.sub("", strip_tags(text))
    if "\u200c" in result or "\u200d" in result:
        result = _STRAY_JOINER.sub("", _JOINER_RUN.sub("", result))
    return text if result == text else result


def clean_line(text: str) -> str:
    """:func:`clean_text` for one line of a terminal: line breaks and tabs become spaces."""
    return clean_text(text.replace("\r\n", " ").replace("\n", " ").replace("\t", " "))


def _needs_stripping(text: str) -> bool:
    return clean_text(text) is not text


_Container: TypeAlias = dict[Any, Any] | list[Any] | tuple[Any, ...]


def _children(node: _Container) -> list[Any]:
    if isinstance(node, dict):
        return [*node.keys(), *node.values()]
    return list(node)


def _contains_tags(root: _Container) -> bool:
    """Whether any string in *root* (keys included) loses characters to :func:`clean_text`.

    One walk over the containers, looking only at what can carry text: a pure-ASCII string
    (``str.isascii`` reads a flag the string keeps) is only searched for the ASCII controls,
    numbers and other values are never looked at, and nothing is serialised.  The plain JSON
    types are told apart by ``type`` (what ``model_dump`` and ``json.loads`` give) and walked
    recursively down to :data:`_NEST_LIMIT` levels (half the cost of a stack of pending items
    for the small results most calls return); anything deeper, and subclasses, take the
    iterative :func:`_scan`.  Each container is looked at once (shared and self-referencing
    values end).
    """
    seen = {id(root)}
    kind = type(root)
    if kind is dict or kind is list or kind is tuple:
        return _walk(root, seen, 0)
    seen.clear()
    return _scan(root, seen)


_NEST_LIMIT = 24


def _walk(node: _Container, seen: set[int], depth: int) -> bool:
    if type(node) is dict:
        for key in node:
            if key in _CLEAN_WORDS:  # a field name of a result
                continue
            if type(key) is str:
                if key.isascii():
                    if _ASCII_CONTROL.search(key) is not None:
                        return True
                elif clean_text(key) is not key:
                    return True
            elif _scan(key, seen):  # a number, a tuple, a str subclass...
                return True
        children: Iterable[Any] = node.values()
    else:
        children = node
    for item in children:
        kind = type(item)
        if kind is str:
            if item in _CLEAN_WORDS:  # a content type, a role...
                continue
            if item.isascii():  # only C0 controls and DEL to look for
                if len(item) < _LONG_ASCII:
                    if _ASCII_CONTROL.search(item) is not None:
                        return True
                elif _has_ascii_control(item):
                    return True
            elif clean_text(item) is not item:
                return True
        elif kind in _LEAVES:
            continue
        elif kind is dict or kind is list or kind is tuple:
            if id(item) in seen:
                continue
            if depth < _NEST_LIMIT:
                seen.add(id(item))
                if _walk(item, seen, depth + 1):
                    return True
            elif _scan(item, seen):
                return True
        elif _scan(item, seen):  # a subclass of str, dict, list or tuple, or another value
            return True
    return False


def _scan(root: Any, seen: set[int]) -> bool:
    """:func:`_contains_tags` without recursion (any depth), sharing *seen* with :func:`_walk`."""
    stack: list[Any] = [root]
    pop, push = stack.pop, stack.extend
    while stack:
        item = pop()
        kind = type(item)
        if kind is str:
            if item.isascii():  # only C0 controls and DEL to look for
                if len(item) < _LONG_ASCII:
                    if _ASCII_CONTROL.search(item) is not None:
                        return True
                elif _has_ascii_control(item):
                    return True
            elif clean_text(item) is not item:
                return True
        elif kind in _LEAVES:
            continue
        elif kind is dict:
            if id(item) not in seen:
                seen.add(id(item))
                push(item)  # the keys
                push(item.values())
        elif kind is list or kind is tuple:
            if id(item) not in seen:
                seen.add(id(item))
                push(item)
        elif isinstance(item, str):
            if clean_text(item) is not item:
                return True
        elif isinstance(item, dict):
            if id(item) not in seen:
                seen.add(id(item))
                push(item)
                push(item.values())
        elif isinstance(item, list | tuple) and id(item) not in seen:
            seen.add(id(item))
            push(item)
    return False


_LEAVES = frozenset({int, float, bool, type(None)})
#: Strings that need no look (plain ASCII words): the field names and content types of MCP
#: results, which make up most strings of a small result.  A hash lookup, no call.
_CLEAN_WORDS = frozenset(
    {
        *("content", "isError", "structuredContent", "_meta", "type", "text", "annotations"),
        *("image", "audio", "resource", "resource_link", "data", "mimeType", "uri", "blob"),
        *("name", "title", "description", "size", "icons", "audience", "priority"),
        *("lastModified", "user", "assistant", "resultType", "complete"),
    }
)


def _rebuild(root: _Container) -> Any:
    done: dict[int, Any] = {}
    on_path: set[int] = set()
    stack: list[tuple[_Container, bool]] = [(root, False)]

    def resolve(value: Any) -> Any:
        if isinstance(value, str):
            return clean_text(value)
        if isinstance(value, dict | list | tuple):
            return done[id(value)]
        return value

    while stack:
        node, expanded = stack.pop()
        key = id(node)
        if key in done:
            continue
        if not expanded:
            if key in on_path:
                raise ValueError("cannot sanitise a self-referencing value")
            on_path.add(key)
            stack.append((node, True))
            stack.extend(
                (child, False)
                for child in _children(node)
                if isinstance(child, dict | list | tuple) and id(child) not in done
            )
            continue
        on_path.discard(key)
        if isinstance(node, dict):
            done[key] = _rebuild_dict(node, resolve)
        elif isinstance(node, tuple):
            done[key] = tuple(resolve(v) for v in node)
        else:
            done[key] = [resolve(v) for v in node]
    return done[id(root)]


def _rebuild_dict(node: dict[Any, Any], resolve: Callable[[Any], Any]) -> dict[Any, Any]:
    # Stripping can make two keys equal ("role" and "role" + hidden tags).  The key that arrived
    # clean wins, so hidden text cannot override a visible field; among tagged ones the first wins.
    out: dict[Any, Any] = {}
    from_tagged: set[Any] = set()
    for raw_key, raw_value in node.items():
        new_key = resolve(raw_key) if isinstance(raw_key, str) else raw_key
        value = resolve(raw_value)
        was_tagged = isinstance(raw_key, str) and new_key != raw_key
        if new_key in out:
            if not was_tagged and new_key in from_tagged:
                out[new_key] = value
                from_tagged.discard(new_key)
            continue
        out[new_key] = value
        if was_tagged:
            from_tagged.add(new_key)
    return out


def sanitize_value(obj: _T) -> _T:
    """*obj* with :func:`clean_text` applied to every string in it, dict keys included.

    Dicts, lists and tuples are walked (iteratively: depth is no limit); other values pass
    through.  When nothing needs stripping the same object comes back; otherwise a cleaned copy
    (plain ``dict``/``list``/``tuple``), leaving *obj* untouched.  A self-referencing value raises
    ``ValueError``.
    """
    kind = type(obj)
    if kind is not dict and kind is not list:
        if isinstance(obj, str):
            return cast(_T, clean_text(obj))
        if not isinstance(obj, dict | list | tuple):
            return obj
    if not _contains_tags(obj):  # type: ignore[arg-type]  # (no cast(): it is a call)
        return obj
    return cast(_T, _rebuild(obj))  # type: ignore[arg-type]


_RESERVED_LABELS = frozenset({"modelcontextprotocol", "mcp"})


def is_reserved_meta_key(key: str) -> bool:
    """Whether a ``_meta`` key sits under a prefix MCP reserves (see the module docstring)."""
    prefix, slash, _name = key.partition("/")
    if not slash:
        return False
    labels = [label.strip().lower() for label in prefix.split(".")]
    if len(labels) >= 2 and labels[1] in _RESERVED_LABELS:  # 2025-11-25: second label
        return True
    return any(label in _RESERVED_LABELS for label in labels[:-1])  # 2025-06-18


def clean_meta(meta: Mapping[Any, Any] | None) -> dict[str, Any] | None:
    """The ``_meta`` to pass on to the model, or ``None`` to omit it.

    Non-string keys and reserved keys are dropped; TAG characters are stripped from keys and
    values first, so a key cannot hide its reserved prefix behind invisible characters.  Returns
    ``None`` for ``None``, a non-mapping, or when nothing is left.
    """
    if not isinstance(meta, Mapping):
        return None
    string_keyed = {key: value for key, value in meta.items() if isinstance(key, str)}
    cleaned = sanitize_value(string_keyed)
    kept = {key: value for key, value in cleaned.items() if not is_reserved_meta_key(key)}
    return kept or None


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


def prepare_input_schema(schema: object) -> tuple[dict[str, Any] | None, str | None]:
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
            if _needs_no_repair(schema):
                return schema, None
            return _copied_root(schema), None
        except (_Unusual, RecursionError):
            pass  # keys to convert, odd types, NaN, cycles...: json's rules and its messages
    try:
        copy: dict[str, Any] = json.loads(json.dumps(dict(schema), allow_nan=False))
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
_MEANING_KEYWORDS = frozenset(
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


def _repair(node: dict[str, Any], keep_meaning: bool = False) -> list[Any]:
    """Repair one schema node in place; return its sub-schemas."""
    _repair_node(node, keep_meaning)
    return _subschemas(node)


def _repair_node(node: dict[str, Any], keep_meaning: bool = False) -> None:
    """The repairs of one node, its sub-schemas left alone (*keep_meaning*: only those that
    keep what the schema accepts, see :data:`_MEANING_KEYWORDS`)."""
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
        if not isinstance(node.get("properties"), dict):
            node["properties"] = {}
        if "required" in node:
            required = node["required"]
            names = node["properties"]
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


def _subschemas(node: dict[str, Any]) -> list[Any]:
    # Walk the node's own keys (usually a handful), not every keyword there is.
    subs: list[Any] = []
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


class _Unusual(Exception):
    """Not plain JSON (exact dict/list/str/int/bool/None, finite floats, str keys)."""


def _plain(value: Any) -> Any:
    """A copy of a non-schema JSON value (``default``, ``enum``, ``const``...)."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        if value - value != 0.0:  # inf or nan
            raise _Unusual
        return value
    if kind is dict:
        copy = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _Unusual
            copy[key] = _plain(item)
        return copy
    if kind is list:
        return [_plain(item) for item in value]
    raise _Unusual


def _copied(
    node: dict[Any, Any], keep_meaning: bool = False, marks: list[str] | None = None
) -> dict[str, Any]:
    """A repaired copy of one schema node and, through :data:`_SUBSCHEMA_KEYS`, its
    sub-schemas: the result of a JSON round trip then :func:`_repair` at every level.
    Keywords of :data:`_MEANING_KEYWORDS` met on the way are appended to *marks*."""
    copy: dict[str, Any] = {}
    for key, value in node.items():
        if type(key) is not str:
            raise _Unusual
        if marks is not None and key in _MEANING_KEYWORDS:
            marks.append(key)
        role = _SUBSCHEMA_KEYS.get(key)
        if role is None:
            copy[key] = _plain(value)
        elif type(value) is dict:
            if role == "map":
                inner = {}
                for name, sub in value.items():
                    if type(name) is not str:
                        raise _Unusual
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


def _copied_root(schema: dict[Any, Any]) -> dict[str, Any]:
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


def _needs_no_repair(schema: dict[Any, Any]) -> bool:
    """Whether :func:`_copied_root` would return an equal copy of *schema*: plain JSON at
    every level, a root ``type: object``, and no node that :func:`_repair_node` would change
    under either rule set (see :data:`_MEANING_KEYWORDS`).  Raises :class:`_Unusual` where
    the copy would (odd types, NaN, non-string keys).

    One read-only walk.  ``False`` only sends the schema through the copying pass, which is
    always right: so a node the usual rules would repair answers ``False`` even where the
    schema's meaning keywords would have kept it as it is (rare: such schemas are copied)."""
    if schema.get("type") != "object":
        return False
    pending: list[tuple[dict[Any, Any], int]] = [(schema, 0)]
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
                raise _Unusual
            role = _SUBSCHEMA_KEYS.get(key)
            if role is None:
                if type(value) not in _SCALARS:
                    _check_plain(value)
            elif type(value) is dict:
                if role == "map":
                    for name, sub in value.items():
                        if type(name) is not str:
                            raise _Unusual
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


def _required_is_clean(required: Any, names: dict[Any, Any]) -> bool:
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


def _check_plain(value: Any) -> None:
    """Raise :class:`_Unusual` where :func:`_plain` would (read only, nothing copied)."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return
    if kind is float:
        if value - value != 0.0:  # inf or nan
            raise _Unusual
        return
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                raise _Unusual
            _check_plain(item)
        return
    if kind is list:
        for item in value:
            _check_plain(item)
        return
    raise _Unusual


def normalise_input_schema(schema: object) -> dict[str, Any]:
    """A repaired deep copy of *schema*, or ``{"type": "object", "properties": {}}``.

    An empty, missing or malformed (:func:`check_input_schema`) schema becomes the empty object
    schema.  Otherwise, at every level: a node with ``properties``/``required`` but no ``type``
    becomes an object; objects always have ``properties``; ``required`` keeps only the names of
    existing properties and disappears when empty; arrays without ``items``/``prefixItems`` get
    ``items: {}``; TAG characters are stripped from ``description`` and ``title`` (never from
    names, enums or defaults, which must stay as the server expects them).  *schema* itself is
    not modified.  A schema using references, compositions or the 2020-12 evaluation keywords
    (:data:`_MEANING_KEYWORDS`: ``$ref``, ``$defs``, ``allOf``, ``prefixItems``,
    ``unevaluatedProperties``...) keeps its meaning: no ``type`` is inferred, no ``required``
    pruned, and ``$ref`` is never dereferenced.
    """
    prepared, _problem = prepare_input_schema(schema)
    return prepared if prepared is not None else {"type": "object", "properties": {}}


def _repaired(copy: dict[str, Any]) -> dict[str, Any]:
    """Repair a private JSON copy in place (see :func:`normalise_input_schema`)."""
    copy.setdefault("type", "object")
    if copy["type"] is None:
        copy["type"] = "object"
    keep_meaning = _uses_meaning_keywords(copy)
    pending: list[dict[str, Any]] = [copy]
    while pending:
        pending.extend(_repair(pending.pop(), keep_meaning))
    return copy


def _uses_meaning_keywords(schema: dict[str, Any]) -> bool:
    """Whether any schema node under *schema* uses a keyword of :data:`_MEANING_KEYWORDS`."""
    pending: list[dict[str, Any]] = [schema]
    while pending:
        node = pending.pop()
        if not _MEANING_KEYWORDS.isdisjoint(node):
            return True
        pending.extend(_subschemas(node))
    return False
