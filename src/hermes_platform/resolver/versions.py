"""Version sources: how an app's version is read once it has been found.

Each source is a :class:`VersionSource` registration in :data:`VERSION_KINDS`
(``none``, ``plist``, ``pe_resource``, ``uninstall_registry``).  Readers work
on bytes through the host seam, so every source is testable on any OS.  A
reader never raises: every failure becomes an :class:`Observation`.
"""

from __future__ import annotations

import plistlib
from collections.abc import Callable
from dataclasses import dataclass

from hermes_platform.registration import RegistrationTable
from hermes_platform.resolver import pe_version
from hermes_platform.resolver.locating import LocateContext

__all__ = [
    "OBSERVATION_STATES",
    "VERSION_KINDS",
    "Observation",
    "VersionSource",
    "read_version",
]

OBSERVATION_STATES = ("not_checked", "present", "absent", "unavailable", "error")
_MAX_PLIST_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class Observation:
    """The outcome of one check: a state, an optional value, a human-only detail."""

    state: str
    value: str | None = None
    detail: str = ""


NOT_CHECKED = Observation("not_checked")

VersionReader = Callable[[LocateContext, str, str], Observation]


@dataclass(frozen=True)
class VersionSource:
    """A way to read a found app's version.

    ``read(ctx, path, arg)`` gets the located path and the declaration's
    ``version.display_name_prefix`` (``arg``); ``os`` limits the kind to one
    OS block (``None``: any); ``needs_arg`` makes the prefix required.
    """

    name: str
    os: str | None
    read: VersionReader
    needs_arg: bool = False
    provider: str = "hermes_platform"
    description: str = ""


def _read_none(ctx: LocateContext, path: str, arg: str) -> Observation:
    return NOT_CHECKED


def _read_plist(ctx: LocateContext, path: str, arg: str) -> Observation:
    plist_path = ctx.join(path, "Contents", "Info.plist")
    try:
        size = ctx.host.file_size(plist_path)
        if size > _MAX_PLIST_BYTES:
            return Observation("error", None, f"Info.plist is larger than {_MAX_PLIST_BYTES} bytes")
        data = plistlib.loads(ctx.host.read_range(plist_path, 0, _MAX_PLIST_BYTES))
    except OSError as exc:
        return Observation("error", None, f"cannot read Info.plist: {exc.strerror or exc}")
    except Exception as exc:  # noqa: BLE001 - plistlib raises several types for bad input
        return Observation("error", None, f"invalid Info.plist ({type(exc).__name__})")
    if not isinstance(data, dict):
        return Observation("error", None, "Info.plist is not a dictionary")
    for key in ("CFBundleShortVersionString", "CFBundleVersion"):
        value = data.get(key)
        if value not in (None, ""):
            return Observation("present", str(value), key)
    return Observation("unavailable", None, "no version key in Info.plist")


def _read_pe_resource(ctx: LocateContext, path: str, arg: str) -> Observation:
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


def _read_uninstall_registry(ctx: LocateContext, path: str, arg: str) -> Observation:
    if ctx.os != "win32":
        return Observation("unavailable", None, "uninstall_registry needs Windows")
    for entry in ctx.uninstall_entries():
        if entry.display_name.startswith(arg):
            if entry.display_version in (None, ""):
                return Observation("unavailable", None, "entry has no DisplayVersion")
            return Observation("present", entry.display_version, f"DisplayVersion of {entry.key}")
    return Observation("absent", None, "no uninstall entry")


BUILTIN_VERSION_SOURCES = (
    VersionSource("none", None, _read_none, description="no version is read"),
    VersionSource(
        "plist",
        "darwin",
        _read_plist,
        description="CFBundleShortVersionString (else CFBundleVersion) of Contents/Info.plist",
    ),
    VersionSource(
        "pe_resource",
        "win32",
        _read_pe_resource,
        description="file version of the executable's VS_FIXEDFILEINFO",
    ),
    VersionSource(
        "uninstall_registry",
        "win32",
        _read_uninstall_registry,
        needs_arg=True,
        description="DisplayVersion of the first uninstall entry whose DisplayName "
        "starts with display_name_prefix",
    ),
)

VERSION_KINDS: RegistrationTable[VersionSource] = RegistrationTable(
    "version source", VersionSource, BUILTIN_VERSION_SOURCES
)


def read_version(ctx: LocateContext, kind: str, path: str, arg: str) -> Observation:
    """Read the version of the copy at *path*; never raises."""
    source = VERSION_KINDS.get(kind)
    if source is None:
        return Observation("unavailable", None, f"version kind {kind!r} is not registered")
    try:
        observed = source.read(ctx, path, arg)
    except Exception as exc:  # noqa: BLE001 - a reader must never break availability
        return Observation("error", None, type(exc).__name__)
    if not isinstance(observed, Observation):
        return Observation("error", None, "version reader returned a wrong type")
    return observed
