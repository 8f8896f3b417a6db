"""The vocabulary of locating: location kinds, candidates and the locate context.

A :class:`LocationKind` is one registration: its name, the OS it is valid
under, the mapping key naming what to find, whether it needs ``file``, the
presence it yields and its locator.  The parser validates declarations
against the table of kinds and derives its messages from it, so adding a
kind is one registration and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from hermes_platform.host.seam import Host, current_host
from hermes_platform.resolver import known_dirs, paths

__all__ = [
    "PRESENCES",
    "AppLocation",
    "Candidate",
    "LocateContext",
    "LocationKind",
    "UninstallEntry",
]

PRESENCES = ("executable", "bundle")
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


@dataclass(frozen=True)
class LocationKind:
    """A kind of place an app can be found.

    ``locate(ctx, location)`` returns candidate paths in the order to try;
    the resolver tests each one's presence.  It must read the machine only
    through ``ctx`` (the host seam) and must not spawn or connect.
    """

    name: str
    os: str | None
    key: str
    presence: str
    locate: Locator = field(compare=True)
    needs_file: bool = False
    provider: str = "hermes_platform"
    description: str = ""
    resolution: str = "known_path"

    def __post_init__(self) -> None:
        if self.presence not in PRESENCES:
            raise ValueError(f"location kind {self.name!r}: presence must be one of {PRESENCES}")
        if not self.name or not self.name.replace("_", "").isalnum() or self.name == "path":
            raise ValueError(f"location kind name {self.name!r} must be a plain identifier")
