"""The catalog entries shipped with Hermes (``hermes_core/catalog/manifests/*.yaml``)."""

from __future__ import annotations

from collections.abc import Iterable

from hermes_core.plugins.catalog_files import catalog_entries_from_package
from hermes_core.plugins.hookspecs import hookimpl
from hermes_core.plugins.types import CatalogManifest


@hookimpl
def catalog_entry() -> Iterable[CatalogManifest]:
    return catalog_entries_from_package("hermes_core.catalog", "manifests/*.yaml")
