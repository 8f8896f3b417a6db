"""Whether a config entry is what a catalog entry installs: the test of the administrator's
``catalog_only`` (docs/trust.md).

An entry passes when its name is a catalog entry's and its command and arguments (or its URL),
as written, are exactly what ``hermes mcp install`` writes for it.  Entries of
``HERMES_CATALOG_PATH`` (the user's own manifests) do not count: a user could list anything
there.  The catalog is read on the first question only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from hermes_core.catalog.catalog import Catalog, load_catalog
from hermes_core.catalog.install import install_dir, server_entry
from hermes_core.config.models import ServerConfig

if TYPE_CHECKING:
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["catalog_check"]

#: The origin of ``HERMES_CATALOG_PATH`` manifests (see ``catalog._origin``).
LOCAL_ORIGIN = "HERMES_CATALOG_PATH"


def catalog_check(
    manager: Callable[[], HermesPluginManager],
) -> Callable[[str, ServerConfig], bool | None]:
    """The check for the plugin manager *manager()* gives (asked for on first use)."""
    loaded: list[Catalog] = []

    def check(name: str, cfg: ServerConfig) -> bool | None:
        if not loaded:
            loaded.append(load_catalog(manager()))
        entry = loaded[0].entries.get(name)
        if entry is None or entry.manifest is None or entry.origin == LOCAL_ORIGIN:
            return False
        manifest = entry.manifest
        expected = server_entry(manifest, install_dir(name) if manifest.source else None)
        return (
            expected.get("command") == cfg.command
            and expected.get("args", []) == list(cfg.args)
            and (expected.get("url") or None) == (cfg.url or None)
            and expected.get("transport", cfg.transport) == cfg.transport
        )

    return check
