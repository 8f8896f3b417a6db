"""Version sources that read a file the installed app ships, without running anything.

- ``pe_resource``: the file version in a Windows executable's ``VS_FIXEDFILEINFO`` (the
  PE walk is :mod:`~hermes_platform.resolver.pe_version`);
- ``jetbrains_product_info``: ``version`` in a JetBrains IDE's
  ``product-info.json`` (every OS);
- ``flatpak``: the first ``<release version=…>`` of the AppStream metainfo in
  the app's active deployment, found from its ``exports/bin`` launcher (a
  flatpak's ``metadata`` file names the runtime, not the app's version);
- ``snap``: ``version:`` of ``meta/snap.yaml`` in the snap's current revision,
  found from its launcher in the snap ``bin`` folder.

Every read goes through the host seam, is bounded, and never raises: each
reader answers an :class:`~hermes_platform.resolver.observation.Observation`.
Where each file lies relative to the found path is in
:mod:`~hermes_platform.resolver.known_dirs`.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree

from hermes_platform.resolver import known_dirs, pe_version
from hermes_platform.resolver.locating import LocateContext
from hermes_platform.resolver.observation import Observation

__all__ = [
    "read_flatpak",
    "read_pe_resource",
    "read_product_info",
    "read_small_file",
    "read_snap",
]

MAX_VERSION_FILE_BYTES = 1024 * 1024


def read_small_file(ctx: LocateContext, path: str, limit: int = MAX_VERSION_FILE_BYTES) -> bytes:
    """The bytes of a small file through the host seam.

    Raises ``OSError`` when it cannot be read and ``ValueError`` when it is
    larger than *limit* bytes.
    """
    size = ctx.host.file_size(path)
    if size > limit:
        raise ValueError(f"{ctx.basename(path)} is larger than {limit} bytes")
    return ctx.host.read_range(path, 0, limit + 1)[: limit + 1]


def _read_text(ctx: LocateContext, path: str) -> str | Observation:
    try:
        data = read_small_file(ctx, path)
    except OSError as exc:
        return Observation("error", None, f"cannot read {path}: {exc.strerror or exc}")
    except ValueError as exc:
        return Observation("error", None, str(exc))
    if len(data) > MAX_VERSION_FILE_BYTES:
        return Observation("error", None, f"{path} grew past {MAX_VERSION_FILE_BYTES} bytes")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return Observation("error", None, f"{path} is not UTF-8")


def _first_file(ctx: LocateContext, paths: list[str]) -> str | None:
    for path in paths:
        if ctx.host.is_file(path):
            return path
    return None


# --- JetBrains ------------------------------------------------------------------------


def read_product_info(ctx: LocateContext, path: str, arg: str) -> Observation:
    """``version`` of the ``product-info.json`` of the IDE found at *path*.

    Looked for in ``<path>/Contents/Resources`` (a macOS bundle), then next to
    the launcher's folder (``<install>/bin/idea`` → ``<install>``), then next
    to the launcher itself.  A launcher reached through a symlink elsewhere
    (``/usr/local/bin/idea``) has no product-info.json beside it: declare the
    install folder's launcher as the location instead.
    """
    candidates = []
    if ctx.host.is_dir(path):
        candidates.append(ctx.join(path, *known_dirs.JETBRAINS_PRODUCT_INFO_IN_BUNDLE))
        candidates.append(ctx.join(path, known_dirs.JETBRAINS_PRODUCT_INFO))
    else:
        folder = ctx.parent(path)
        candidates.append(ctx.join(ctx.parent(folder), known_dirs.JETBRAINS_PRODUCT_INFO))
        candidates.append(ctx.join(folder, known_dirs.JETBRAINS_PRODUCT_INFO))
    found = _first_file(ctx, candidates)
    if found is None:
        return Observation("absent", None, f"no product-info.json at {' or '.join(candidates)}")
    text = _read_text(ctx, found)
    if isinstance(text, Observation):
        return text
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return Observation("error", None, f"{found} is not valid JSON")
    if not isinstance(data, dict):
        return Observation("error", None, f"{found} is not a JSON object")
    version = data.get("version")
    if not isinstance(version, str) or not version.strip():
        return Observation("unavailable", None, f"{found} has no version")
    return Observation("present", version.strip(), f"version in {found}")


# --- flatpak --------------------------------------------------------------------------


def _installation_of(ctx: LocateContext, path: str) -> tuple[str, str] | None:
    """``(installation, app_id)`` for a launcher at ``<installation>/exports/bin/<app_id>``."""
    app_id = ctx.basename(path)
    folder = path
    for expected in reversed(known_dirs.FLATPAK_EXPORT_LAUNCHER):
        folder = ctx.parent(folder)
        if ctx.basename(folder) != expected:
            return None
    installation = ctx.parent(folder)
    if not app_id or not installation:
        return None
    return installation, app_id


def read_flatpak(ctx: LocateContext, path: str, arg: str) -> Observation:
    """The newest release of the flatpak whose ``exports/bin`` launcher is *path*."""
    found = _installation_of(ctx, path)
    if found is None:
        return Observation(
            "unavailable", None, f"{path} is not a flatpak launcher (…/exports/bin/<app id>)"
        )
    installation, app_id = found
    deployment = ctx.join(
        installation, *(part.format(app_id=app_id) for part in known_dirs.FLATPAK_ACTIVE_DEPLOYMENT)
    )
    if not ctx.host.is_dir(deployment):
        return Observation("absent", None, f"no active deployment at {deployment}")
    candidates = [
        ctx.join(deployment, *(part.format(app_id=app_id) for part in parts))
        for parts in known_dirs.FLATPAK_METAINFO_FILES
    ]
    metainfo = _first_file(ctx, candidates)
    if metainfo is None:
        return Observation(
            "unavailable", None, f"the deployment at {deployment} ships no AppStream metainfo"
        )
    text = _read_text(ctx, metainfo)
    if isinstance(text, Observation):
        return text
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        return Observation("error", None, f"{metainfo} declares a DOCTYPE (refused)")
    try:
        root = ElementTree.fromstring(text)
    except (ElementTree.ParseError, ValueError, RecursionError):
        return Observation("error", None, f"{metainfo} is not well-formed XML")
    for release in root.iter("release"):
        version = release.get("version")
        if version and version.strip():
            return Observation("present", version.strip(), f"first release in {metainfo}")
    return Observation("unavailable", None, f"{metainfo} lists no release")


# --- snap -----------------------------------------------------------------------------


def _yaml_scalar(text: str, key: str) -> str | None:
    """The plain or quoted scalar of a top-level ``key:`` line (enough for snap.yaml)."""
    prefix = f"{key}:"
    for line in text.splitlines():
        if not line.startswith(prefix):
            continue
        value = line[len(prefix) :].strip()
        if value[:1] in ("'", '"'):
            quote = value[0]
            end = value.find(quote, 1)
            return value[1:end] if end > 0 else None
        value = value.split(" #", 1)[0].strip()
        return value or None
    return None


def read_snap(ctx: LocateContext, path: str, arg: str) -> Observation:
    """``version`` of the current revision of the snap whose launcher is *path*."""
    folder = ctx.parent(path)
    command = ctx.basename(path)
    if ctx.basename(folder) != known_dirs.SNAP_LAUNCHER_FOLDER or not command:
        return Observation("unavailable", None, f"{path} is not a snap launcher (…/bin/<snap>)")
    snap = command.split(".", 1)[0]
    meta = ctx.join(ctx.parent(folder), snap, *known_dirs.SNAP_YAML)
    if not ctx.host.is_file(meta):
        return Observation("absent", None, f"no {meta}")
    text = _read_text(ctx, meta)
    if isinstance(text, Observation):
        return text
    version = _yaml_scalar(text, "version")
    if version is None:
        return Observation("unavailable", None, f"{meta} has no version")
    return Observation("present", version, f"version in {meta}")


# --- pe_resource ----------------------------------------------------------------------


def read_pe_resource(ctx: LocateContext, path: str, arg: str) -> Observation:
    """``pe_resource``: the file version in the executable's ``VS_FIXEDFILEINFO``."""
    host = ctx.host
    try:
        size = host.file_size(path)
        version = pe_version.read_file_version(
            lambda offset, length: host.read_range(path, offset, length), size
        )
    except pe_version.PeNoFixedInfo:
        return Observation("unavailable", None, "no fixed file info")
    except pe_version.PeVersionError as exc:
        return Observation("error", None, f"unreadable PE file: {exc}")
    except OSError as exc:
        return Observation("error", None, f"cannot read file: {exc.strerror or exc}")
    if version is None:
        return Observation("unavailable", None, "no version resource")
    return Observation("present", version, "VS_FIXEDFILEINFO file version")
