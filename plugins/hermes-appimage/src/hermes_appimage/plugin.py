"""The ``appimage`` location kind (``<name>.AppImage`` and versioned ``<name>-*.AppImage``) and
the ``appimage_filename`` version source (the version in such a file's name)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from hermes_appimage.known_dirs import appimage_dirs
from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import (
    AppLocation,
    LocateContext,
    LocationKind,
    Observation,
    VersionSource,
)
from hermes_platform.resolver.paths import natural_version_key


def locate_appimage(ctx: LocateContext, location: AppLocation) -> Iterable[str]:
    name = location.value
    for folder in appimage_dirs(ctx.os):
        base = ctx.expand(folder)
        yield ctx.join(base, f"{name}.AppImage")
        versioned = ctx.star(ctx.join(base, f"{name}-*.AppImage")) + ctx.star(
            ctx.join(base, f"{name}_*.AppImage")
        )
        yield from sorted(set(versioned), key=_newest_key, reverse=True)


def _newest_key(path: str) -> tuple[tuple[int, int, str], ...]:
    return natural_version_key(path.rsplit("/", 1)[-1])


APPIMAGE = LocationKind(
    name="appimage",
    os="linux",
    key="name",
    presence="executable",
    locate=locate_appimage,
    provider="hermes-appimage",
    description="<name>.AppImage, then <name>-*.AppImage (newest first) in the AppImage folders",
)


_SUFFIX = ".appimage"
_ARCH = re.compile(r"[-_.](x86[-_]64|amd64|aarch64|arm64|armhf|armv7l|i[36]86)$", re.IGNORECASE)
_VERSION = re.compile(r"[-_][vV]?([0-9]{1,9}(?:\.[0-9]{1,9})*)(?=[-_.+~]|$)")


def read_filename_version(ctx: LocateContext, path: str, arg: str) -> Observation:
    """The first dotted number after a ``-``/``_`` in an ``.AppImage`` file name.

    ``Acme-Studio-1.10.2-x86_64.AppImage`` states 1.10.2.  The AppImage's own
    desktop entry (``X-AppImage-Version``) sits inside its SquashFS image; see
    the README for why that is not read.
    """
    name = ctx.basename(path)
    if not name.lower().endswith(_SUFFIX):
        return Observation("unavailable", None, f"{name} is not an .AppImage file")
    stem = _ARCH.sub("", name[: -len(_SUFFIX)])
    found = _VERSION.search(stem)
    if found is None:
        return Observation("unavailable", None, f"the file name {name} states no version")
    return Observation("present", found.group(1), f"in the file name {name}")


APPIMAGE_FILENAME = VersionSource(
    name="appimage_filename",
    os="linux",
    read=read_filename_version,
    provider="hermes-appimage",
    description="the version in an AppImage's file name (Name-1.2.3-x86_64.AppImage)",
)


@hookimpl
def location_kind() -> Iterable[LocationKind]:
    return [APPIMAGE]


@hookimpl
def version_source() -> Iterable[VersionSource]:
    return [APPIMAGE_FILENAME]
