"""Catalog installs whose manifest changed since they were installed (``hermes update``).

``hermes mcp install NAME`` of a catalog entry records the digest of the manifest it installed
(``$HERMES_HOME/installs/NAME.json``, ``kind: catalog``); after an upgrade brought new
manifests, :func:`changed_installs` lists each configured install whose manifest now differs
(re-run ``hermes mcp install NAME``: the entry is updated, the tool choice kept), or that the
catalog no longer has.  An install made before the digest was recorded is not listed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

from hermes_core.catalog.catalog import Catalog
from hermes_core.catalog.manifest import Manifest
from hermes_core.catalog.registry.records import InstallRecord, records

__all__ = ["CATALOG_KIND", "ManifestChange", "changed_installs", "manifest_digest", "record_of"]

#: The ``kind`` of an install record made by a catalog install.
CATALOG_KIND = "catalog"


@dataclass(frozen=True)
class ManifestChange:
    """A configured catalog install whose manifest is not the one installed."""

    name: str
    why: str


def manifest_digest(manifest: Manifest) -> str:
    """The SHA-256 of the manifest's content (its parsed form, so formatting does not count)."""
    return hashlib.sha256(manifest.model_dump_json().encode("utf-8")).hexdigest()


def record_of(name: str, manifest: Manifest, origin: str) -> InstallRecord:
    """The install record of catalog entry *name* installed from *manifest*."""
    return InstallRecord(
        name=name,
        kind=CATALOG_KIND,
        version=origin,
        package=CATALOG_KIND,
        sha256=manifest_digest(manifest),
    )


def changed_installs(found: Catalog, configured: Mapping[str, object]) -> list[ManifestChange]:
    """Each catalog install still in *configured* (``mcp_servers``) whose manifest changed."""
    changes = []
    for record in records():
        if record.kind != CATALOG_KIND or record.name not in configured:
            continue
        entry = found.entries.get(record.name)
        if entry is None or entry.manifest is None:
            why = found.broken.get(record.name) or "the catalog no longer has it"
            changes.append(ManifestChange(record.name, why))
        elif manifest_digest(entry.manifest) != record.sha256:
            changes.append(
                ManifestChange(record.name, f"its manifest changed (now from {entry.origin})")
            )
    return sorted(changes, key=lambda change: change.name)
