"""Helpers for vendors: catalog manifests shipped as files, turned into catalog entries."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from hermes_core.plugins.types import CatalogManifest
from hermes_core.yaml_input import YamlInputError, load_yaml

__all__ = ["catalog_entries_from_dirs", "catalog_entries_from_package", "catalog_entry_from_text"]

_MAX_BYTES = 256 * 1024


def catalog_entry_from_text(text: str, where: str) -> CatalogManifest:
    """A catalog entry from a manifest's text; its name is the manifest's ``name:``.

    A manifest whose name cannot be read keeps the file's stem as its name, so
    the catalog can still report the file's own error (with its line).
    """
    name = Path(where).stem
    try:
        data = load_yaml(text, typ="safe")
    except YamlInputError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("name"), str) and data["name"].strip():
        name = data["name"].strip()
    return CatalogManifest(name=name, text=text, where=where)


def catalog_entries_from_package(
    package: str, pattern: str = "catalog.yaml"
) -> list[CatalogManifest]:
    """The manifests inside an installed package whose file names match *pattern*.

    ``pattern`` is a file name or a glob relative to the package
    (``"catalog.yaml"``, ``"manifests/*.yaml"``).  A missing file is an error
    naming it; Hermes reports it against your plugin.
    """
    folder, _, glob = pattern.rpartition("/")
    root = resources.files(package)
    base = root.joinpath(folder) if folder else root
    prefix = f"{package.replace('.', '/')}/{folder + '/' if folder else ''}"
    found = sorted(
        (item for item in base.iterdir() if item.is_file() and fnmatch.fnmatch(item.name, glob)),
        key=lambda item: item.name,
    )
    if not found and not any(ch in glob for ch in "*?["):
        raise FileNotFoundError(f"{prefix}{glob}: no such file in the package")
    return [
        catalog_entry_from_text(item.read_text(encoding="utf-8"), prefix + item.name)
        for item in found
    ]


def catalog_entries_from_dirs(dirs: Iterable[str | os.PathLike[str]]) -> list[CatalogManifest]:
    """Every ``*.yaml`` manifest in *dirs* (in order; a missing folder is skipped)."""
    entries: list[CatalogManifest] = []
    for folder in dirs:
        path = Path(folder).expanduser()
        if not path.is_dir():
            continue
        for file in sorted(path.glob("*.yaml")):
            with open(file, "rb") as fh:
                raw = fh.read(_MAX_BYTES + 1)
            entries.append(catalog_entry_from_text(raw.decode("utf-8", "replace"), str(file)))
    return entries
