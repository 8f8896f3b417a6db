"""``hermes mcp tools --overrides``: what each ``tools.overrides`` entry changed, and the ones
that could not apply; and a tool entry as JSON (its override as what it changed)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

from hermes_core.sanitize import clean_line

if TYPE_CHECKING:
    from hermes_core.host.server_status import ServerStatus
    from hermes_core.host.tools.registry import ToolEntry

__all__ = ["entry_json", "override_lines"]

#: How much of an overridden description or value ``--overrides`` shows.
_SHOWN = 120


def _short(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = clean_line(" ".join(text.split()))
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def entry_json(entry: ToolEntry) -> dict[str, object]:
    """*entry* as ``hermes mcp tools --json`` prints it: its override as what it changed."""
    data = dict(entry.__dict__)
    override = entry.override
    data["override"] = None if override is None else override.changes()
    return data


def override_lines(entries: Iterable[ToolEntry], rows: Iterable[ServerStatus]) -> list[str]:
    """One block per overridden tool (its registered name, its own name, each change), then
    one line per override that could not apply."""
    lines: list[str] = []
    for entry in entries:
        override = entry.override
        if override is None:
            continue
        lines.append(f"{entry.name}  (server '{entry.server}', its own name {entry.tool!r})")
        for key, value in override.changes().items():
            if key in ("arguments", "defaults"):
                kind = "fixed" if key == "arguments" else "default"
                for name, item in value.items():
                    lines.append(f"    {kind} {name} = {_short(item)}")
            elif key == "annotations":
                hints = ", ".join(f"{k}: {str(v).lower()}" for k, v in value.items())
                lines.append(f"    annotations: {hints}")
            else:
                lines.append(f"    {key}: {_short(value)}")
    for row in rows:
        for problem in row.override_problems:
            lines.append(f"# {row.server}: override not applied: {clean_line(problem)}")
    return lines
