"""``hermes plugins new NAME``: scaffold a plugin distribution that works and is tested.

The files come from the ``*.tmpl`` templates next to this module, with
``{{name}}`` (the server and entry-point name, ``acme-paint``), ``{{module}}``
(``acme_paint``), ``{{dist}}`` (``acme-paint-hermes``, or ``--dist``), ``{{title}}``
(``Acme Paint``, or ``--display-name``) and ``{{version}}`` (the running hermes-core) replaced; a
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

__all__ = [
    "DISPLAY_PATTERN",
    "DIST_PATTERN",
    "NAME_PATTERN",
    "Scaffold",
    "ScaffoldError",
    "scaffold",
]

NAME_PATTERN = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*\Z")
DIST_PATTERN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?\Z")
"""A distribution name as PyPI takes it (PEP 508)."""
DISPLAY_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9 .&+,()'-]{0,63}\Z")
"""A display name the templates can hold as is (in YAML, Python and paths)."""
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


def default_title(name: str) -> str:
    """``acme-paint`` → ``Acme Paint`` (``--display-name`` says it when that is wrong)."""
    return " ".join(part.capitalize() for part in name.split("-"))


def scaffold(
    name: str, target: Path, *, dist: str | None = None, display_name: str | None = None
) -> Scaffold:
    """Write the plugin package for server *name* into *target* (created; must be empty).

    *dist* is the distribution's name (default ``<name>-hermes``); *display_name* the app's
    name as users read it (default: *name*'s words capitalised, ``Acme Paint``)."""
    if not NAME_PATTERN.match(name):
        raise ScaffoldError(
            f"plugin name {name!r} must be lowercase letters, digits and single hyphens, "
            "starting with a letter (e.g. acme-paint): it becomes the MCP server name"
        )
    if dist is not None and not DIST_PATTERN.match(dist):
        raise ScaffoldError(
            f"distribution name {dist[:100]!r} must be letters, digits, '.', '_' and '-', "
            "starting and ending with a letter or digit (e.g. acme-paint-hermes)"
        )
    if display_name is not None and not DISPLAY_PATTERN.match(display_name):
        raise ScaffoldError(
            f"display name {display_name[:80]!r} must be at most 64 letters, digits, spaces "
            'and . & + , ( ) \' -, starting with a letter or digit (e.g. "AcmeCloud")'
        )
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ScaffoldError(f"{target} already exists and is not an empty folder")
    module = name.replace("-", "_")
    values = {
        "{{name}}": name,
        "{{module}}": module,
        "{{dist}}": dist or f"{name}-hermes",
        "{{title}}": display_name or default_title(name),
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
