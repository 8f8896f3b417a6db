"""hermes_platform is standard library only, and keeps its directory literals in known_dirs."""

from __future__ import annotations

import ast
import json
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import hermes_platform

pytestmark = [pytest.mark.process]

PACKAGE_DIR = Path(hermes_platform.__file__).parent
MODULES = sorted(
    info.name for info in pkgutil.walk_packages([str(PACKAGE_DIR)], prefix="hermes_platform.")
)


def test_every_module_imports_only_the_standard_library() -> None:
    assert len(MODULES) >= 12, MODULES
    script = (
        "import importlib, json, sys\n"
        "before = set(sys.modules)\n"
        f"for name in {MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        "loaded = {m.split('.')[0] for m in set(sys.modules) - before}\n"
        "print(json.dumps(sorted(loaded)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-s", "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(PACKAGE_DIR.parent)},
    )
    loaded = set(json.loads(out.stdout))
    foreign = {
        name
        for name in loaded
        if name != "hermes_platform"
        and name not in sys.stdlib_module_names
        and not name.startswith("_")
    }
    assert foreign == set()


# A string literal that looks like a machine directory: /Applications, ~/..., %VAR%/..., C:\...
_DIRECTORY_LITERAL = re.compile(
    r"^(/[A-Za-z][^/]*/|/(Applications|Library|opt|usr|var|snap|home|etc|sys|proc|tmp)\b"
    r"|~/[^/]|%[A-Za-z_]+%[/\\]|[A-Za-z]:[/\\]|HKLM\\|HKCU\\|HKEY_[A-Z_]+\\)"
)
# testing.py builds fake machines, so it names fake folders on purpose.
_ALLOWED = {"known_dirs.py", "testing.py"}


def test_directory_literals_live_only_in_known_dirs() -> None:
    offenders = []
    for path in PACKAGE_DIR.rglob("*.py"):
        if path.name in _ALLOWED:
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and _DIRECTORY_LITERAL.match(node.value)
            ):
                offenders.append(f"{path.relative_to(PACKAGE_DIR)}:{node.lineno}: {node.value!r}")
    assert offenders == [], offenders


def test_known_dirs_tables_match_their_os() -> None:
    from hermes_platform.resolver import known_dirs

    tables = [getattr(known_dirs, name) for name in known_dirs.__all__ if name.endswith("_dirs")]
    for table in tables:
        for entry in table("linux") + table("darwin"):
            assert "%" not in entry
        for entry in table("win32"):
            assert not entry.startswith("/")
    assert known_dirs.homebrew_bin_dirs("linux") == ()
    assert known_dirs.homebrew_bin_dirs("darwin")
