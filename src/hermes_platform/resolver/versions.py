"""Version sources: how an app's version is read once it has been found.

Each source is a :class:`VersionSource` registration in :data:`VERSION_KINDS`;
``app.<os>.version.kind`` names one.  The built-ins (``none``, ``plist``,
``pe_resource``, ``uninstall_registry``, and the Linux-friendly
``jetbrains_product_info``, ``flatpak`` and ``snap`` of
:mod:`~hermes_platform.resolver.file_versions`) are registered here and again
through ``hermes_core``'s ``version_source`` hook, exactly as a plugin's
source is.  Readers work on bytes through the host seam, so every source is
testable on any OS.  A reader should not raise; :func:`read_version` turns
anything it raises or returns wrongly into an ``error`` :class:`Observation`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from hermes_platform.registration import RegistrationTable
from hermes_platform.resolver.locating import LocateContext, served_oses
from hermes_platform.resolver.observation import NOT_CHECKED, OBSERVATION_STATES, Observation

__all__ = [
    "BUILTIN_VERSION_SOURCES",
    "OBSERVATION_STATES",
    "VERSION_KINDS",
    "Observation",
    "VersionReader",
    "VersionSource",
    "read_version",
]

_MAX_PLIST_BYTES = 4 * 1024 * 1024
_MAX_VERSION_CHARS = 128
_PLAIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


class VersionReader(Protocol):
    """Reads the version of one found copy of an app.

    Called as ``read(ctx, path, arg)``:

    - ``ctx`` (:class:`~hermes_platform.resolver.locating.LocateContext`): the
      evaluated OS (``ctx.os``), path helpers (``ctx.join``, ``ctx.parent``,
      ``ctx.basename``, ``ctx.expand``) and the host seam (``ctx.host``:
      ``is_file``, ``file_size``, ``read_range`` …).  Read the machine only
      through it: no ``open``, no subprocess, no network.
    - ``path``: the present copy the locator found (a file, or a ``.app``
      folder for ``presence: bundle``), in the evaluated OS's syntax.
    - ``arg``: the text of the version mapping's argument key
      (``VersionSource.arg_key``, ``display_name_prefix`` unless the source
      says otherwise), ``""`` when absent.

    Returns an :class:`Observation`: ``present`` with the version text,
    ``absent``, ``unavailable`` (found, but no version stated) or ``error``
    with a short detail a person reads in ``hermes apps check --explain``.
    """

    def __call__(self, ctx: LocateContext, path: str, arg: str, /) -> Observation: ...


@dataclass(frozen=True)
class VersionSource:
    """A way to read a found app's version (``app.<os>.version.kind: <name>``).

    ``os`` is ``None`` (valid under every OS block), one OS key or a tuple of
    them.  ``read`` is a :class:`VersionReader`.  ``arg_key`` names the one
    extra key the version mapping may hold (its text reaches ``read`` as
    ``arg``); ``needs_arg`` makes it required.  Every other key in the mapping
    is a declaration error.  Bad values raise ``ValueError`` when the object
    is built, naming the source.
    """

    name: str
    os: str | tuple[str, ...] | None
    read: VersionReader = field(compare=True)
    needs_arg: bool = False
    provider: str = "hermes_platform"
    description: str = ""
    arg_key: str = "display_name_prefix"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _PLAIN_NAME.fullmatch(self.name):
            raise ValueError(
                f"version source name {self.name!r} must be a plain identifier "
                "(a letter, then letters, digits or '_')"
            )
        what = f"version source {self.name!r}"
        oses = served_oses(what, self.os)
        if isinstance(self.os, (list, set, frozenset)):
            object.__setattr__(self, "os", oses)
        if not callable(self.read):
            raise TypeError(f"{what}: read must be callable, not {type(self.read).__name__}")
        if not isinstance(self.needs_arg, bool):
            raise ValueError(f"{what}: needs_arg must be True or False")
        if (
            not isinstance(self.arg_key, str)
            or not _PLAIN_NAME.fullmatch(self.arg_key)
            or self.arg_key == "kind"
        ):
            raise ValueError(f"{what}: arg_key {self.arg_key!r} must be a plain identifier")

    @property
    def oses(self) -> tuple[str, ...] | None:
        """The OS keys this source is valid under; ``None`` means every OS."""
        return served_oses(f"version source {self.name!r}", self.os)

    def serves(self, os_key: str) -> bool:
        """True when ``app.<os_key>.version.kind`` may name this source."""
        oses = self.oses
        return oses is None or os_key in oses


def _read_none(ctx: LocateContext, path: str, arg: str) -> Observation:
    return NOT_CHECKED


# The readers' parsers (plistlib, xml, the PE walker) are imported when a version is read, not
# when the table is built: the host imports this module through the declarations and reads no
# version unless a declaration asks.  The readers of files an app ships live in
# :mod:`~hermes_platform.resolver.file_versions`, which a :class:`_FileReader` imports on its
# first read.


@dataclass(frozen=True)
class _FileReader:
    """The :class:`VersionReader` *name* of :mod:`~hermes_platform.resolver.file_versions`,
    that module imported on the first read (listing and checking the sources leave it alone)."""

    name: str

    def __call__(self, ctx: LocateContext, path: str, arg: str, /) -> Observation:
        from hermes_platform.resolver import file_versions  # on the first read only

        reader: VersionReader = getattr(file_versions, self.name)
        return reader(ctx, path, arg)


def _read_plist(ctx: LocateContext, path: str, arg: str) -> Observation:
    import plistlib

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


def _read_uninstall_registry(ctx: LocateContext, path: str, arg: str) -> Observation:
    if ctx.os != "win32":
        return Observation("unavailable", None, "uninstall_registry needs Windows")
    for entry in ctx.uninstall_entries():
        if entry.display_name.startswith(arg):
            if entry.display_version in (None, ""):
                return Observation("unavailable", None, "entry has no DisplayVersion")
            return Observation("present", entry.display_version, f"DisplayVersion of {entry.key}")
    return Observation("absent", None, "no uninstall entry")


BUILTIN_VERSION_SOURCES: tuple[VersionSource, ...] = (
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
        _FileReader("read_pe_resource"),
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
    VersionSource(
        "jetbrains_product_info",
        None,
        _FileReader("read_product_info"),
        description="version in the product-info.json of a JetBrains IDE "
        "(install folder, or Contents/Resources of a .app)",
    ),
    VersionSource(
        "flatpak",
        "linux",
        _FileReader("read_flatpak"),
        description="first release in the AppStream metainfo of the active flatpak "
        "deployment behind an exports/bin launcher",
    ),
    VersionSource(
        "snap",
        "linux",
        _FileReader("read_snap"),
        description="version in meta/snap.yaml of the current revision behind a snap launcher",
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
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a reader must never break availability
        return Observation("error", None, type(exc).__name__)
    if not isinstance(observed, Observation) or observed.state not in OBSERVATION_STATES:
        return Observation("error", None, "version reader returned a wrong type")
    if observed.state == "present" and not isinstance(observed.value, str):
        return Observation("error", None, "version reader returned a present state without text")
    if observed.value is not None and (
        len(observed.value) > _MAX_VERSION_CHARS or not observed.value.isprintable()
    ):
        # File contents are shown to people: no control characters, no screenfuls.
        return Observation("error", None, "the version text is too long or not printable")
    if not isinstance(observed.detail, str) or not observed.detail.isprintable():
        return Observation(observed.state, observed.value, "")
    return observed
