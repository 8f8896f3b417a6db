"""The built-in location kinds: ``command``, ``uninstall_registry``, ``app_bundle``,
``flatpak`` and ``snap``.

Each is an ordinary :class:`LocationKind` registration, the same shape a
plugin returns from its ``location_kind`` hook.
"""

from __future__ import annotations

from collections.abc import Iterable

from hermes_platform.resolver import known_dirs
from hermes_platform.resolver.locating import AppLocation, LocateContext, LocationKind

__all__ = ["BUILTIN_LOCATION_KINDS"]


def _command(ctx: LocateContext, location: AppLocation) -> Iterable[str]:
    found = ctx.which(location.value)
    return [found if found is not None else location.value]


def _uninstall_registry(ctx: LocateContext, location: AppLocation) -> Iterable[str]:
    for entry in ctx.uninstall_entries():
        if not entry.display_name.startswith(location.value):
            continue
        install = entry.install_location
        # UNC install folders are skipped so a presence check never touches the network.
        if not install or install.startswith(("\\\\", "//")):
            continue
        yield ctx.join(install, location.file)


def _app_bundle(ctx: LocateContext, location: AppLocation) -> Iterable[str]:
    return ctx.in_dirs(known_dirs.mac_application_dirs(ctx.os), location.value)


def _flatpak(ctx: LocateContext, location: AppLocation) -> Iterable[str]:
    return ctx.in_dirs(known_dirs.flatpak_export_dirs(ctx.os), location.value)


def _snap(ctx: LocateContext, location: AppLocation) -> Iterable[str]:
    return ctx.in_dirs(known_dirs.snap_bin_dirs(ctx.os), location.value)


BUILTIN_LOCATION_KINDS = (
    LocationKind(
        "command",
        None,
        "name",
        "executable",
        _command,
        description="an executable on PATH (PATHEXT honoured on Windows)",
        resolution="path_executable",
    ),
    LocationKind(
        "uninstall_registry",
        "win32",
        "display_name_prefix",
        "executable",
        _uninstall_registry,
        needs_file=True,
        description="InstallLocation of each uninstall entry whose DisplayName starts "
        "with the prefix, joined with file",
    ),
    LocationKind(
        "app_bundle",
        "darwin",
        "name",
        "bundle",
        _app_bundle,
        description="<name> in each macOS application folder (system, then user)",
    ),
    LocationKind(
        "flatpak",
        "linux",
        "app_id",
        "executable",
        _flatpak,
        description="system, then per-user flatpak exports/bin/<app_id>",
    ),
    LocationKind(
        "snap",
        "linux",
        "name",
        "executable",
        _snap,
        description="<name> in the snap launcher folder",
    ),
)
