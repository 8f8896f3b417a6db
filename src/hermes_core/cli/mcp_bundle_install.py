"""``hermes mcp install ./file.mcpb`` (or a bundle URL with ``--sha256``, or the ``mcpb``
package of a registry entry): check the SHA-256 before anything is unpacked, unpack safely
into ``$HERMES_HOME/mcp-installs/NAME``, ask the manifest's ``user_config``, write the entry.

A refusal (hash mismatch, unsafe or oversized zip, unknown server type, another platform)
writes nothing; a failure after unpacking puts the previous install back.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import sys
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_core.catalog.catalog import Entry, refusal
from hermes_core.catalog.install import install_dir
from hermes_core.catalog.registry.bundle import (
    MAX_BUNDLE_BYTES,
    BundleError,
    BundleManifest,
    bundle_entry,
    bundle_questions,
    check_entry_point,
    check_members,
    read_manifest,
    sha256_of,
    unpack,
)
from hermes_core.catalog.registry.client import RegistryError, download
from hermes_core.catalog.registry.entry import PlanError, config_name
from hermes_core.catalog.registry.records import InstallRecord
from hermes_core.cli.common import EXIT_FAILED, EXIT_USAGE
from hermes_core.cli.mcp_catalog import catalog_guard
from hermes_core.cli.prompts import shown
from hermes_core.cli.stop import Stop
from hermes_core.cli.unvetted_install import (
    ask,
    asks_lines,
    check_name_free,
    confirm_install,
    finish,
)
from hermes_core.config.loader import hermes_home
from hermes_core.plugins.manager import HermesPluginManager

if TYPE_CHECKING:
    from hermes_core.catalog.registry.client import Listed
    from hermes_core.catalog.registry.server_json import ServerJson

__all__ = ["install_bundle", "is_bundle_target"]


def is_bundle_target(target: str) -> bool:
    """A ``.mcpb`` file or URL."""
    return target.lower().endswith(".mcpb")


def _local(source: str) -> Path:
    path = Path(source).expanduser()
    try:
        info = os.stat(path)
    except OSError as exc:
        raise Stop(EXIT_USAGE, f"{source}: cannot read the bundle ({exc.strerror})") from None
    if not stat.S_ISREG(info.st_mode):
        raise Stop(EXIT_USAGE, f"{source}: not a regular file")
    if info.st_size > MAX_BUNDLE_BYTES:
        raise Stop(EXIT_FAILED, f"{source}: the bundle is larger than {MAX_BUNDLE_BYTES} bytes")
    return path


def _plan_lines(
    source: str, digest: str, manifest: BundleManifest, folder: Path, entry: dict[str, object]
) -> list[str]:
    title = manifest.display_name or manifest.name
    lines = [
        f"Install bundle '{shown(title)}' {shown(manifest.version)} from {shown(source, 300)}",
        "  UNVETTED: not reviewed for the Hermes catalog; check what it runs before you agree",
        f"  sha256:    {digest}",
    ]
    if manifest.description:
        lines.append(f"  {shown(manifest.description)}")
    lines.append(f"  into:      {folder}")
    command = [str(entry["command"]), *map(str, entry.get("args", []))]  # type: ignore[call-overload]
    lines.append(f"  runs:      {shown(' '.join(command), 400)} ({manifest.server_type} server)")
    for key, value in dict(entry.get("env", {})).items():  # type: ignore[call-overload]
        lines.append(f"  env:       {shown(key)}={shown(value)}")
    if manifest.unknown:
        fields = ", ".join(shown(u, 60) for u in manifest.unknown[:12])
        lines.append(f"  note:      manifest fields this Hermes does not read (ignored): {fields}")
    return lines


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


def install_bundle(
    manager: HermesPluginManager,
    source: str,
    *,
    sha256: str | None,
    assume_yes: bool = False,
    as_name: str | None = None,
    registry: tuple[Listed, ServerJson] | None = None,
    required_sha: bool = False,
) -> int:
    """Install the bundle at *source* (a path, or an ``https://`` URL that needs *sha256*)."""

    def action() -> int:
        remote = source.startswith(("https://", "http://"))
        if (remote or required_sha) and not sha256:
            raise Stop(
                EXIT_FAILED if required_sha else EXIT_USAGE,
                f"{source}: a bundle URL needs its SHA-256 (--sha256, or the registry's "
                "fileSha256); refused, nothing was written",
            )
        downloaded: Path | None = None
        try:
            if remote:
                cache = hermes_home() / "cache" / "downloads"
                try:
                    downloaded, digest = download(source, MAX_BUNDLE_BYTES, into=cache)
                except RegistryError as exc:
                    raise Stop(EXIT_FAILED, str(exc)) from None
                path = downloaded
            else:
                path = _local(source)
                digest = sha256_of(path)
            if sha256 and digest != sha256.lower():
                raise Stop(
                    EXIT_FAILED,
                    f"{source}: SHA-256 mismatch (expected {shown(sha256, 80)}, got {digest}); "
                    "refused, nothing was unpacked or written",
                )
            return _install(manager, source, path, digest, assume_yes, as_name, registry)
        finally:
            if downloaded is not None:
                with contextlib.suppress(OSError):
                    downloaded.unlink()

    return catalog_guard(action)


def _install(
    manager: HermesPluginManager,
    source: str,
    path: Path,
    digest: str,
    assume_yes: bool,
    as_name: str | None,
    registry: tuple[Listed, ServerJson] | None,
) -> int:
    label = shown(source, 200)
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError):
        raise Stop(EXIT_FAILED, f"{label}: not a zip file (a .mcpb bundle is one)") from None
    with archive:
        try:
            members = check_members(archive, label)
            manifest = read_manifest(archive, label)
            check_entry_point(manifest, members, label)
        except BundleError as exc:
            raise Stop(EXIT_FAILED, f"{exc}; refused, nothing was written") from None
        if manifest.platforms and sys.platform not in manifest.platforms:
            raise Stop(
                EXIT_FAILED,
                f"'{shown(manifest.name)}' is unavailable: unsupported_os. The bundle runs on "
                f"{', '.join(shown(p, 20) for p in manifest.platforms)}, not {sys.platform}.",
            )
        name = as_name or config_name(manifest.name)
        refused = refusal(Entry(name, "bundle", label), manager.display_names.get(name))
        if refused is not None:  # a plugin's app declaration for this name
            raise Stop(EXIT_FAILED, refused)
        origin = registry[1].name if registry is not None else f"bundle:{manifest.name}"
        previous = check_name_free(manager, name, origin)
        folder = install_dir(name)
        asked = bundle_questions(manifest, name)
        try:
            draft, runner = bundle_entry(manifest, folder, name, {q.variable for q in asked})
        except PlanError as exc:
            raise Stop(EXIT_FAILED, f"{label}: {exc}") from None
        if registry is not None:
            listed, server = registry
            print(f"From registry {listed.registry.name} ({listed.registry.url}): {server.name}")
        for line in _plan_lines(source, digest, manifest, folder, draft):
            print(line)
        for line in asks_lines(asked):
            print(line)
        if runner is not None:
            print(f"  {runner.state}: {runner.sentence} (saved disabled until then)")
        if not confirm_install(name, assume_yes=assume_yes):
            return EXIT_FAILED
        values, answered = ask(asked)
        made, runner = bundle_entry(manifest, folder, name, answered)
        new = folder.with_name(f".{name}.new")
        if new.exists():
            shutil.rmtree(new)
        try:
            unpack(archive, members, new, label)
        except BundleError as exc:
            raise Stop(EXIT_FAILED, f"{exc}; refused, nothing was written") from None
    moved = _swap_in(new, folder)
    record = InstallRecord(
        name=name,
        kind="registry" if registry is not None else "bundle",
        version=manifest.version,
        package="mcpb",
        server=origin,
        registry=registry[0].registry.url if registry is not None else "",
        source=source if source.startswith(("https://", "http://")) else str(path.resolve()),
        sha256=digest,
    )
    try:
        print(f"unpacked into {folder}")
        code = finish(manager, name, made, values, record, previous, runner)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        if moved is not None:
            os.replace(moved, folder)
        raise
    if moved is not None:
        shutil.rmtree(moved, ignore_errors=True)
    return code
