"""Resolve a catalog entry into an install plan (:mod:`.install_service`): the refusals (no
such entry, a newer manifest, an app that is not here), the screen (every bootstrap command and
argument in full), the keys to ask, and the clone and bootstrap as its fetch."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from hermes_core.catalog import install as mechanics
from hermes_core.catalog.catalog import Catalog, Entry, refusal
from hermes_core.catalog.command_line import CommandLineTooLong, one_line, run_lines, visible
from hermes_core.catalog.install_plan import (
    EntryMaker,
    Fetch,
    InstallDoor,
    InstallPlan,
    InstallRefused,
    Refusal,
)
from hermes_core.catalog.manifest import Manifest
from hermes_core.catalog.manifest_changes import record_of
from hermes_core.catalog.registry.entry import Question
from hermes_core.config.interpolate import load_dotenv
from hermes_core.config.secret_lift import VariableNames, lift_secrets
from hermes_platform.runners import MissingRunner, missing_runner

__all__ = ["catalog_entry", "catalog_plan"]


def catalog_entry(found: Catalog, name: str) -> Entry:
    """The entry *name* (``official/`` prefix allowed), installable here."""
    entry = found.entries.get(name.removeprefix("official/"))
    if entry is None:
        if name in found.broken:
            raise InstallRefused(found.broken[name], Refusal.USAGE)
        known = ", ".join(found.entries) or "none"
        raise InstallRefused(
            f"no catalog entry named {name!r} (the catalog has: {known})", Refusal.USAGE
        )
    if entry.future is not None:
        raise InstallRefused(
            f"⚠ '{entry.name}' requires a newer Hermes (manifest_version "
            f"{entry.future.manifest_version}; this Hermes reads 1): run `hermes update`, "
            "then try again"
        )
    return entry


def catalog_plan(
    found: Catalog,
    name: str,
    configured: dict[str, object],
    display_names: dict[str, str],
) -> InstallPlan:
    """The plan for catalog entry *name*; *configured* is ``config.yaml``'s ``mcp_servers``."""
    entry = catalog_entry(found, name)
    refused = refusal(entry, display_names.get(entry.name))
    if refused is not None:
        raise InstallRefused(refused)
    manifest = entry.manifest
    assert manifest is not None
    folder = mechanics.install_dir(entry.name) if manifest.installs else None

    def make(_answered: set[str]) -> tuple[dict[str, object], MissingRunner | None]:
        made = mechanics.server_entry(manifest, folder)
        command = made.get("command")
        return made, missing_runner(command if isinstance(command, str) else None)

    previous = configured.get(entry.name)
    after = []
    if manifest.auth.sign_in is not None:
        sign = manifest.auth.sign_in
        after.append(
            f"sign in to {one_line(sign.provider)} first if you have not: {one_line(sign.run)}"
        )
    if manifest.notes:
        after.append(f"note: {one_line(manifest.notes, 600)}")
    return InstallPlan(
        name=entry.name,
        title=f"'{entry.name}'",
        lines=_screen(entry, manifest, folder, make),
        questions=[
            Question(k.name, k.prompt or k.name, k.secret, k.required, k.default)
            for k in manifest.auth.keys
        ],
        make=make,
        previous=previous if isinstance(previous, dict) else None,
        fetch=_fetcher(manifest) if manifest.installs else None,
        provider=manifest.auth.provider,
        transport=manifest.transport.plugin,
        lift_secrets=True,
        default_enabled=manifest.tools.default_enabled,
        default_excluded=manifest.tools.default_excluded,
        after=after,
        record=record_of(entry.name, manifest, entry.origin),
    )


def _screen(entry: Entry, manifest: Manifest, folder: Path | None, make: EntryMaker) -> list[str]:
    lines = [f"Install '{entry.name}' from {entry.origin}", f"  {one_line(manifest.description)}"]
    if manifest.homepage:
        lines.append(f"  homepage:  {one_line(manifest.homepage)}")
    lines.append(f"  manifest:  {entry.where}")
    if manifest.source is not None:
        ref = manifest.source.ref or "the default branch"
        lines.append(f"  source:    {visible(manifest.source.git)} at {visible(ref)}")
    if folder is not None:
        lines.append(f"  into:      {folder}")
    for number, command in enumerate(manifest.install.bootstrap, 1):
        lines.append(f"  bootstrap {number}: {visible(command)}")
    made, runner = make(set())
    # Shown as it will be written: a literal secret as the ${VAR} that config.yaml will hold.
    lift_secrets(entry.name, made, VariableNames(os.environ, load_dotenv()))
    try:
        rows = run_lines(made, f"catalog entry '{entry.name}'")
    except CommandLineTooLong as exc:
        raise InstallRefused(str(exc)) from None
    oauth = " (OAuth sign-in)" if made.get("auth") == "oauth" else ""
    for field, text in rows:
        lines.append(f"  {field + ':':<10} {text}{oauth if field == 'connects' else ''}")
        if field == "runs" and runner is not None:
            lines.append(f"  {runner.state}: {runner.sentence} (saved disabled until then)")
    if manifest.auth.provider is not None:
        lines.append(f"  auth:      {one_line(manifest.auth.provider)} (a plugin's auth provider)")
    for key in manifest.auth.keys:
        kind = "secret" if key.secret else "value"
        need = "required" if key.required else "optional"
        lines.append(f"  asks for:  {key.name} ({kind}, {need}; saved to $HERMES_HOME/.env)")
    if manifest.auth.sign_in is not None:
        sign = manifest.auth.sign_in
        lines.append(f"  sign-in:   {one_line(sign.provider)}: run `{one_line(sign.run)}` yourself")
    if manifest.tools.default_excluded is not None:
        lines.append(f"  tools:     all except {', '.join(manifest.tools.default_excluded)}")
    elif manifest.tools.default_enabled is not None:
        lines.append(f"  tools:     starts with {', '.join(manifest.tools.default_enabled)}")
    return lines


def _fetcher(manifest: Manifest) -> Fetch:
    @contextlib.contextmanager
    def fetch(door: InstallDoor) -> Iterator[Path]:
        with contextlib.ExitStack() as stack:
            try:
                folder, log_file = stack.enter_context(
                    mechanics.installing(manifest, door.progress)
                )
            except mechanics.InstallError as exc:
                raise InstallRefused(
                    f"{exc}; nothing was installed", log=mechanics.log_path(manifest.name)
                ) from None
            door.say(f"installed into {folder} (log: {log_file})")
            yield folder

    return fetch
