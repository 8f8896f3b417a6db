"""Acme's Hermes plugin: the declaration in ``plugin.yaml`` and the catalog entry next to it."""

from __future__ import annotations

from collections.abc import Iterable

from hermes_core.plugins import catalog_entries_from_package, declarations_from_package, hookimpl
from hermes_core.plugins.types import AppDeclaration, CatalogManifest


@hookimpl
def declare_app() -> Iterable[AppDeclaration]:
    return declarations_from_package("acme_studio")


@hookimpl
def catalog_entry() -> Iterable[CatalogManifest]:
    return catalog_entries_from_package("acme_studio", "catalog.yaml")
