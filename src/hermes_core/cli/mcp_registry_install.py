"""``hermes mcp install REGISTRY_NAME[@VERSION]`` (a name with a ``/``, or ``--registry``) and
``hermes mcp install ./file.mcpb``: the unvetted ways in.  A catalog name falls through to the
catalog's install (:mod:`.mcp_install`).  Reference: ``docs/registry.md``.
"""

from __future__ import annotations

import argparse
import sys

from hermes_core.catalog.install_plan import InstallPlan
from hermes_core.catalog.install_service import InstallService
from hermes_core.catalog.registry.registries import (
    Registry,
    configured_registries,
    pick_registries,
)
from hermes_core.catalog.registry.registry_source import registry_plan
from hermes_core.cli.common import EXIT_USAGE, PluginLoader
from hermes_core.cli.install_door import install_with
from hermes_core.cli.loading import factory_for
from hermes_core.cli.mcp_bundle_install import install_bundle, is_bundle_target
from hermes_core.cli.stop import Stop
from hermes_core.config.errors import ConfigError
from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["install_from_registry", "registries_for", "run"]


def _is_registry_target(args: argparse.Namespace) -> bool:
    name = str(args.name)
    if getattr(args, "registry", None):
        return True
    return "/" in name and not name.startswith("official/")


def run(args: argparse.Namespace, plugins: PluginLoader) -> int | None:
    """The registry or bundle install; ``None`` for a catalog name (the next handler runs)."""
    options = {
        "assume_yes": args.yes,
        "as_name": getattr(args, "as_name", None),
    }
    if is_bundle_target(args.name):
        return install_bundle(plugins(), args.name, sha256=args.sha256, **options)
    if not _is_registry_target(args):
        if args.sha256 or args.package or args.as_name:
            print(
                "error: --sha256, --package and --name are for registry and bundle installs "
                f"({args.name!r} is a catalog name)",
                file=sys.stderr,
            )
            return EXIT_USAGE
        return None
    return install_from_registry(
        plugins(), args.name, registry=args.registry, package=args.package, **options
    )


def registries_for(manager: HermesPluginManager, wanted: str | None) -> list[Registry]:
    """The registries to ask: ``config.yaml``'s ``registries:`` (or the official one), or the
    one ``--registry`` names."""
    loaded = factory_for(manager).load_config(strict=False)
    try:
        return pick_registries(configured_registries(loaded), wanted)
    except ConfigError as exc:  # every problem of the block, each on its line
        for problem in (exc, *exc.more):
            print(f"error: {problem}", file=sys.stderr)
        raise Stop(EXIT_USAGE) from None
    except ValueError as exc:
        raise Stop(EXIT_USAGE, str(exc)) from None


def install_from_registry(
    manager: HermesPluginManager,
    target: str,
    *,
    registry: str | None = None,
    package: str | None = None,
    assume_yes: bool = False,
    as_name: str | None = None,
) -> int:
    """Resolve *target* in the registries, show it (unvetted), ask, write, choose tools."""

    def resolve(service: InstallService) -> InstallPlan:
        return registry_plan(
            registries_for(manager, registry),  # Stop: the registries: block is wrong
            target,
            configured=service.configured(),
            display_names=manager.display_names,
            package=package,
            as_name=as_name,
        )

    return install_with(manager, resolve, assume_yes=assume_yes)
