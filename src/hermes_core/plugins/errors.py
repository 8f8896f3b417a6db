"""Errors about plugins: which plugin, which distribution, which hook, what to do."""

from __future__ import annotations

__all__ = ["PluginError"]


class PluginError(Exception):
    """A plugin failed to load, raised in a hook, returned bad data or clashed with another."""

    def __init__(
        self,
        plugin: str,
        reason: str,
        *,
        distribution: str | None = None,
        hook: str | None = None,
    ) -> None:
        where = f"plugin {plugin!r}"
        if distribution:
            where += f" (from {distribution})"
        if hook:
            where += f", hook {hook}"
        super().__init__(f"{where}: {reason}")
        self.plugin = plugin
        self.distribution = distribution
        self.hook = hook
        self.reason = reason

    @property
    def advice(self) -> str:
        return (
            f"Skipped. Disable it with HERMES_DISABLE_PLUGINS={self.plugin} or --no-plugins, "
            "and report the problem to the plugin's author."
        )
