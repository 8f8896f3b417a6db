"""The built-in plugins: ordinary modules of ``@hookimpl`` functions, which build on the host
(its transports) and on auth (OAuth), so they sit above both.

The plugin manager registers them through the same path as a third-party plugin, by their
dotted names (:data:`hermes_core.plugins.manager.BUILTIN_PLUGINS`), before any entry point
is loaded: the plugin layer never imports them.
"""
