"""Resolve a ``.mcpb`` bundle (a file, a URL with its SHA-256, or a registry entry's ``mcpb``
package) into an install plan (:mod:`hermes_core.catalog.install_service`): the SHA-256 is
checked before anything is unpacked, the zip and its manifest before anything is written; the
fetch step unpacks into a new folder and only then swaps it in (the previous install is put
back when writing the entry fails).

A bundle's entry is known only from its manifest, inside the bundle: the policy check runs after
the download and its hash check, before anything is unpacked or written.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import sys
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

from hermes_core.catalog.command_line import one_line
from hermes_core.catalog.install import install_dir
from hermes_core.catalog.install_plan import (
    Fetch,
    InstallDoor,
    InstallPlan,
    InstallRefused,
    Refusal,
)
from hermes_core.catalog.registry.app_gate import (
    declared_lines,
    declared_refusal,
    own_declaration,
)
from hermes_core.catalog.registry.app_meta import MetaDeclaration
from hermes_core.catalog.registry.bundle import (
    MAX_BUNDLE_BYTES,
    BundleError,
    bundle_entry,
    bundle_questions,
    check_entry_point,
    check_members,
    read_manifest,
    sha256_of,
    unpack,
)
from hermes_core.catalog.registry.client import Listed, RegistryError, download
from hermes_core.catalog.registry.entry import PlanError, config_name
from hermes_core.catalog.registry.records import InstallRecord, replaced_entry
from hermes_core.catalog.registry.screen import bundle_lines
from hermes_core.catalog.registry.server_json import ServerJson
from hermes_core.config.loader import hermes_home
from hermes_platform.runners import MissingRunner

__all__ = ["bundle_plan", "is_bundle_target"]


def is_bundle_target(target: str) -> bool:
    """A ``.mcpb`` file or URL."""
    return target.lower().endswith(".mcpb")


def _remote(source: str) -> bool:
    return source.startswith(("https://", "http://"))


def _local(source: str) -> Path:
    path = Path(source).expanduser()
    try:
        info = os.stat(path)
    except OSError as exc:
        raise InstallRefused(
            f"{source}: cannot read the bundle ({exc.strerror})", Refusal.USAGE
        ) from None
    if not stat.S_ISREG(info.st_mode):
        raise InstallRefused(f"{source}: not a regular file", Refusal.USAGE)
    if info.st_size > MAX_BUNDLE_BYTES:
        raise InstallRefused(f"{source}: the bundle is larger than {MAX_BUNDLE_BYTES} bytes")
    return path


def bundle_plan(
    source: str,
    *,
    sha256: str | None,
    configured: dict[str, object],
    display_names: dict[str, str],
    as_name: str | None = None,
    registry: tuple[Listed, ServerJson, MetaDeclaration | None] | None = None,
    required_sha: bool = False,
) -> InstallPlan:
    """The plan for the bundle at *source* (a path, or an ``https://`` URL that needs
    *sha256*).  A downloaded file and the open zip are let go when the install ends."""
    remote = _remote(source)
    if (remote or required_sha) and not sha256:
        raise InstallRefused(
            f"{source}: a bundle URL needs its SHA-256 (--sha256, or the registry's "
            "fileSha256); refused, nothing was written",
            Refusal.FAILED if required_sha else Refusal.USAGE,
        )
    cleanup: list[Callable[[], None]] = []
    try:
        if remote:
            try:
                path, digest = download(
                    source, MAX_BUNDLE_BYTES, into=hermes_home() / "cache" / "downloads"
                )
            except RegistryError as exc:
                raise InstallRefused(str(exc)) from None
            cleanup.append(path.unlink)
        else:
            path = _local(source)
            digest = sha256_of(path)
        if sha256 and digest != sha256.lower():
            raise InstallRefused(
                f"{source}: SHA-256 mismatch (expected {one_line(sha256, 80)}, got {digest}); "
                "refused, nothing was unpacked or written"
            )
        label = one_line(source, 200)
        try:
            archive = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError):
            raise InstallRefused(f"{label}: not a zip file (a .mcpb bundle is one)") from None
        cleanup.append(archive.close)
        plan = _plan(archive, source, path, digest, configured, display_names, as_name, registry)
    except BaseException:
        for step in cleanup:
            with contextlib.suppress(OSError):
                step()
        raise
    plan.cleanup.extend(cleanup)
    return plan


def _plan(
    archive: zipfile.ZipFile,
    source: str,
    path: Path,
    digest: str,
    configured: dict[str, object],
    display_names: dict[str, str],
    as_name: str | None,
    registry: tuple[Listed, ServerJson, MetaDeclaration | None] | None,
) -> InstallPlan:
    label = one_line(source, 200)
    try:
        members = check_members(archive, label)
        manifest = read_manifest(archive, label)
        check_entry_point(manifest, members, label)
    except BundleError as exc:
        raise InstallRefused(f"{exc}; refused, nothing was written") from None
    if manifest.platforms and sys.platform not in manifest.platforms:
        raise InstallRefused(
            f"'{one_line(manifest.name)}' is unavailable: unsupported_os. The bundle runs on "
            f"{', '.join(one_line(p, 20) for p in manifest.platforms)}, not {sys.platform}."
        )
    name = as_name or config_name(manifest.name)
    origin = registry[1].name if registry is not None else f"bundle:{manifest.name}"
    # The bundle's own declaration, else its registry entry's, else a plugin's for this name.
    own = own_declaration(manifest.hermes_meta, name, f"{label} (manifest.json _meta)")
    if own is None and registry is not None:
        own = registry[2]
    refused = declared_refusal(name, origin, own, display_names)
    if refused is not None:
        raise InstallRefused(refused)
    try:
        previous = replaced_entry(configured, name, origin)
    except ValueError as exc:
        raise InstallRefused(str(exc), Refusal.USAGE) from None
    folder = install_dir(name)
    asked = bundle_questions(manifest, name)

    def make(answered: set[str]) -> tuple[dict[str, object], MissingRunner | None]:
        try:
            return bundle_entry(manifest, folder, name, answered)
        except PlanError as exc:
            raise InstallRefused(f"{label}: {exc}") from None

    draft, runner = make({q.variable for q in asked})
    record = InstallRecord(
        name=name,
        kind="registry" if registry is not None else "bundle",
        version=manifest.version,
        package="mcpb",
        server=origin,
        registry=registry[0].registry.url if registry is not None else "",
        source=source if _remote(source) else str(path.resolve()),
        sha256=digest,
        declaration=dict(own.raw) if own is not None else None,
    )
    return InstallPlan(
        name=name,
        title=f"'{name}' (unvetted)",
        lines=[
            *bundle_lines(
                source, digest, manifest, folder, draft, asked, runner, registry and registry[:2]
            ),
            *declared_lines(name, own),
        ],
        questions=asked,
        make=make,
        previous=previous,
        fetch=_unpacker(archive, members, folder, label),
        record=record,
    )


def _unpacker(
    archive: zipfile.ZipFile,
    members: list[zipfile.ZipInfo],
    folder: Path,
    label: str,
) -> Fetch:
    @contextlib.contextmanager
    def fetch(door: InstallDoor) -> Iterator[Path]:
        new = folder.with_name(f".{folder.name}.new")
        if new.exists():
            shutil.rmtree(new)
        folder.parent.mkdir(parents=True, exist_ok=True)
        try:
            unpack(archive, members, new, label)
        except BundleError as exc:
            raise InstallRefused(f"{exc}; refused, nothing was written") from None
        moved = _swap_in(new, folder)
        door.say(f"unpacked into {folder}")
        try:
            yield folder
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            if moved is not None:
                os.replace(moved, folder)
            raise
        if moved is not None:
            shutil.rmtree(moved, ignore_errors=True)

    return fetch


def _swap_in(new: Path, folder: Path) -> Path | None:
    """*new* becomes *folder*; the previous install is moved aside (returned) until done."""
    previous = folder.with_name(f".{folder.name}.previous")
    if previous.exists():
        shutil.rmtree(previous)
    moved = None
    if folder.exists():
        os.replace(folder, previous)
        moved = previous
    os.replace(new, folder)
    return moved
