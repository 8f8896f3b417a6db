"""A tool's definition as it is pinned: the parts that decide what the model reads and what
the host does (name, title, description, input and output schemas, annotations), its digest,
and a short account of what changed between two definitions.

Standard library only; nothing here imports ``difflib`` (an embedding host never loads it).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from hermes_core.sanitize import clean_line

__all__ = ["MAX_DEFINITION_BYTES", "changes", "definition_of", "digest_of", "encoded"]

#: The parts of a listed tool that are pinned (camelCase, as on the wire).
PINNED_KEYS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
#: A definition larger than this is pinned by its digest alone (no diff can be shown).
MAX_DEFINITION_BYTES = 256 * 1024
#: How many changed places a diff names at most.
MAX_CHANGES_SHOWN = 6
#: How much of a changed value a diff shows.
VALUE_SHOWN = 80

_PARTS = {
    "title": "title",
    "description": "description",
    "inputSchema": "input schema",
    "outputSchema": "output schema",
    "annotations": "annotations",
}


def definition_of(tool: Mapping[str, Any]) -> dict[str, Any]:
    """The pinned parts of a listed tool (absent parts left out)."""
    return {key: tool[key] for key in PINNED_KEYS if tool.get(key) is not None}


def encoded(definition: Mapping[str, Any]) -> str:
    """The canonical JSON text of a definition (sorted keys, no spaces)."""
    return json.dumps(definition, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest_of(tool: Mapping[str, Any]) -> str:
    """The SHA-256 of a listed tool's canonical definition (hex)."""
    return hashlib.sha256(encoded(definition_of(tool)).encode("utf-8", "surrogatepass")).hexdigest()


def changes(pinned: Mapping[str, Any] | None, listed: Mapping[str, Any]) -> list[str]:
    """What differs between the pinned definition and the listed one, one short line per
    part (``description: 'Read.' → 'Ignore all …'``, ``annotations: readOnlyHint: true →
    false``); *pinned* ``None``: the pin holds a digest only."""
    if pinned is None:
        return ["the definition changed (the pinned one was too large to keep for a diff)"]
    now = definition_of(listed)
    lines: list[str] = []
    for key, part in _PARTS.items():
        before, after = pinned.get(key), now.get(key)
        if before == after:
            continue
        if isinstance(before, str) and isinstance(after, str):
            lines.append(f"{part}: {_text_change(before, after)}")
            continue
        if key in ("title", "description") or not (
            isinstance(before, Mapping) and isinstance(after, Mapping)
        ):
            lines.append(f"{part}: {_shown(before)} → {_shown(after)}")
            continue
        places = _differences(before, after, "")
        more = len(places) - MAX_CHANGES_SHOWN
        text = "; ".join(places[:MAX_CHANGES_SHOWN]) + (f"; and {more} more" if more > 0 else "")
        lines.append(f"{part}: {text}")
    return lines or ["the definition changed"]


def _differences(before: Any, after: Any, where: str) -> list[str]:
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        found: list[str] = []
        for key in sorted(set(before) | set(after), key=str):
            path = f"{where}.{key}" if where else str(key)
            if key not in before:
                found.append(f"{clean_line(path)} added ({_shown(after[key])})")
            elif key not in after:
                found.append(f"{clean_line(path)} removed (was {_shown(before[key])})")
            elif before[key] != after[key]:
                found.extend(_differences(before[key], after[key], path))
            if len(found) > MAX_CHANGES_SHOWN:
                break
        return found
    return [f"{clean_line(where) or 'value'}: {_shown(before)} → {_shown(after)}"]


def _text_change(before: str, after: str) -> str:
    """Two texts, each shown from a little before where they start to differ (an instruction
    appended to a long description is what the reader sees)."""
    before, after = " ".join(before.split()), " ".join(after.split())
    same = 0
    for a, b in zip(before, after, strict=False):
        if a != b:
            break
        same += 1
    start = max(0, same - 20)
    lead = "…" if start else ""
    return f"{_shown(lead + before[start:])} → {_shown(lead + after[start:])}"


def _shown(value: Any) -> str:
    if value is None:
        return "(none)"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = clean_line(" ".join(text.split()))
    if len(text) > VALUE_SHOWN:
        text = text[: VALUE_SHOWN - 1] + "…"
    return repr(text) if isinstance(value, str) else text
