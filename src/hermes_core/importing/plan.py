"""What an import would do: add, replace, keep or leave out each server, and why."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from hermes_core.config.loader import validate_server
from hermes_core.host.tools.naming import sanitize_component
from hermes_core.importing.dialects import translate
from hermes_core.importing.model import ForeignServer, Skip, Translated
from hermes_core.importing.secrets import lift_secrets

__all__ = ["Action", "ImportPlan", "PlanItem", "UnknownNames", "build_plan"]


class Action(StrEnum):
    """What an import does with one server."""

    ADD = "add"
    REPLACE = "replace"
    UNCHANGED = "unchanged"
    KEEP = "keep"
    SHADOWED = "shadowed"
    SKIP = "skip"


class UnknownNames(ValueError):
    """``--only`` named servers the source does not have."""


@dataclass
class PlanItem:
    item: Translated
    action: Action
    reason: str = ""

    @property
    def writes(self) -> bool:
        return self.action in (Action.ADD, Action.REPLACE)


@dataclass
class ImportPlan:
    items: list[PlanItem]
    clashes: list[str] = field(default_factory=list)

    def to_write(self) -> list[PlanItem]:
        return [p for p in self.items if p.writes]

    def secrets(self) -> dict[str, str]:
        values: dict[str, str] = {}
        for planned in self.to_write():
            values.update(planned.item.secrets)
        return values


def build_plan(
    servers: Iterable[ForeignServer],
    *,
    existing: Mapping[str, object],
    only: list[str] | None = None,
    overwrite: bool = False,
    environ: Mapping[str, str],
    dotenv: Mapping[str, str],
) -> ImportPlan:
    """The plan for importing *servers* (lowest precedence first) next to the *existing*
    ``mcp_servers`` entries (plain data)."""
    servers = list(servers)
    if only:
        known = {s.name for s in servers}
        unknown = [name for name in only if name not in known]
        if unknown:
            listed = ", ".join(sorted(known)) or "none"
            raise UnknownNames(f"no server named {', '.join(map(repr, unknown))} (found: {listed})")
        servers = [s for s in servers if s.name in only]
    translated = [translate(server) for server in servers]
    winners: dict[str, Translated] = {}
    items: list[PlanItem] = []
    for item in translated:
        earlier = winners.get(item.name)
        if earlier is not None:
            items.append(
                PlanItem(earlier, Action.SHADOWED, f"replaced by the entry in {item.source.origin}")
            )
        winners[item.name] = item
    lift_secrets(list(winners.values()), environ=environ, dotenv=dotenv)
    for item in winners.values():
        items.append(_decide(item, existing, overwrite))
    items.sort(key=lambda p: translated.index(p.item))
    plan = ImportPlan(items)
    plan.clashes = _clashes(plan, existing)
    return plan


def _decide(item: Translated, existing: Mapping[str, object], overwrite: bool) -> PlanItem:
    if item.entry is None:
        reasons = "; ".join(str(skip) for skip in item.skipped) or "nothing to import"
        return PlanItem(item, Action.SKIP, reasons)
    _, problems, warnings = validate_server(item.name, copy.deepcopy(item.entry))
    if problems:
        item.skipped.append(
            Skip("", f"not a valid Hermes entry: {problems[0].key}: {problems[0].reason}")
        )
        return PlanItem(item, Action.SKIP, str(item.skipped[-1]))
    item.notes.extend(warning.message for warning in warnings)
    if item.name in existing:
        if not overwrite:
            return PlanItem(item, Action.KEEP, "already configured (--overwrite replaces it)")
        if existing[item.name] == item.entry:
            return PlanItem(item, Action.UNCHANGED, "already configured exactly so")
        return PlanItem(item, Action.REPLACE, "replaces the configured entry (--overwrite)")
    return PlanItem(item, Action.ADD)


def _clashes(plan: ImportPlan, existing: Mapping[str, object]) -> list[str]:
    """Names whose tools would share an ``mcp_<server>_`` prefix with another server's."""
    owners: dict[str, list[str]] = {}
    for name in existing:
        owners.setdefault(sanitize_component(name), []).append(name)
    messages = []
    for planned in plan.to_write():
        name = planned.item.name
        prefix = sanitize_component(name)
        others = [other for other in owners.get(prefix, []) if other != name]
        if others:
            messages.append(
                f"'{name}' and '{others[0]}' share the tool prefix mcp_{prefix}_: tools with "
                "the same name get a hash suffix (`hermes mcp tools` lists them); rename one "
                "to avoid it"
            )
        owners.setdefault(prefix, []).append(name)
    return messages
