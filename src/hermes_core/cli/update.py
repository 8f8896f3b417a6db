"""``hermes update``: upgrade Hermes and its first-party plugins where this Hermes runs from,
then list the catalog installs whose manifest changed (docs/cli.md#hermes-update).

``--check`` only reports (the index is asked with pip's dry run, nothing is installed);
``--dry-run`` prints the command an update would run and runs nothing.  The installer is read
from the running environment (:mod:`hermes_core.cli.installer`); the command is printed before
it runs.  After an upgrade, the new Hermes lists the changed manifests (``--manifests``).
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys

from hermes_core.catalog.manifest_changes import changed_installs
from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, PluginLoader
from hermes_core.cli.installer import Installer, Plan, check_command, plan
from hermes_core.cli.mcp_catalog import configured_servers, found_catalog
from hermes_core.cli.stop import Stop
from hermes_core.sanitize import clean_line

__all__ = ["newer_versions", "run"]

#: How long asking the index may take.
_CHECK_TIMEOUT = 120.0


def _shown(command: list[str]) -> str:
    return " ".join(shlex.quote(word) for word in command)


def newer_versions(report: object) -> dict[str, str]:
    """From pip's ``--report`` JSON: each distribution it would install, and its version."""
    found = {}
    items = report.get("install") if isinstance(report, dict) else None
    for item in items if isinstance(items, list) else ():
        metadata = item.get("metadata") if isinstance(item, dict) else None
        if isinstance(metadata, dict) and metadata.get("name") and metadata.get("version"):
            name = str(metadata["name"]).lower().replace("_", "-")
            found[clean_line(name)] = clean_line(str(metadata["version"]))
    return found


def _ask_index(upgrade: Plan) -> dict[str, str]:
    """The newer versions the index has of the installed distributions (``Stop`` when it
    cannot be asked)."""
    if upgrade.installer is Installer.UV:
        raise Stop(EXIT_FAILED, "this environment has no pip to ask the index with; run "
                   "`hermes update` (uv upgrades what is newer)")  # fmt: skip
    command = check_command(sys.executable, upgrade.versions)
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=_CHECK_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        raise Stop(
            EXIT_FAILED, f"the package index did not answer in {_CHECK_TIMEOUT:g} s"
        ) from None
    if done.returncode != 0:
        lines = [clean_line(x) for x in done.stderr.splitlines() if x.strip()]
        why = next((x for x in lines if x.startswith("ERROR")), lines[-1] if lines else "")
        raise Stop(EXIT_FAILED, f"could not ask the package index: {why or 'pip failed'}")
    try:
        return newer_versions(json.loads(done.stdout or "{}"))
    except ValueError:
        raise Stop(EXIT_FAILED, "pip's report was not JSON") from None


def _manifests(plugins: PluginLoader) -> int:
    """List the configured catalog installs whose manifest changed."""
    manager = plugins()
    _servers, raw = configured_servers(manager)
    changes = changed_installs(found_catalog(manager, quiet=True), raw)
    for change in changes:
        print(f"{change.name}: {change.why}; re-run `hermes mcp install {change.name}`")
    if not changes:
        print("catalog installs: no manifest changed")
    return EXIT_OK


def _check(upgrade: Plan, plugins: PluginLoader) -> int:
    newer = _ask_index(upgrade)
    for name, version in upgrade.versions.items():
        latest = newer.get(name)
        state = f"{latest} is available" if latest else "up to date"
        print(f"{name} {version}: {state}")
    if upgrade.command is not None:
        print(f"`hermes update` would run ({upgrade.installer.value}): {_shown(upgrade.command)}")
    else:
        print(f"installed from {upgrade.installer.value} ({upgrade.source}): update it there")
    return _manifests(plugins)


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes update [--check | --dry-run | --manifests]``."""

    if args.manifests:
        return _manifests(plugins)
    upgrade = plan()
    if args.check:
        return _check(upgrade, plugins)
    if upgrade.command is None:
        raise Stop(
            EXIT_FAILED,
            f"this Hermes runs from {upgrade.installer.value} ({upgrade.source}): update "
            "it there (e.g. `git pull`), nothing was run",
        )
    print(f"running ({upgrade.installer.value}): {_shown(upgrade.command)}", flush=True)
    if args.dry_run:
        return EXIT_OK
    try:
        done = subprocess.run(upgrade.command, check=False)
    except OSError as exc:
        raise Stop(EXIT_FAILED, f"cannot run {upgrade.command[0]}: {exc.strerror}") from None
    if done.returncode != 0:
        raise Stop(EXIT_FAILED, f"{upgrade.command[0]} failed (exit {done.returncode})")
    # The upgraded Hermes reads the catalog it installed.
    listed = subprocess.run(
        [sys.executable, "-m", "hermes_core", "update", "--manifests"], check=False
    )
    return EXIT_OK if listed.returncode == 0 else EXIT_FAILED
