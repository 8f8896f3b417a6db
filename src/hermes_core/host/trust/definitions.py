"""A tool's definition as it is pinned: the parts that decide what the model reads and what
the host does (name, title, description, input and output schemas, annotations), its digest,
and a short account of what changed between two definitions.

Standard library only; nothing here imports ``difflib`` (an embedding host never loads it).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass

from hermes_core.json_types import JsonObject
from hermes_core.sanitize import clean_line

__all__ = [
    "MAX_DEFINITION_BYTES",
    "SHOWN_DIGEST",
    "DigestedTool",
    "Stored",
    "changes",
    "definition_of",
    "digest_of",
    "encoded",
    "stored",
    "stored_definition",
    "stored_form",
]

#: (a tool's name, its digest, the listed tool) as a store pins or records it.
DigestedTool = tuple[str, str, Mapping[str, object]]
#: The parts of a listed tool that are pinned (camelCase, as on the wire).
PINNED_KEYS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
#: A definition larger than this is pinned by its digest alone (no diff can be shown).
MAX_DEFINITION_BYTES = 256 * 1024
#: How many hex digits of a digest are shown (and at least given to ``--digest``).
SHOWN_DIGEST = 12
#: How many changed places a diff names at most.
MAX_CHANGES_SHOWN = 6
#: How much of a changed value a diff shows.
VALUE_SHOWN = 80

_PARTS = {
    "name": "name",
    "title": "title",
    "description": "description",
    "inputSchema": "input schema",
    "outputSchema": "output schema",
    "annotations": "annotations",
}


def definition_of(tool: Mapping[str, object]) -> dict[str, object]:
    """The pinned parts of a listed tool (absent parts left out)."""
    return {key: tool[key] for key in PINNED_KEYS if tool.get(key) is not None}


def encoded(definition: Mapping[str, object]) -> str:
    """The canonical JSON text of a definition (sorted keys, no spaces)."""
    return json.dumps(definition, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest_of(tool: Mapping[str, object]) -> str:
    """The SHA-256 of a listed tool's canonical definition (hex)."""
    return hashlib.sha256(encoded(definition_of(tool)).encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Stored:
    """A definition as trust.db keeps it: whole up to :data:`MAX_DEFINITION_BYTES`, else
    its size alone."""

    definition: Mapping[str, object] | None
    """``None``: too large to keep (or to show)."""
    size: int | None
    """The canonical JSON's size in bytes (``None``: not known, a row of an older trust.db
    that kept no definition)."""

    @property
    def too_large(self) -> str:
        """``too large to show (N KiB)``."""
        if self.size is None:
            return f"too large to show (over {MAX_DEFINITION_BYTES // 1024} KiB)"
        return f"too large to show ({-(-self.size // 1024)} KiB)"


def stored_form(tool: Mapping[str, object]) -> tuple[str | None, int]:
    """(the canonical JSON kept for *tool*, or ``None`` when over the limit; its size)."""
    text = encoded(definition_of(tool))
    size = len(text.encode("utf-8", "surrogatepass"))
    return (text if size <= MAX_DEFINITION_BYTES else None), size


def stored_definition(text: str | None) -> JsonObject | None:
    """A definition as a store kept it (JSON text); ``None`` when absent or unreadable."""
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def stored(tool: Mapping[str, object]) -> Stored:
    """*tool* (a listed tool) as trust.db would keep it."""
    text, size = stored_form(tool)
    return Stored(definition_of(tool) if text is not None else None, size)


def changes(pinned: Stored, listed: Stored) -> list[str]:
    """What differs between the pinned definition and the listed one, one short line per
    part (``description: 'Read.' → 'Ignore all …'``, ``annotations: readOnlyHint: true →
    false``, ``name: 'read_file' → 'read-file'``).  A definition too large to keep is never
    diffed: ``definition: too large to show (300 KiB)``."""
    if listed.definition is None:
        return [f"definition: the new one is {listed.too_large}"]
    if pinned.definition is None:
        return [f"definition: the pinned one is {pinned.too_large}"]
    before_all, now = pinned.definition, definition_of(listed.definition)
    lines: list[str] = []
    for key, part in _PARTS.items():
        before, after = before_all.get(key), now.get(key)
        if before == after:
            continue
        if key == "name":  # every character visible: a look-alike name must not pass unseen
            lines.append(f"{part}: {_name_shown(before)} → {_name_shown(after)}")
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


def _differences(before: object, after: object, where: str) -> list[str]:
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


def _name_shown(value: object) -> str:
    """A tool name with every invisible or control character escaped (``'read\\u200bfile'``)."""
    text = repr(value) if isinstance(value, str) else _shown(value)
    return text if len(text) <= VALUE_SHOWN else text[: VALUE_SHOWN - 1] + "…"


def _shown(value: object) -> str:
    if value is None:
        return "(none)"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = clean_line(" ".join(text.split()))
    if len(text) > VALUE_SHOWN:
        text = text[: VALUE_SHOWN - 1] + "…"
    return repr(text) if isinstance(value, str) else text
