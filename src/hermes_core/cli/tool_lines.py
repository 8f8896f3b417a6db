"""``hermes mcp tools`` as text: each tool as a signature built from its input schema
(``read_text_file(path: str, head?: int, tail?: int)``) and its description, wrapped at the
terminal's width on word boundaries."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hermes_core.sanitize import clean_line

if TYPE_CHECKING:
    from hermes_core.host.tools.registry import ToolEntry

__all__ = ["MAX_DESCRIPTION_LINES", "signature", "tool_lines", "width"]

#: A description is cut after this many wrapped lines (``--json`` has all of it).
MAX_DESCRIPTION_LINES = 3
#: How deep a parameter's type is spelled out (``list[dict]``, not further).
_MAX_DEPTH = 2
_SCALARS = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "null": "None",
    "object": "dict",
    "array": "list",
}


def width() -> int:
    """The terminal's columns (``COLUMNS``, else 80 when not a terminal), at least 40."""
    return max(shutil.get_terminal_size((80, 24)).columns, 40)


def type_name(schema: object, depth: int = 0) -> str:
    """A JSON schema as a short Python-like type: ``str``, ``list[int]``, ``str | None``,
    ``"a" | "b"`` for an enum, ``any`` when it says nothing."""
    if not isinstance(schema, dict):
        return "any"
    if isinstance(schema.get("enum"), list) and schema["enum"] and depth < _MAX_DEPTH:
        shown = [repr(v) if isinstance(v, str) else str(v) for v in schema["enum"][:4]]
        return " | ".join(shown) + (" | …" if len(schema["enum"]) > 4 else "")
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            return " | ".join(dict.fromkeys(type_name(o, depth + 1) for o in options[:4]))
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(dict.fromkeys(type_name({**schema, "type": k}, depth) for k in kind))
    if kind == "array" and depth < _MAX_DEPTH and isinstance(schema.get("items"), dict):
        return f"list[{type_name(schema['items'], depth + 1)}]"
    if isinstance(kind, str):
        return _SCALARS.get(kind, clean_line(kind)[:20])
    if "properties" in schema:
        return "dict"
    return "any"


def parameters(schema: object) -> list[str]:
    """``name: type`` per property, required ones first (as declared), optional as ``name?``."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return []
    required = schema.get("required")
    needed = set(required) if isinstance(required, list) else set()
    props: dict[str, object] = schema["properties"]
    ordered = [n for n in props if n in needed] + [n for n in props if n not in needed]
    return [
        f"{clean_line(str(name))}{'' if name in needed else '?'}: {type_name(props[name])}"
        for name in ordered
    ]


def signature(name: str, schema: object) -> str:
    """``name(a: str, b?: int)``."""
    return f"{name}({', '.join(parameters(schema))})"


def _wrap_signature(name: str, params: Sequence[str], columns: int) -> list[str]:
    one = f"{name}({', '.join(params)})"
    if len(one) <= columns or not params:
        return [one]
    lines, line, indent = [], f"{name}(", " " * 4
    for index, param in enumerate(params):
        piece = param + (", " if index < len(params) - 1 else ")")
        if len(line) + len(piece.rstrip()) > columns and line.strip():
            lines.append(line.rstrip())
            line = indent
        line += piece
    lines.append(line.rstrip())
    return lines


def tool_lines(entry: ToolEntry, columns: int) -> list[str]:
    """The lines of one tool: its signature, then its description's first paragraph indented,
    wrapped at *columns* on word boundaries and cut after :data:`MAX_DESCRIPTION_LINES`."""
    lines = _wrap_signature(entry.name, parameters(entry.input_schema), columns)
    paragraph = entry.description.strip().split("\n\n", 1)[0]
    text = clean_line(" ".join(paragraph.split()))
    if entry.utility:  # the host's, over the server's resources or prompts
        text = f"[host tool] {text}"
    if text:
        wrapped = textwrap.wrap(
            text,
            width=max(columns, 40),
            initial_indent="    ",
            subsequent_indent="    ",
            break_long_words=False,
            break_on_hyphens=False,
            max_lines=MAX_DESCRIPTION_LINES,
            placeholder=" …",
        )
        lines += wrapped
    return lines
