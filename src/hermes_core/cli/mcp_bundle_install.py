"""``hermes mcp install ./file.mcpb`` (or a bundle URL with ``--sha256``): the bundle's plan
(:mod:`hermes_core.catalog.registry.bundle_source`) through the install service, on the
terminal.  Reference: ``docs/registry.md``."""

from __future__ import annotations

from hermes_core.catalog.install_plan import InstallPlan
from hermes_core.catalog.install_service import InstallService
from hermes_core.catalog.registry.bundle_source import bundle_plan, is_bundle_target
from hermes_core.cli.install_door import install_with
from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["install_bundle", "is_bundle_target"]


def install_bundle(
    manager: HermesPluginManager,
    source: str,
    *,
    sha256: str | None,
    assume_yes: bool = False,
    as_name: str | None = None,
) -> int:
    """Install the bundle at *source* (a path, or an ``https://`` URL that needs *sha256*)."""

    def resolve(service: InstallService) -> InstallPlan:
        return bundle_plan(
            source,
            sha256=sha256,
            configured=service.configured(),
            display_names=manager.display_names,
            as_name=as_name,
        )

    return install_with(manager, resolve, assume_yes=assume_yes)
