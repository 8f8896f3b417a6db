"""Choosing a configured server's tools: the server is asked for them (a probe), the current
choice (else the manifest's ``default_enabled``, else everything) is pre-checked, and the
choice is written as ``tools.include`` and the utility families' switches.  What ``install``
and ``configure`` do, on the terminal and on the dashboard's page alike."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from hermes_core.catalog.probe import ProbedTool, probe_tools
from hermes_core.catalog.selection import (
    family_enabled,
    filter_for_choice,
    filter_without_probe,
    prechecked,
    prior_filter,
    with_tools,
)
from hermes_core.config import store
from hermes_core.config.kinds import ServerKinds
from hermes_core.plugins.manager import HermesPluginManager

__all__ = [
    "Checklist",
    "apply_choice",
    "describe_filter",
    "describe_offer",
    "probe_checklist",
    "write_without_probe",
]


@dataclass(frozen=True)
class Checklist:
    """A server's tools as it lists them, and which are checked now (``@family`` for a family
    of generated utility tools); *problem* when it could not be asked or lists none."""

    tools: list[ProbedTool]
    checked: set[str]
    problem: str | None
    families: dict[str, list[str]] = field(default_factory=dict)
    failed: bool = False
    """The server could not be asked (not: it lists no tools)."""

    @property
    def own(self) -> list[ProbedTool]:
        return [t for t in self.tools if t.family is None]


def probe_checklist(
    manager: HermesPluginManager,
    name: str,
    entry: dict[str, object],
    default_enabled: list[str] | None,
) -> Checklist:
    """Ask *name* for its tools and pre-check them."""
    tools, problem = probe_tools(name, entry, manager)
    include, exclude = prior_filter(entry)
    own = [t.name for t in tools if t.family is None]
    checked = prechecked(own, include, exclude, default_enabled)
    families: dict[str, list[str]] = {}
    for tool in tools:
        if tool.family is not None:
            families.setdefault(tool.family, []).append(tool.name)
    for family in families:
        if family_enabled(entry, family):
            checked.add("@" + family)
    said = problem or (None if tools else "the server lists no tools")
    return Checklist(tools, checked, said, families, failed=problem is not None)


def apply_choice(
    name: str,
    entry: dict[str, object],
    tools: Sequence[str],
    families: Iterable[str],
    picked: set[str],
    kinds: ServerKinds | None = None,
) -> tuple[dict[str, object], dict[str, list[str]], dict[str, bool]]:
    """Write the choice *picked* among *tools* and *families* to ``config.yaml``: (the entry
    written, the tool filter, the family switches)."""
    chosen = filter_for_choice(tools, [t for t in tools if t in picked])
    switches = {fam: "@" + fam in picked for fam in families}
    updated = with_tools(entry, chosen, switches)
    if updated != entry:
        store.add_server(name, updated, replace=True, kinds=kinds)
    return updated, chosen, switches


def write_without_probe(
    name: str,
    entry: dict[str, object],
    default_enabled: list[str] | None,
    kinds: ServerKinds | None = None,
    *,
    enabled: bool = True,
) -> dict[str, list[str]]:
    """The previous choice, else *default_enabled*, else no filter, written unprobed."""
    include, exclude = prior_filter(entry)
    chosen = filter_without_probe(include, exclude, default_enabled)
    base = entry if enabled else {**entry, "enabled": False}
    updated = with_tools(base, chosen)
    if updated != entry:
        store.add_server(name, updated, replace=True, kinds=kinds)
    return chosen


def describe_filter(chosen: dict[str, list[str]]) -> str:
    if "include" in chosen:
        picked = chosen["include"]
        return f"tools: {len(picked)} enabled ({', '.join(picked) or 'none'})"
    if chosen.get("exclude"):
        return f"tools: all except {', '.join(chosen['exclude'])}"
    return "tools: all enabled"


def describe_offer(chosen: dict[str, list[str]], own: list[str], utilities: list[str]) -> str:
    """What the server is offered with: its own tools chosen and the utility tools of its
    resources and prompts, counted together (the count is what ``hermes mcp tools`` lists)."""
    described = describe_filter(chosen)
    if not utilities:
        return described
    if chosen.get("exclude"):
        return f"{described}, with the utility tools {', '.join(utilities)}"
    listed = f"({', '.join(own) or 'none of its own'}; utility tools: {', '.join(utilities)})"
    count = len(own) + len(utilities)
    if "include" in chosen:
        return f"tools: {count} enabled {listed}"
    return f"tools: all {count} enabled {listed}"
