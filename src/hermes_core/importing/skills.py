"""Claude Code skills (``~/.claude/skills/<name>/SKILL.md``) into ``$HERMES_HOME/skills``.

Each skill folder is copied whole (its scripts and references come along);
a skill whose folder already exists in Hermes is never overwritten, and a
``SKILL.md`` Hermes cannot read is reported and not copied.  Symbolic links
are copied as links, never followed.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from hermes_core.skills import SKILL_FILE, parse_skill

__all__ = ["SkillImport", "import_skills"]


@dataclass
class SkillImport:
    copied: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    """Already in Hermes' skills folder: left as they are."""
    problems: list[str] = field(default_factory=list)


def import_skills(source: Path, target: Path, *, dry_run: bool = False) -> SkillImport:
    """Copy every ``<source>/<name>/SKILL.md`` folder to ``<target>/<name>``."""
    result = SkillImport()
    if not source.is_dir():
        return result
    for folder in sorted(source.iterdir()):
        skill_file = folder / SKILL_FILE
        if not folder.is_dir() or not skill_file.is_file():
            continue
        try:
            parse_skill(skill_file, "claude-code")
        except ValueError as exc:
            result.problems.append(f"{exc} (not copied)")
            continue
        destination = target / folder.name
        if destination.exists() or destination.is_symlink():
            result.kept.append(folder.name)
            continue
        if not dry_run:
            target.mkdir(parents=True, exist_ok=True)
            staging = target / f".{folder.name}.importing"
            shutil.rmtree(staging, ignore_errors=True)
            shutil.copytree(folder, staging, symlinks=True)
            staging.rename(destination)  # the folder appears complete or not at all
        result.copied.append(folder.name)
    return result
