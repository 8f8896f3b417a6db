"""The vocabulary of locating: location kinds, candidates and the locate context.

A :class:`LocationKind` is one registration: its name, the OS (or OSes) it
is valid under, the mapping key naming what to find, whether it needs
``file``, the presence it yields (one for every OS, or one per OS) and its
locator.  The parser validates declarations
against the table of kinds and derives its messages from it, so adding a
kind is one registration and nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from hermes_platform.host.seam import Host, current_host
from hermes_platform.resolver import known_dirs, paths

__all__ = [
    "OS_KEYS",
    "PRESENCES",
    "AppLocation",
    "Candidate",
    "LocateContext",
    "LocationKind",
    "UninstallEntry",
    "served_oses",
]

OS_KEYS = ("win32", "darwin", "linux")
PRESENCES = ("executable", "bundle")
_PLAIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_MAX_UNINSTALL_SUBKEYS = 4096


class AppLocation(NamedTuple):
    """One declared location: ``("path", "/opt/x/bin/x", "")`` or a kind record.

    Compares equal to the plain tuple ``(kind, value, file)``.
    """

    kind: str
    value: str
    file: str = ""


@dataclass(frozen=True)
class Candidate:
    """A place looked at: the path, the label of who proposed it, and whether it is there."""

    value: str
    source: str
    present: bool
    location_index: int = 0


@dataclass(frozen=True)
class UninstallEntry:
    """One Windows uninstall registry entry (values as read, ``""`` when absent)."""

    key: str
    display_name: str
    display_version: str | None
    install_location: str


class LocateContext:
    """What a locator may use: the host seam, the evaluated OS and path helpers.

    ``path_override`` replaces ``PATH`` for the ``command`` search (``""``
    searches nothing; ``None`` means the host's own ``PATH``);
    ``pathext_override`` likewise replaces ``PATHEXT`` on win32, without
    touching the environment.
    """

    def __init__(
        self,
        os_name: str,
        host: Host | None = None,
        *,
        path_override: str | None = None,
        pathext_override: str | None = None,
    ) -> None:
        self.os = os_name
        self.host = host if host is not None else current_host()
        self.path_override = path_override
        self.pathext_override = pathext_override
        self._uninstall: tuple[UninstallEntry, ...] | None = None

    # -- path text ---------------------------------------------------------
    @property
    def env(self) -> Mapping[str, str]:
        return self.host.env()

    def expand(self, path: str) -> str:
        """``~`` and environment variables, by the evaluated OS's rules."""
        try:
            home: str | None = self.host.home()
        except (OSError, KeyError, RuntimeError):
            home = None
        return paths.expand_path(path, self.os, self.env, home)

    def is_absolute(self, path: str) -> bool:
        return paths.is_absolute(path, self.os)

    def join(self, base: str, *parts: str) -> str:
        return paths.join(self.os, base, *parts)

    def parent(self, path: str) -> str:
        """The folder holding *path* (``/opt/x`` for ``/opt/x/bin``), by the evaluated OS."""
        return paths.split(self.os, path)[0]

    def basename(self, path: str) -> str:
        """The last name of *path* (``bin`` for ``/opt/x/bin/``)."""
        return paths.split(self.os, path)[1]

    def star(self, path: str) -> list[str]:
        """Existing matches of a path with ``*`` segments, newest version first."""
        return paths.star_matches(
            path, self.os, self.host.listdir, self.host.is_dir, self.host.exists
        )

    def in_dirs(self, dirs: Iterable[str], *names: str) -> list[str]:
        """Each directory of a :mod:`known_dirs` table, expanded, joined with *names*."""
        return [self.join(self.expand(d), *names) for d in dirs]

    # -- presence ----------------------------------------------------------
    def is_present(self, path: str, presence: str) -> bool:
        """The presence test: a regular file, or a folder holding ``Contents/Info.plist``."""
        if not self.is_absolute(path):
            return False
        if presence == "bundle":
            return self.host.is_dir(path) and self.host.is_file(
                self.join(path, "Contents", "Info.plist")
            )
        return self.host.is_file(path)

    # -- searches ----------------------------------------------------------
    def which(self, name: str) -> str | None:
        """The first executable *name* on ``PATH``; never the working directory."""
        raw = self.path_override
        if raw is None:
            raw = self.env.get("PATH", "")
        separator = ";" if self.os == "win32" else ":"
        suffixes = [""]
        if self.os == "win32":
            pathext = self.pathext_override
            if pathext is None:
                pathext = self.env.get("PATHEXT", ".COM;.EXE;.BAT;.CMD")
            exts = [e for e in pathext.split(";") if e]
            if not any(name.lower().endswith(e.lower()) for e in exts):
                suffixes = exts
        for directory in raw.split(separator):
            directory = directory.strip().strip('"')
            # Relative entries ("", ".", "bin") would search the working directory.
            if not directory or not self.is_absolute(directory):
                continue
            for suffix in suffixes:
                candidate = self.join(directory, name + suffix)
                if self.os == "win32":
                    if self.host.is_file(candidate):
                        return candidate
                elif self.host.is_executable(candidate):
                    return candidate
        return None

    def uninstall_entries(self) -> tuple[UninstallEntry, ...]:
        """Every Windows uninstall entry, in enumeration order (empty off win32)."""
        if self._uninstall is None:
            self._uninstall = tuple(self._read_uninstall()) if self.os == "win32" else ()
        return self._uninstall

    def _read_uninstall(self) -> Iterable[UninstallEntry]:
        for root in known_dirs.UNINSTALL_REGISTRY_ROOTS:
            try:
                subkeys = self.host.registry_subkeys(root)[:_MAX_UNINSTALL_SUBKEYS]
            except OSError:
                continue  # an unopenable root is skipped
            for sub in subkeys:
                key = f"{root}\\{sub}"
                name = self.host.registry_value(key, "DisplayName")
                version = self.host.registry_value(key, "DisplayVersion")
                location = self.host.registry_value(key, "InstallLocation")
                yield UninstallEntry(
                    key=key,
                    display_name=name if isinstance(name, str) else "",
                    display_version=str(version) if isinstance(version, (str, int)) else None,
                    install_location=location if isinstance(location, str) else "",
                )


Locator = Callable[[LocateContext, AppLocation], Iterable[str]]


def served_oses(what: str, os: object) -> tuple[str, ...] | None:
    """Check a registration's ``os`` (``None``, one OS key, or several); ``None`` means any OS.

    Raises ``ValueError`` naming *what* (``"location kind 'x'"``) for anything else.
    """
    if os is None:
        return None
    if isinstance(os, str):
        items: tuple[object, ...] = (os,)
    elif isinstance(os, (tuple, list, frozenset, set)):
        items = tuple(sorted(os, key=str)) if isinstance(os, (set, frozenset)) else tuple(os)
    else:
        raise ValueError(
            f"{what}: os must be None (any OS), one of {OS_KEYS!r} or a tuple of them, "
            f"not {type(os).__name__}"
        )
    if not items:
        raise ValueError(f"{what}: os must name at least one of {OS_KEYS!r} (or be None)")
    for item in items:
        if item not in OS_KEYS:
            raise ValueError(f"{what}: os {item!r} is not one of {OS_KEYS!r}")
    if len(set(items)) != len(items):
        raise ValueError(f"{what}: os names an OS twice: {items!r}")
    return tuple(str(item) for item in items)


@dataclass(frozen=True)
class LocationKind:
    """A kind of place an app can be found.

    ``locate(ctx, location)`` returns candidate paths in the order to try;
    the resolver tests each one's presence.  It must read the machine only
    through ``ctx`` (the host seam) and must not spawn or connect.

    ``os`` is ``None`` (valid under every OS block), one OS key
    (``"linux"``) or a tuple of them (``("darwin", "linux")``).  ``presence``
    is the presence the kind yields: one value for every OS it serves, or a
    mapping from each OS it serves to its presence, so one kind name can find
    a macOS ``.app`` bundle and a Linux executable::

        LocationKind("vendor_app", ("darwin", "linux"), "name",
                     {"darwin": "bundle", "linux": "executable"}, locate)

    Both are checked when the object is built; a bad value raises
    ``ValueError`` naming the kind (and Hermes reports it against the
    plugin that returned it).
    """

    name: str
    os: str | tuple[str, ...] | None
    key: str
    presence: str | Mapping[str, str] = field(hash=False)
    locate: Locator = field(compare=True)
    needs_file: bool = False
    provider: str = "hermes_platform"
    description: str = ""
    resolution: str = "known_path"

    def __post_init__(self) -> None:
        if (
            not isinstance(self.name, str)
            or not self.name
            or not self.name.replace("_", "").isalnum()
            or self.name == "path"
        ):
            raise ValueError(f"location kind name {self.name!r} must be a plain identifier")
        what = f"location kind {self.name!r}"
        oses = served_oses(what, self.os)
        if isinstance(self.os, (list, set, frozenset)):
            object.__setattr__(self, "os", oses)
        if (
            not isinstance(self.key, str)
            or not _PLAIN_NAME.fullmatch(self.key)
            or self.key in ("kind", "file")
        ):
            raise ValueError(
                f"{what}: key {self.key!r} must be a plain identifier other than 'kind' and 'file'"
            )
        if isinstance(self.presence, Mapping):
            presences = dict(self.presence)
            for os_key, presence in presences.items():
                if os_key not in (oses or OS_KEYS):
                    raise ValueError(
                        f"{what}: presence names {os_key!r}, which the kind does not serve "
                        f"(os is {self.os!r})"
                    )
                if presence not in PRESENCES:
                    raise ValueError(
                        f"{what}: presence for {os_key!r} must be one of {PRESENCES}, "
                        f"not {presence!r}"
                    )
            missing = [os_key for os_key in (oses or OS_KEYS) if os_key not in presences]
            if missing:
                raise ValueError(f"{what}: presence has no entry for {', '.join(missing)}")
            # A private plain copy: later edits to the caller's mapping change nothing,
            # and copy/deepcopy/asdict keep working.
            object.__setattr__(self, "presence", presences)
        elif self.presence not in PRESENCES:
            raise ValueError(
                f"{what}: presence must be one of {PRESENCES} (or a mapping from OS to one "
                f"of them), not {self.presence!r}"
            )

    @property
    def oses(self) -> tuple[str, ...] | None:
        """The OS keys this kind is valid under; ``None`` means every OS."""
        return served_oses(f"location kind {self.name!r}", self.os)

    def serves(self, os_key: str) -> bool:
        """True when the kind may be used under ``app.<os_key>``."""
        oses = self.oses
        return oses is None or os_key in oses

    def presence_for(self, os_key: str) -> str:
        """The presence this kind yields under ``app.<os_key>``."""
        if isinstance(self.presence, Mapping):
            return self.presence.get(os_key, "")
        return self.presence
