"""``hermes plugins new NAME``: scaffold a plugin distribution that works and is tested.

The files come from the ``*.tmpl`` templates next to this module, with
``{{name}}`` (the server and entry-point name, ``acme-paint``), ``{{module}}``
(``acme_paint``), ``{{dist}}`` (``acme-paint-hermes``), ``{{title}}``
(``Acme Paint``) and ``{{version}}`` (the running hermes-core) replaced; a
``__module__`` path segment becomes the module name.  The layout is the one
``docs/plugin-authors.md`` builds on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from hermes_core import __version__

__all__ = ["NAME_PATTERN", "Scaffold", "ScaffoldError", "scaffold"]

NAME_PATTERN = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*\Z")
_TEMPLATES = "template"


class ScaffoldError(ValueError):
    """A bad name or a target folder that is not empty."""


@dataclass(frozen=True)
class Scaffold:
    """What :func:`scaffold` wrote."""

    root: Path
    files: tuple[Path, ...]
    name: str
    module: str
    dist: str


def _walk(folder: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    found: list[tuple[str, Traversable]] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name == "__pycache__":
            continue
        relative = f"{prefix}{entry.name}"
        if entry.is_dir():
            found.extend(_walk(entry, relative + "/"))
        elif entry.name.endswith(".tmpl"):
            found.append((relative.removesuffix(".tmpl"), entry))
    return found


def scaffold(name: str, target: Path) -> Scaffold:
    """Write the plugin package for server *name* into *target* (created; must be empty)."""
    if not NAME_PATTERN.match(name):
        raise ScaffoldError(
            f"plugin name {name!r} must be lowercase letters, digits and single hyphens, "
            "starting with a letter (e.g. acme-paint): it becomes the MCP server name"
        )
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ScaffoldError(f"{target} already exists and is not an empty folder")
    module = name.replace("-", "_")
    values = {
        "{{name}}": name,
        "{{module}}": module,
        "{{dist}}": f"{name}-hermes",
        "{{title}}": " ".join(part.capitalize() for part in name.split("-")),
        "{{version}}": __version__,
    }
    written: list[Path] = []
    for relative, template in _walk(resources.files(__package__).joinpath(_TEMPLATES)):
        text = template.read_text(encoding="utf-8")
        for key, value in values.items():
            text = text.replace(key, value)
        path = target / relative.replace("__module__", module).replace("__name__", name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return Scaffold(target, tuple(written), name, module, values["{{dist}}"])
