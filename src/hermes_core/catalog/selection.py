"""Which tools start checked, and the ``tools:`` filter a choice becomes.

The order (``docs/catalog.md``): the user's previous choice (``tools.include``,
else ``tools.exclude`` of the configured entry), else the manifest's
``tools.default_enabled``, else every tool.  Patterns are ``fnmatch`` globs,
case-sensitive, as in ``tools.include``.

"Every tool", once chosen, is written ``tools.exclude: []`` (:data:`ALL_TOOLS`): a choice,
kept by a reinstall and by ``configure`` as any other, where an entry without ``tools:`` was
never chosen (the manifest's ``default_enabled`` applies to it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fnmatch import fnmatchcase

__all__ = [
    "ALL_TOOLS",
    "filter_for_choice",
    "filter_without_probe",
    "prechecked",
    "with_tools",
]

#: The filter of a choice of every tool: nothing excluded, said out loud.
ALL_TOOLS: dict[str, list[str]] = {"exclude": []}


def _matches(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatchcase(name, pattern) for pattern in patterns)


def prior_filter(entry: Mapping[str, object] | None) -> tuple[list[str] | None, list[str] | None]:
    """(include, exclude) of a configured entry's ``tools:`` (``None`` when absent)."""
    tools = (entry or {}).get("tools")
    if not isinstance(tools, Mapping):
        return None, None
    include, exclude = tools.get("include"), tools.get("exclude")
    return (
        [str(x) for x in include] if isinstance(include, list) else None,
        [str(x) for x in exclude] if isinstance(exclude, list) else None,
    )


def prechecked(
    tools: Sequence[str],
    prior_include: Sequence[str] | None,
    prior_exclude: Sequence[str] | None,
    default_enabled: Sequence[str] | None,
) -> set[str]:
    """The tools that start checked."""
    if prior_include is not None:
        return {t for t in tools if _matches(t, prior_include)}
    if prior_exclude is not None:
        return {t for t in tools if not _matches(t, prior_exclude)}
    if default_enabled is not None:
        return {t for t in tools if _matches(t, default_enabled)}
    return set(tools)


def filter_for_choice(tools: Sequence[str], chosen: Iterable[str]) -> dict[str, list[str]]:
    """:data:`ALL_TOOLS` when every tool is chosen, else ``{"include": [chosen, in order]}``."""
    picked = set(chosen)
    if all(t in picked for t in tools):
        return dict(ALL_TOOLS)
    return {"include": [t for t in tools if t in picked]}


def filter_without_probe(
    prior_include: Sequence[str] | None,
    prior_exclude: Sequence[str] | None,
    default_enabled: Sequence[str] | None,
) -> dict[str, list[str]]:
    """The filter when the tools are unknown: the previous choice, else ``default_enabled``."""
    if prior_include is not None:
        return {"include": list(prior_include)}
    if prior_exclude is not None:
        return {"exclude": list(prior_exclude)}
    if default_enabled is not None:
        return {"include": list(default_enabled)}
    return {}


def excluded_filter(
    prior_include: Sequence[str] | None,
    prior_exclude: Sequence[str] | None,
    default_excluded: Sequence[str],
) -> dict[str, list[str]]:
    """For ``default_excluded`` entries: the user's include, or their choice of every tool,
    wins; else exclude (theirs + ours)."""
    if prior_include is not None:
        return {"include": list(prior_include)}
    if prior_exclude is not None and not prior_exclude:
        return dict(ALL_TOOLS)
    merged = list(prior_exclude or [])
    merged += [p for p in default_excluded if p not in merged]
    return {"exclude": merged}


def family_enabled(entry: Mapping[str, object] | None, family: str) -> bool:
    """Whether ``tools.<family>`` (``resources``/``prompts``) is on (the default)."""
    tools = (entry or {}).get("tools")
    value = tools.get(family, True) if isinstance(tools, Mapping) else True
    return value not in (False, "false", "no", "off", 0)


def with_tools(
    entry: Mapping[str, object],
    chosen: Mapping[str, list[str]],
    families: Mapping[str, bool] | None = None,
) -> dict[str, object]:
    """*entry* with its include/exclude replaced by *chosen*, and the utility *families*
    switched (on: the key removed, as on is the default); other ``tools:`` keys kept."""
    result = dict(entry)
    written = result.get("tools")
    tools: dict[object, object] = dict(written) if isinstance(written, Mapping) else {}
    tools.pop("include", None)
    tools.pop("exclude", None)
    tools.update(chosen)
    for family, on in (families or {}).items():
        if on:
            tools.pop(family, None)
        else:
            tools[family] = False
    if tools:
        result["tools"] = tools
    else:
        result.pop("tools", None)
    return result
