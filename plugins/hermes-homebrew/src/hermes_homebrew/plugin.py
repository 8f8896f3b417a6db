"""The ``homebrew`` (formula executables) and ``homebrew_cask`` (cask app bundles) kinds."""

from __future__ import annotations

from collections.abc import Iterable

from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import AppLocation, LocateContext, LocationKind
from hermes_homebrew.known_dirs import cask_app_dirs, homebrew_prefixes


def locate_formula(ctx: LocateContext, location: AppLocation) -> Iterable[str]:
    return [
        ctx.join(ctx.expand(prefix), "bin", location.value) for prefix in homebrew_prefixes(ctx.os)
    ]


def locate_cask(ctx: LocateContext, location: AppLocation) -> Iterable[str]:
    yield from ctx.in_dirs(cask_app_dirs(ctx.os), location.file)
    for prefix in homebrew_prefixes(ctx.os):
        pattern = ctx.join(ctx.expand(prefix), "Caskroom", location.value, "*", location.file)
        yield from ctx.star(pattern)


HOMEBREW = LocationKind(
    name="homebrew",
    os=None,
    key="name",
    presence="executable",
    locate=locate_formula,
    provider="hermes-homebrew",
    description="<prefix>/bin/<name> for each Homebrew prefix (macOS and Linux)",
)
HOMEBREW_CASK = LocationKind(
    name="homebrew_cask",
    os="darwin",
    key="token",
    presence="bundle",
    locate=locate_cask,
    needs_file=True,
    provider="hermes-homebrew",
    description="the cask's app: the application folders, then <prefix>/Caskroom/<token>/*/<file>",
)


@hookimpl
def location_kind() -> Iterable[LocationKind]:
    return [HOMEBREW, HOMEBREW_CASK]
