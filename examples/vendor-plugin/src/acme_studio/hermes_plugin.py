"""Acme's Hermes plugin: one hook, returning the declaration in ``plugin.yaml``."""

from __future__ import annotations

from collections.abc import Iterable

from hermes_core.plugins import declarations_from_package, hookimpl
from hermes_core.plugins.types import AppDeclaration


@hookimpl
def declare_app() -> Iterable[AppDeclaration]:
    return declarations_from_package("acme_studio")
