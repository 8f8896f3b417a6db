"""Built-in plugins: ordinary modules of ``@hookimpl`` functions.

They are registered through the same path as a third-party plugin, under
these dotted names, before any entry point is loaded.
"""

BUILTIN_PLUGINS: tuple[str, ...] = (
    "hermes_core.plugins.builtin.location_kinds",
    "hermes_core.plugins.builtin.version_sources",
    "hermes_core.plugins.builtin.gpu_probes",
    "hermes_core.plugins.builtin.transports",
    "hermes_core.plugins.builtin.auth",
    "hermes_core.plugins.builtin.catalog",
    "hermes_core.plugins.builtin.local_catalog",
)
