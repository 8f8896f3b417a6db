"""Which of a server's tools are registered: ``tools.include`` / ``tools.exclude`` and utilities.

Rules (user guide, "tool filtering"):

* Entries are matched against the tool name **as the server spells it**, never the sanitised
  registry name (``query.data``, not ``query_data``).
* An entry without ``*``, ``?`` or ``[`` is an exact name: ``docs`` never matches
  ``docs_search``.  An entry with one of them is a case-sensitive ``fnmatch`` glob
  (``fnmatchcase``: ``Create_*`` does not match ``create_issue`` on any OS).  An exact match is
  tried first, so a tool literally named ``get[1]`` is reachable by its own name.
* When ``include`` is given, only included tools pass and ``exclude`` is ignored: include wins.
* Otherwise every tool passes except the excluded ones.
* Filtering applies to the server's own tools, not to the utility tools, which have their own
  switches (:func:`utility_tools`).

**An empty include list means "no native tools".**  ``include: []`` is what the install checklist
writes when the user unticks every tool, so it must keep meaning exactly that; reading it as
"unset" would silently re-enable tools the user turned off.  It is also the trap users reported
(an ``include: []`` left in a config hides every tool), so :attr:`ToolFilter.blocks_all_native`
lets the host say so out loud instead of leaving the server looking empty.

The filter is an access control, not a prompt hint: the host must check :meth:`ToolFilter.allows`
again when a call arrives, so a filtered tool cannot be reached by name through any path.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = ["UTILITY_TOOLS", "ToolFilter", "is_glob", "utility_tools"]

_GLOB_CHARS = frozenset("*?[")

UTILITY_TOOLS: tuple[str, ...] = (
    "list_resources",
    "list_resource_templates",
    "read_resource",
    "list_prompts",
    "get_prompt",
)
"""The generated utility tools, in registration order."""

_UTILITY_FAMILY = {
    "list_resources": "resources",
    "list_resource_templates": "resources",
    "read_resource": "resources",
    "list_prompts": "prompts",
    "get_prompt": "prompts",
}


def is_glob(entry: str) -> bool:
    """True when *entry* contains a glob metacharacter (``*``, ``?`` or ``[``)."""
    return any(ch in _GLOB_CHARS for ch in entry)


def _as_entries(value: str | Iterable[str] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return (value,)
    return tuple(value)


@dataclass(frozen=True)
class ToolFilter:
    """``tools.include`` / ``tools.exclude`` for one server.

    ``include=None`` means "not configured"; ``include=()`` means "no native tools" (see the
    module docstring).  ``exclude`` is consulted only when ``include`` is ``None``.
    """

    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for key, entries in (("include", self.include), ("exclude", self.exclude)):
            if entries is None:
                continue
            if isinstance(entries, str) or not isinstance(entries, tuple):
                raise TypeError(f"tools.{key} must be a tuple of strings, got {entries!r}")
            for entry in entries:
                if not isinstance(entry, str):
                    raise TypeError(f"tools.{key} entries must be strings, got {entry!r}")

    @classmethod
    def from_config(
        cls,
        include: str | Iterable[str] | None = None,
        exclude: str | Iterable[str] | None = None,
    ) -> ToolFilter:
        """Build from config values: a single string counts as a one-entry list."""
        return cls(include=_as_entries(include), exclude=_as_entries(exclude) or ())

    @property
    def is_unrestricted(self) -> bool:
        """True when every tool passes (nothing configured)."""
        return self.include is None and not self.exclude

    @property
    def blocks_all_native(self) -> bool:
        """True for ``include: []``: no native tool can pass, whatever the server offers."""
        return self.include == ()

    def allows(self, name: str) -> bool:
        """Whether the tool the server calls *name* may be registered and called."""
        if self.include is not None:
            return _matches(name, self.include)
        return not _matches(name, self.exclude)

    def allows_either(self, name: str, other: str) -> bool:
        """Whether a tool known by two names (its own, and an override's ``name``) may be
        registered: an ``include`` entry matching either lets it in, an ``exclude`` entry
        matching either keeps it out."""
        if self.include is not None:
            return _matches(name, self.include) or _matches(other, self.include)
        return not (_matches(name, self.exclude) or _matches(other, self.exclude))

    def select(self, names: Iterable[str]) -> list[str]:
        """The allowed subset of *names*, in their order."""
        return [name for name in names if self.allows(name)]


def _matches(name: str, entries: tuple[str, ...]) -> bool:
    if name in entries:
        return True
    pattern = _globs(entries)
    return pattern is not None and pattern.match(name) is not None


@functools.lru_cache(maxsize=256)
def _globs(entries: tuple[str, ...]) -> re.Pattern[str] | None:
    """One compiled, case-sensitive pattern for every glob entry (same as ``fnmatchcase``)."""
    globs = [fnmatch.translate(entry) for entry in entries if is_glob(entry)]
    return re.compile("|".join(f"(?:{g})" for g in globs)) if globs else None


def utility_tools(
    capabilities: Mapping[str, bool],
    resources_enabled: bool,
    prompts_enabled: bool,
) -> list[str]:
    """The utility tools to register for a server, in :data:`UTILITY_TOOLS` order.

    *capabilities* says which families the server advertised in ``initialize``
    (``{"resources": True, "prompts": False}``); a family that is missing counts as not
    advertised, so nothing is offered that the server never promised.  ``resources_enabled`` and
    ``prompts_enabled`` are the ``tools.resources`` / ``tools.prompts`` config switches.
    """
    enabled = {
        "resources": resources_enabled and bool(capabilities.get("resources", False)),
        "prompts": prompts_enabled and bool(capabilities.get("prompts", False)),
    }
    return [tool for tool in UTILITY_TOOLS if enabled[_UTILITY_FAMILY[tool]]]
