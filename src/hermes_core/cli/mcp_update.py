"""``hermes mcp update [NAME] [--yes] [--json]``: for servers installed from a registry or a
``.mcpb`` bundle, show a newer version and install it when asked to (the tool choice and the
values in ``.env`` are kept).  Nothing updates by itself.  Reference: ``docs/registry.md``.
"""

from __future__ import annotations

import argparse
import json
import re
import zipfile
from dataclasses import dataclass

from hermes_core.catalog.manifest_changes import CATALOG_KIND
from hermes_core.catalog.registry.bundle import BundleError, read_manifest
from hermes_core.catalog.registry.client import RegistryClient, RegistryError
from hermes_core.catalog.registry.records import InstallRecord, records
from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, PluginLoader
from hermes_core.cli.mcp_bundle_install import install_bundle
from hermes_core.cli.mcp_catalog import catalog_guard, configured_servers
from hermes_core.cli.mcp_registry_install import install_from_registry, registries_for
from hermes_core.cli.prompts import confirm, interactive, shown
from hermes_core.cli.stop import Stop
from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["run", "update"]


@dataclass(frozen=True)
class _Found:
    record: InstallRecord
    latest: str | None
    note: str = ""


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    return update(plugins(), args.name, assume_yes=args.yes, as_json=args.json)


def _key(version: str) -> tuple[tuple[int, ...], int, str]:
    """Order versions: release numbers first, a pre-release (``-rc1``) before its release."""
    head, _, pre = version.partition("-")
    numbers = tuple(int(n) for n in re.findall(r"\d+", head))
    return numbers, 0 if pre else 1, pre


def newer(latest: str, installed: str) -> bool:
    """Whether *latest* is a later version than *installed* (another spelling of an
    unparsable version counts as newer: the registry says it is the latest)."""
    if latest == installed:
        return False
    a, b = _key(latest), _key(installed)
    if a[0] and b[0]:
        return a > b
    return True


def _latest(manager: HermesPluginManager, record: InstallRecord) -> _Found:
    if record.kind == "registry":
        try:
            (registry,) = registries_for(manager, record.registry)
            listed = RegistryClient(registry).server(record.server, "latest")
        except (RegistryError, Stop) as exc:
            return _Found(record, None, str(exc) if isinstance(exc, RegistryError) else "")
        if listed is None or listed.server is None:
            return _Found(record, None, f"{record.server} is no longer in {record.registry}")
        return _Found(record, listed.server.version)
    if record.source.startswith(("https://", "http://")):
        return _Found(record, None, "installed from a URL: install a newer bundle URL yourself")
    try:
        with zipfile.ZipFile(record.source) as archive:
            return _Found(record, read_manifest(archive, record.source).version)
    except (OSError, zipfile.BadZipFile, BundleError) as exc:
        return _Found(record, None, f"cannot read {record.source}: {exc}")


def _apply(manager: HermesPluginManager, found: _Found) -> int:
    record, version = found.record, found.latest
    assert version is not None
    if record.kind == "registry":
        return install_from_registry(
            manager,
            f"{record.server}@{version}",
            registry=record.registry,
            package=record.package,
            assume_yes=True,
            as_name=record.name,
        )
    return install_bundle(manager, record.source, sha256=None, assume_yes=True, as_name=record.name)


def update(
    manager: HermesPluginManager,
    name: str | None = None,
    *,
    assume_yes: bool = False,
    as_json: bool = False,
) -> int:
    def action() -> int:
        _servers, raw = configured_servers(manager)
        known = [r for r in records() if r.name in raw and r.kind != CATALOG_KIND]
        if name is not None:
            known = [r for r in known if r.name == name]
            if not known:
                if name in raw:
                    raise Stop(
                        EXIT_USAGE,
                        f"'{name}' was not installed from a registry or a bundle (a catalog "
                        f"entry is updated by `hermes mcp install {name}` again)",
                    )
                raise Stop(EXIT_USAGE, f"no server named {name!r} in config.yaml")
        found = [_latest(manager, r) for r in known]
        pending = [f for f in found if f.latest and newer(f.latest, f.record.version)]
        if as_json:
            rows = [
                {
                    "name": f.record.name,
                    "installed": f.record.version,
                    "latest": f.latest,
                    "newer": f in pending,
                    "from": f.record.registry or f.record.source,
                    "note": shown(f.note, 300) or None,
                }
                for f in found
            ]
            print(json.dumps(rows, indent=2))
            return EXIT_OK
        if not found:
            print("nothing was installed from a registry or a bundle")
            return EXIT_OK
        for f in found:
            if f in pending:
                print(f"{f.record.name}: {f.record.version} → {shown(f.latest or '', 80)}")
            elif f.latest:
                print(f"{f.record.name}: {f.record.version} is the latest")
            else:
                print(f"{f.record.name}: {f.record.version} ({shown(f.note, 300)})")
        code = EXIT_OK
        for f in pending:
            if not assume_yes:
                if not interactive():
                    print(f"apply with: hermes mcp update {f.record.name} --yes")
                    continue
                if not confirm(f"Update '{f.record.name}' to {f.latest}?", default=False):
                    continue
            result = _apply(manager, f)
            code = code if result == EXIT_OK else EXIT_FAILED
        return code

    return catalog_guard(action)
