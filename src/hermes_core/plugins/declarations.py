"""Helpers for vendors: turn a ``plugin.yaml`` shipped in a package into declarations."""

from __future__ import annotations

from importlib import resources

from hermes_core.plugin_yaml import PluginFileError, parse_plugin_text
from hermes_core.plugins.types import AppDeclaration

__all__ = ["declarations_from_package", "declarations_from_yaml"]


def declarations_from_yaml(text: str, where: str) -> list[AppDeclaration]:
    """Declarations from ``plugin.yaml`` text; errors name *where* and the line."""
    # The declaration itself is validated when Hermes applies plugins: by then
    # every plugin's location kinds are registered.
    loaded = parse_plugin_text(text, where, validate=False)
    return [
        AppDeclaration(
            server=loaded.name,
            app=loaded.raw_app,
            requires=loaded.raw_requires,
            where=where,
            display_name=loaded.display_name,
            key_line=loaded.line_of,
        )
    ]


def declarations_from_package(package: str, resource: str = "plugin.yaml") -> list[AppDeclaration]:
    """Declarations from the ``plugin.yaml`` inside an installed package.

    Raises :class:`hermes_core.plugin_yaml.PluginFileError` (``package/plugin.yaml:LINE: ...``)
    when the file is missing or wrong; Hermes reports it against your plugin.
    """
    where = f"{package.replace('.', '/')}/{resource}"
    try:
        text = resources.files(package).joinpath(resource).read_text(encoding="utf-8")
    except (OSError, ModuleNotFoundError) as exc:
        raise PluginFileError(where, None, "", f"cannot read the file: {exc}") from None
    return declarations_from_yaml(text, where)
