"""The ``hermes.plugins`` entry points, remembered while the installed distributions are unchanged.

Finding the entry points means importing ``importlib_metadata`` (with ``email``, ``zipp`` and
their dependencies, about 50 modules) and reading every installed distribution's
``entry_points.txt`` and the matching ones' ``METADATA``: more than any other step of
``hermes apps check`` or ``hermes plugins list``.  So the CLI's manager keeps what a scan found
in ``$HERMES_HOME/cache/entry-points.json`` under a digest of everything the scan reads:

* this Hermes version and every ``sys.path`` entry (made absolute), in order;
* for a folder on ``sys.path``, the name, modification time, size and inode of every
  ``*.dist-info``/``*.egg-info`` in it and of the ``entry_points.txt``, ``METADATA`` and
  ``PKG-INFO`` inside (installing, upgrading or removing a distribution adds, replaces or
  removes such a folder; editing one of those files in place changes its time and size); for
  a zip file, its own time, size and inode.

Every difference is a miss: the entry points are scanned again with ``importlib_metadata`` and
the record rewritten.  Nothing is remembered when a ``sys.meta_path`` finder other than the
standard path finder can provide distributions (their state cannot be stamped), and in strict
mode (``HERMES_STRICT_PLUGINS=1``), which exists to check the plugins.  A missing, unreadable,
symlinked or malformed record is a miss; a record is only ever a copy of what a scan returned.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import importlib.machinery
import json
import os
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from hermes_core import __version__
from hermes_core.json_records import read_record, write_record

__all__ = [
    "GROUP",
    "PluginEntryPoint",
    "cache_file",
    "hermes_entry_points",
    "installed_state",
    "scan",
]

GROUP = "hermes.plugins"
FORMAT = 1
_MAX_BYTES = 1024 * 1024
# importlib_metadata.EntryPoint.pattern: ``module[:attr.attr][ [extras]]``.
_PATTERN = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")
_METADATA_SUFFIXES = ("dist-info", "egg-info")
_METADATA_FILES = ("entry_points.txt", "METADATA", "PKG-INFO")


@dataclass(frozen=True)
class PluginEntryPoint:
    """One ``hermes.plugins`` entry point and the distribution that provides it."""

    name: str
    value: str
    dist_name: str | None
    dist_version: str | None
    dist_path: str | None
    """The distribution's metadata folder (``*.dist-info``), when it has one."""

    def load(self) -> object:
        """The object the entry point names, as ``importlib_metadata.EntryPoint.load`` finds it."""
        match = _PATTERN.match(self.value)
        if match is None:  # let importlib_metadata raise its own error for a bad reference
            import importlib_metadata

            return importlib_metadata.EntryPoint(self.name, self.value, GROUP).load()
        module = importlib.import_module(match.group("module"))
        attrs = filter(None, (match.group("attr") or "").split("."))
        return functools.reduce(getattr, attrs, module)

    def row(self) -> list[str | None]:
        return [self.name, self.value, self.dist_name, self.dist_version, self.dist_path]


def scan() -> list[PluginEntryPoint]:
    """The entry points as ``importlib_metadata`` finds them now (in its order)."""
    import importlib_metadata

    found = []
    for entry in importlib_metadata.entry_points(group=GROUP):
        dist = entry.dist
        path = getattr(dist, "_path", None)  # the dist-info folder of a PathDistribution
        found.append(
            PluginEntryPoint(
                entry.name,
                entry.value,
                dist.name if dist is not None else None,
                dist.version if dist is not None else None,
                str(path) if path is not None else None,
            )
        )
    return found


def _stamp(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size, st.st_ino]


def installed_state() -> str | None:
    """A digest of everything :func:`scan` reads (see the module docstring); None when
    distributions may come from somewhere that cannot be stamped."""
    for finder in sys.meta_path:
        if finder is importlib.machinery.PathFinder:
            continue
        if getattr(finder, "find_distributions", None) is not None:
            return None
    state: list[object] = [__version__, FORMAT]
    for entry in sys.path:
        root = os.path.abspath(entry or ".")
        try:
            st = os.stat(root)
        except OSError:
            state.append([entry, root, None])
            continue
        if not stat.S_ISDIR(st.st_mode):  # a zip file
            state.append([entry, root, st.st_mtime_ns, st.st_size, st.st_ino])
            continue
        # A folder's own time is left out: it changes with every module and __pycache__
        # written there; the metadata folders it holds are listed by name instead.
        item: list[object] = [entry, root]
        try:
            names = sorted(os.listdir(root))
        except OSError:
            item.append(None)
            names = []
        for name in names:
            if not name.lower().endswith(_METADATA_SUFFIXES):
                continue
            folder = os.path.join(root, name)
            files = [_stamp(os.path.join(folder, leaf)) for leaf in _METADATA_FILES]
            item.append([name, _stamp(folder), *files])
        state.append(item)
    return hashlib.sha256(json.dumps(state).encode()).hexdigest()


def cache_file(home: Path) -> Path:
    return home / "cache" / "entry-points.json"


def _read(path: Path, expected: str) -> list[PluginEntryPoint] | None:
    data = read_record(
        path, format=FORMAT, key_field="state", expected=expected, max_bytes=_MAX_BYTES
    )
    if data is None:
        return None
    rows = data.get("entry_points")
    if not isinstance(rows, list):
        return None
    found = []
    for row in rows:
        if not (
            isinstance(row, list)
            and len(row) == 5
            and isinstance(row[0], str)
            and isinstance(row[1], str)
            and all(v is None or isinstance(v, str) for v in row[2:])
        ):
            return None
        found.append(PluginEntryPoint(*row))
    return found


def hermes_entry_points(home: Path | None, *, strict: bool = False) -> list[PluginEntryPoint]:
    """The entry points: from ``home``'s record when nothing installed changed since it was
    written, else scanned (and recorded).  *home* None or *strict*: always scanned."""
    if home is None or strict:
        return scan()
    expected = installed_state()  # before the scan: a change during it is a miss next time
    if expected is None:
        return scan()
    path = cache_file(home)
    found = _read(path, expected)
    if found is not None:
        return found
    found = scan()
    payload = {"format": FORMAT, "state": expected, "entry_points": [e.row() for e in found]}
    with contextlib.suppress(OSError):
        write_record(path, payload)
    return found
