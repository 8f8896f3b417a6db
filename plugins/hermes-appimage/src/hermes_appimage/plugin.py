"""The ``appimage`` location kind: ``<name>.AppImage`` and versioned ``<name>-*.AppImage``."""

from __future__ import annotations

from collections.abc import Iterable

from hermes_appimage.known_dirs import appimage_dirs
from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import AppLocation, LocateContext, LocationKind
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


@hookimpl
def location_kind() -> Iterable[LocationKind]:
    return [APPIMAGE]
