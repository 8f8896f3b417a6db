"""Local catalog entries: every ``*.yaml`` manifest in the folders of ``HERMES_CATALOG_PATH``.

For an organisation's own vetted servers, and for testing a manifest before
shipping it in a plugin (folders separated by ``os.pathsep``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from hermes_core.plugins.catalog_files import catalog_entries_from_dirs
from hermes_core.plugins.hookspecs import hookimpl
from hermes_core.plugins.types import CatalogManifest

ENV_VAR = "HERMES_CATALOG_PATH"


@hookimpl
def catalog_entry() -> Iterable[CatalogManifest]:
    dirs = [part for part in os.environ.get(ENV_VAR, "").split(os.pathsep) if part.strip()]
    return catalog_entries_from_dirs(dirs)
