"""The catalog entries shipped with Hermes (``hermes_core/catalog/manifests/*.yaml``).

Their names are their files' names, decided by the package alone: the record of manifest
names in ``$HERMES_HOME/cache`` is a cache, never an authority, so editing it can never take a
shipped name away from a shipped manifest (or give it to another one).
"""

from __future__ import annotations

from collections.abc import Iterable

from hermes_core.plugins.catalog_files import catalog_entries_from_package
from hermes_core.plugins.hookspecs import hookimpl
from hermes_core.plugins.types import CatalogManifest


@hookimpl
def catalog_entry() -> Iterable[CatalogManifest]:
    return catalog_entries_from_package(
        "hermes_core.catalog", "manifests/*.yaml", names_from_files=True
    )
