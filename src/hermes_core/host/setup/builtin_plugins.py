"""The built-in plugins' transports and auth providers, read from their hooks (no plugins
installed or loaded): what a host factory without a plugin manager knows."""

from __future__ import annotations

import functools

from hermes_core.plugins.manager import HermesPluginManager, create_plugin_manager
from hermes_core.plugins.types import AuthProviderSpec, CallInterceptor, TransportSpec

__all__ = ["builtin_auth_providers", "builtin_interceptors", "builtin_transports"]


@functools.cache
def _builtin_manager() -> HermesPluginManager:
    return create_plugin_manager(entry_points=False)


def builtin_transports() -> dict[str, TransportSpec]:
    """The built-in plugins' transports (stdio, streamable_http, sse), from their hook."""
    return _builtin_manager().transports()


def builtin_auth_providers() -> dict[str, AuthProviderSpec]:
    """The built-in plugins' auth providers (headers, oauth), from their hook."""
    return _builtin_manager().auth_providers()


def builtin_interceptors() -> dict[str, CallInterceptor]:
    """The built-in call interceptors (audit, result_budget), from their hook."""
    return _builtin_manager().call_interceptors()
