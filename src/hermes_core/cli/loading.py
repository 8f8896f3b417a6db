"""Loading ``config.yaml`` through the host factory of a ``hermes mcp`` command (the plugins'
transports and auth providers): no host is started, no event loop."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from hermes_core.catalog.policy_entries import catalog_check
from hermes_core.cli.common import EXIT_USAGE, print_config_error
from hermes_core.cli.stop import Stop
from hermes_core.config.loader import LoadedConfig
from hermes_core.config.models import ConfigError
from hermes_core.host.setup.factory import HostFactory
from hermes_core.plugins.manager import get_plugin_manager

if TYPE_CHECKING:
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["factory_for", "load"]


def factory_for(manager: HermesPluginManager | None) -> HostFactory:
    """The host factory of every ``hermes mcp`` command: *manager*'s transports and auth
    providers (the built-in ones when there is no manager)."""
    factory = HostFactory() if manager is None else HostFactory.from_manager(manager)
    # The policy's catalog_only test (the catalog is read on its first question).
    factory.catalog_check = catalog_check(lambda: manager or get_plugin_manager())
    return factory


def load(factory: HostFactory | None = None, *, strict: bool = True) -> LoadedConfig:
    """``config.yaml`` against *factory*'s transports and auth providers (default: the
    built-in ones); a bad file prints its error and stops with exit code 2."""
    if factory is None:
        factory = factory_for(None)
    try:
        loaded = factory.load_config(strict=strict)
    except ConfigError as exc:
        print_config_error(exc)
        raise Stop(EXIT_USAGE) from None
    for warning in loaded.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for _name, problem in loaded.unavailable:
        print(f"warning: {problem}", file=sys.stderr)
    return loaded
