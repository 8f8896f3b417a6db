"""The built-in location kinds: command, uninstall_registry, app_bundle, flatpak, snap."""

from __future__ import annotations

from collections.abc import Iterable

from hermes_core.plugins.hookspecs import hookimpl
from hermes_platform.resolver.kinds import BUILTIN_LOCATION_KINDS
from hermes_platform.resolver.locating import LocationKind


@hookimpl
def location_kind() -> Iterable[LocationKind]:
    return BUILTIN_LOCATION_KINDS
