"""Skills: ``SKILL.md`` files found on disk, and the gate that decides which are offered.

Where skills come from, in this order (the first skill of a name wins; a later
one of the same name is reported as a problem and left out):

1. the user's home: ``$HERMES_HOME/skills/<folder>/SKILL.md``;
2. loaded external plugins, in load order.  A plugin ships skills in a
   ``skills/`` folder inside its plugin module's package directory:
   ``<package>/skills/<folder>/SKILL.md``.  For the plugin module
   ``acme_studio.hermes_plugin`` that is ``acme_studio/skills/*/SKILL.md``; when
   the entry point names a package itself, its own folder is used.  The folder
   is found from the registered plugin object (``__path__`` or ``__file__``); a
   top-level single-file module has no package directory and ships no skills.
   Include the folder in the wheel as package data.  Built-in plugins, and
   plugins that are disabled or failed to load, contribute no skills.

A ``SKILL.md`` may start with YAML frontmatter between two ``---`` lines
(read with ruamel.yaml's safe loader).  ``name`` defaults to the folder name,
``description`` to empty.  A file that cannot be read or parsed is left out
and reported as a problem naming the file and the line; it never raises.

``requires_apps`` (a list, or a single name) gates the skill: each name is a
server name from the declaration registry.  :func:`skill_visible` hides the
skill unless every name is registered and ``availability(decl).offerable`` (AND
semantics; an unknown name hides it, fail closed).  A missing or empty value is
no requirement.  Unlike the reference, a declaration without an app block
(GPU only) is judged by ``availability`` like any other, exactly as the MCP
gate judges it, instead of hiding every skill that names it.
"""

from __future__ import annotations

import reprlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from hermes_core.yaml_input import YamlInputError, load_yaml
from hermes_platform import declaration
from hermes_platform.resolver.availability import availability
from hermes_platform.sentences import guidance

if TYPE_CHECKING:
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["SKILL_FILE", "Skill", "SkillGate", "discover_skills", "parse_skill", "skill_visible"]

SKILL_FILE = "SKILL.md"
_MAX_FILE_BYTES = 1024 * 1024
_FENCE = "---"
_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxstring = 2, 4, 4, 60


@dataclass(frozen=True)
class Skill:
    """One ``SKILL.md``: its name, where it lives and what it requires."""

    name: str
    description: str
    path: Path
    source: str
    """``"home"`` or ``"plugin <name> (<distribution> <version>)"``."""
    requires_apps: tuple[str, ...] = ()
    frontmatter: dict[str, object] = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class SkillGate:
    """Whether a skill may be offered here, and if not, the sentence saying why."""

    visible: bool
    reason: str | None = None


class _SkillFileError(ValueError):
    pass


def _text(value: object) -> str:
    """``str(value)`` for scalars; a bounded ``repr`` for containers (YAML aliases can nest)."""
    if isinstance(value, (str, int, float)):
        return str(value)
    return _SHORT.repr(value)


def _requires_apps(raw: object) -> tuple[str, ...]:
    """Reference §8.2: falsy → none; a list as is; anything else is one name."""
    if not raw:
        return ()
    items = raw if isinstance(raw, list) else [raw]
    return tuple(_text(item).strip() for item in items)


def _frontmatter(text: str, path: Path) -> dict[str, object]:
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].rstrip() != _FENCE:
        return {}
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in (_FENCE, "...")), None)
    if end is None:
        raise _SkillFileError(f"{path}:1: the frontmatter opened here has no closing '---' line")
    try:
        data = load_yaml("\n".join(lines[1:end]), typ="safe")
    except YamlInputError as exc:
        line = exc.line + 1 if exc.line is not None else 2  # the YAML starts on line 2
        raise _SkillFileError(f"{path}:{line}: frontmatter {exc.problem}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise _SkillFileError(
            f"{path}:2: the frontmatter must be a mapping of keys, not a {type(data).__name__}"
        )
    return {str(key): value for key, value in data.items()}


def parse_skill(path: Path, source: str) -> Skill:
    """Read one ``SKILL.md``; raises ``ValueError`` (``"<file>:<line>: …"``) when unusable."""
    try:
        with path.open("rb") as handle:
            data = handle.read(_MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise _SkillFileError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    if len(data) > _MAX_FILE_BYTES:
        raise _SkillFileError(f"{path}: is larger than {_MAX_FILE_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise _SkillFileError(f"{path}:{line}: is not UTF-8 text") from None
    meta = _frontmatter(text, path)
    name = _text(meta["name"]).strip() if meta.get("name") is not None else ""
    description = meta.get("description")
    return Skill(
        name=name or path.parent.name,
        description=_text(description).strip() if description is not None else "",
        path=path,
        source=source,
        requires_apps=_requires_apps(meta.get("requires_apps")),
        frontmatter=meta,
    )


def _skill_files(folder: Path) -> Iterator[Path]:
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return
    for entry in entries:
        candidate = entry / SKILL_FILE
        if not entry.name.startswith(".") and entry.is_dir() and candidate.is_file():
            yield candidate


def _package_dir(plugin: object) -> Path | None:
    """The package folder of a plugin object (a module, class or instance)."""
    module = plugin if isinstance(plugin, ModuleType) else None
    if module is None:
        module = sys.modules.get(str(getattr(plugin, "__module__", "")))
    if module is None:
        return None
    paths = list(getattr(module, "__path__", None) or [])
    if paths:
        return Path(paths[0])
    file = getattr(module, "__file__", None)
    if not file or not getattr(module, "__package__", None):
        return None  # a top-level single-file module has no package folder of its own
    return Path(file).parent


def _sources(home: Path, manager: HermesPluginManager | None) -> Iterator[tuple[Path, str]]:
    yield home / "skills", "home"
    if manager is None:
        return
    for name, plugin in manager.plugin_objects().items():
        folder = _package_dir(plugin)
        if folder is None:
            continue
        record = manager._records.get(name)
        label = f" ({record.label})" if record is not None and record.distribution else ""
        yield folder / "skills", f"plugin {name}{label}"


def discover_skills(
    home: Path, manager: HermesPluginManager | None = None
) -> tuple[list[Skill], list[str]]:
    """Every skill under ``home/skills`` and in loaded external plugins, and the problems.

    A skill whose name was already found is left out with a problem; so is a
    file that cannot be read or parsed.  Nothing here raises for bad files.
    """
    skills: list[Skill] = []
    problems: list[str] = []
    seen: dict[str, Skill] = {}
    for folder, source in _sources(home, manager):
        for path in _skill_files(folder):
            try:
                skill = parse_skill(path, source)
            except ValueError as exc:
                problems.append(str(exc))
                continue
            first = seen.get(skill.name)
            if first is not None:
                problems.append(
                    f"{path}: skill '{skill.name}' is already defined by {first.path} "
                    f"({first.source}); this one is left out"
                )
                continue
            seen[skill.name] = skill
            skills.append(skill)
    return skills, problems


def skill_visible(skill: Skill, manager: HermesPluginManager | None = None) -> SkillGate:
    """Offer *skill* only if every ``requires_apps`` name is registered and offerable here.

    *manager* supplies display names (``manager.display_names``) for the sentence.
    """
    display_names = manager.display_names if manager is not None else {}
    for raw_name in skill.requires_apps:
        name = str(raw_name).strip()
        decl = declaration.lookup(name)
        if decl is None:
            return SkillGate(False, f"requires app '{name}', which no plugin declares")
        result = availability(decl)
        if result.offerable:
            continue
        shown = display_names.get(name)
        words = guidance(decl, result, display_name=shown)
        if words is not None:
            return SkillGate(False, words.sentence)
        return SkillGate(False, f"{shown or name} is not available here ({result.state}).")
    return SkillGate(True, None)
