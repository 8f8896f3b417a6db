"""Helpers for vendors: catalog manifests shipped as files, turned into catalog entries.

A manifest's name is read by parsing its YAML (about 3 ms of CPU a manifest, and Hermes ships a
dozen).  The CLI's manager calls :func:`remember_names` so that the names are kept in
``$HERMES_HOME/cache/catalog-names.json`` by the SHA-256 of each manifest's text (and the Hermes
version, whose YAML rules decide them): an unchanged manifest is not parsed again, any edit is a
new digest.  A missing, symlinked, malformed or ill-typed record is a miss.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import os
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from hermes_core import __version__
from hermes_core.json_records import read_record, write_record
from hermes_core.plugins.types import CatalogManifest
from hermes_core.regular_files import read_regular

__all__ = [
    "catalog_entries_from_dirs",
    "catalog_entries_from_package",
    "catalog_entry_from_text",
    "remember_names",
]

_MAX_BYTES = 256 * 1024
_NAMES_FORMAT = 1
_NAMES_MAX_BYTES = 1024 * 1024
_NAMES_MAX = 1024
_record: Path | None = None
_names: dict[str, str | None] | None = None


def remember_names(home: Path | None) -> None:
    """Keep the manifests' names in *home*'s cache from now on in this process (None: stop)."""
    global _record, _names
    _record = None if home is None else home / "cache" / "catalog-names.json"
    _names = None


def _parsed_name(text: str) -> str | None:
    """The manifest's ``name:`` (stripped), or None when it cannot be read."""
    from hermes_core.yaml_input import YamlInputError, load_yaml

    try:
        data = load_yaml(text, typ="safe")
    except YamlInputError:
        return None
    if isinstance(data, dict) and isinstance(data.get("name"), str) and data["name"].strip():
        return str(data["name"].strip())
    return None


def _recorded_names(record: Path) -> dict[str, str | None]:
    data = read_record(
        record,
        format=_NAMES_FORMAT,
        key_field="hermes",
        expected=__version__,
        max_bytes=_NAMES_MAX_BYTES,
    )
    names = data.get("names") if data is not None else None
    if not isinstance(names, dict) or not all(
        isinstance(k, str) and (v is None or isinstance(v, str)) for k, v in names.items()
    ):
        return {}
    return names


def _name(text: str) -> str | None:
    global _names
    record = _record
    if record is None:
        return _parsed_name(text)
    if _names is None:
        _names = _recorded_names(record)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    if digest in _names:
        return _names[digest]
    name = _parsed_name(text)
    if len(_names) >= _NAMES_MAX:
        _names = {}
    _names[digest] = name
    payload = {"format": _NAMES_FORMAT, "hermes": __version__, "names": _names}
    with contextlib.suppress(OSError):
        write_record(record, payload)
    return name


def catalog_entry_from_text(text: str, where: str) -> CatalogManifest:
    """A catalog entry from a manifest's text; its name is the manifest's ``name:``.

    A manifest whose name cannot be read keeps the file's stem as its name, so
    the catalog can still report the file's own error (with its line).
    """
    name = _name(text) or Path(where).stem
    return CatalogManifest(name=name, text=text, where=where)


def catalog_entries_from_package(
    package: str, pattern: str = "catalog.yaml", *, names_from_files: bool = False
) -> list[CatalogManifest]:
    """The manifests inside an installed package whose file names match *pattern*.

    ``pattern`` is a file name or a glob relative to the package
    (``"catalog.yaml"``, ``"manifests/*.yaml"``).  A missing file is an error
    naming it; Hermes reports it against your plugin.  With *names_from_files*, each entry
    is named after its file (``filesystem.yaml`` → ``filesystem``; the manifest's ``name:``
    must agree, or the catalog reports it): the names are decided by the package alone.
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
    if names_from_files:
        # The names come from the package's own files, never from the record in
        # $HERMES_HOME/cache (a cache that anyone editing it could make lie): each file is
        # named after its manifest's name: (the catalog checks the two agree).
        return [
            CatalogManifest(
                name=Path(item.name).stem,
                text=item.read_text(encoding="utf-8"),
                where=prefix + item.name,
            )
            for item in found
        ]
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
            raw = read_regular(file, _MAX_BYTES)  # a FIFO named *.yaml: refused, not waited on
            entries.append(catalog_entry_from_text(raw.decode("utf-8", "replace"), str(file)))
    return entries
