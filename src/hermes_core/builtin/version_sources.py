"""The built-in version sources: none, plist, pe_resource, uninstall_registry (the OS's own
records) and jetbrains_product_info, flatpak, snap (files that state a Linux app's version)."""

from __future__ import annotations

from collections.abc import Iterable

from hermes_core.plugins.hookspecs import hookimpl
from hermes_platform.resolver.versions import BUILTIN_VERSION_SOURCES, VersionSource


@hookimpl
def version_source() -> Iterable[VersionSource]:
    return BUILTIN_VERSION_SOURCES
