"""Write a Hermes plugin.

A plugin is a module of ``@hookimpl`` functions published through the
``hermes.plugins`` entry-point group.  Each hook takes no arguments and
returns registration objects::

    # acme_hermes/plugin.py
    from hermes_core.plugins import declarations_from_package, hookimpl

    @hookimpl
    def declare_app():
        return declarations_from_package("acme_hermes")   # reads acme_hermes/plugin.yaml

    # pyproject.toml
    [project.entry-points."hermes.plugins"]
    acme = "acme_hermes.plugin"

Hooks: ``declare_app``, ``location_kind``, ``version_source``, ``gpu_probe``,
``transport``, ``auth_provider``, ``catalog_entry``, ``sampling_provider``,
``messaging_platform``, ``call_interceptor`` — see :mod:`hermes_core.plugins.hookspecs` for the
reference, ``docs/plugin-authors.md`` for a tutorial and ``docs/plugins/`` for a page per hook,
each with a tested example.
Check it with ``hermes plugins list`` and ``hermes apps check``; test it with
the fixtures of the ``hermes`` pytest plugin (:mod:`hermes_core.testing`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_core._lazy import LazyExports

if TYPE_CHECKING:
    from hermes_core.plugins.catalog_files import catalog_entries_from_package
    from hermes_core.plugins.declarations import declarations_from_package, declarations_from_yaml
    from hermes_core.plugins.errors import PluginError
    from hermes_core.plugins.hookspecs import hookimpl
    from hermes_core.plugins.manager import (
        HermesPluginManager,
        create_plugin_manager,
        get_plugin_manager,
    )

__all__ = [
    "HermesPluginManager",
    "PluginError",
    "catalog_entries_from_package",
    "create_plugin_manager",
    "declarations_from_package",
    "declarations_from_yaml",
    "get_plugin_manager",
    "hookimpl",
]

# Imported on first use (PEP 562), so that ``hermes_core.plugins.errors`` and the other
# submodules do not drag the whole plugin stack (pluggy, pydantic, every hook type) into
# commands that never load a plugin, such as ``hermes --help``.
_HOME = {
    "HermesPluginManager": "manager",
    "PluginError": "errors",
    "catalog_entries_from_package": "catalog_files",
    "create_plugin_manager": "manager",
    "declarations_from_package": "declarations",
    "declarations_from_yaml": "declarations",
    "get_plugin_manager": "manager",
    "hookimpl": "hookspecs",
}


_LAZY = LazyExports(__name__, _HOME)


def __getattr__(name: str) -> object:
    return _LAZY.get(name)


def __dir__() -> list[str]:
    return _LAZY.names()
