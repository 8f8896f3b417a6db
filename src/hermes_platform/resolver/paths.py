"""Path text rules shared by the parser and the locators.

These functions work on strings in the syntax of the *evaluated* OS (which
need not be the OS we run on), so a win32 declaration can be checked and
located on Linux against a fake host.  They never touch the machine; the
few that need the environment or the file system take them as arguments.
"""

from __future__ import annotations

import ntpath
import posixpath
import re
from collections.abc import Callable, Mapping

__all__ = [
    "MAX_STAR_MATCHES",
    "expand_path",
    "is_absolute",
    "is_bare_name",
    "is_relative_inside",
    "join",
    "location_is_rooted",
    "natural_version_key",
    "split",
    "star_matches",
]

MAX_STAR_MATCHES = 256
_DRIVE_ROOT = re.compile(r"^[A-Za-z]:[\\/]")
_POSIX_VAR = re.compile(r"\$(?:\{([^}]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_WINDOWS_VAR = re.compile(r"%([^%]+)%|\$(?:\{([^}]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_VERSION_RUNS = re.compile(r"(\d+)")


def _segments(text: str) -> list[str]:
    return text.replace("\\", "/").split("/")


def location_is_rooted(path: str, os_name: str) -> bool:
    """True if *path* is acceptable as a declared location under *os_name*.

    Rooted means: absolute for that OS (``C:/`` or ``C:\\`` on win32, ``/``
    elsewhere) or starting with ``~``, ``%`` or ``$``; and never containing a
    ``..`` segment or a URL scheme.  UNC and device paths are not rooted on
    win32, so a presence check never reaches the network.
    """
    if not isinstance(path, str):
        return False
    if any(part == ".." for part in _segments(path)) or "://" in path:
        return False
    if path.startswith(("~", "%", "$")):
        return True
    if os_name == "win32":
        return bool(_DRIVE_ROOT.match(path))
    return path.startswith("/")


def _name_parts(value: object) -> list[str] | None:
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text or "://" in text:
        return None
    parts = text.replace("\\", "/").split("/")
    if any(part in ("", "..") for part in parts) or ":" in parts[0]:
        return None
    return parts


def is_bare_name(value: object) -> bool:
    """A single path component: no separators, ``..``, drive or URL."""
    parts = _name_parts(value)
    return parts is not None and len(parts) == 1


def is_relative_inside(value: object) -> bool:
    """A relative path that stays inside the folder it is joined to."""
    return _name_parts(value) is not None


def is_absolute(path: str, os_name: str) -> bool:
    """Absolute in the syntax of *os_name* (drive-rooted on win32)."""
    if os_name == "win32":
        return bool(_DRIVE_ROOT.match(path))
    return path.startswith("/")


def join(os_name: str, base: str, *parts: str) -> str:
    """Join path parts with the rules of *os_name*."""
    if os_name == "win32":
        return ntpath.join(base, *parts)
    return posixpath.join(base, *parts)


def split(os_name: str, path: str) -> tuple[str, str]:
    """``(folder, last name)`` of *path* by the rules of *os_name*; trailing separators ignored."""
    if os_name == "win32":
        trimmed = path.rstrip("\\/")
        return ntpath.split(trimmed) if trimmed else (path, "")
    trimmed = path.rstrip("/")
    return posixpath.split(trimmed) if trimmed else (path, "")


def expand_path(path: str, os_name: str, env: Mapping[str, str], home: str | None) -> str:
    """Expand ``~`` then environment variables, by the platform's rules.

    POSIX: ``$VAR`` and ``${VAR}``; ``%VAR%`` stays.  win32: ``%VAR%``,
    ``$VAR`` and ``${VAR}`` (names case-insensitive), ``~`` is the user
    profile.  Unset variables stay literal; nothing is resolved against the
    working directory.
    """
    if os_name == "win32":
        lookup = {k.upper(): v for k, v in env.items()}

        def win_var(match: re.Match[str]) -> str:
            name = match.group(1) or match.group(2) or match.group(3) or ""
            return lookup.get(name.upper(), match.group(0))

        if path == "~" or path.startswith(("~/", "~\\")):
            profile = lookup.get("USERPROFILE") or home
            if profile:
                path = profile + path[1:]
        return _WINDOWS_VAR.sub(win_var, path)

    def posix_var(match: re.Match[str]) -> str:
        name = match.group(1) if match.group(1) is not None else match.group(2)
        value = env.get(name) if name else None
        return value if value is not None else match.group(0)

    if (path == "~" or path.startswith("~/")) and home:
        path = home.rstrip("/") + path[1:] if path != "~" else home
    return _POSIX_VAR.sub(posix_var, path)


def natural_version_key(text: str) -> tuple[tuple[int, int, str], ...]:
    """Sort key comparing digit runs as integers; an integer ranks above text."""
    key: list[tuple[int, int, str]] = []
    for index, run in enumerate(_VERSION_RUNS.split(text)):
        if not run:
            continue
        if index % 2:
            key.append((1, int(run), ""))
        else:
            key.append((0, 0, run))
    return tuple(key)


def _star_pattern(segment: str, case_insensitive: bool) -> re.Pattern[str]:
    body = "[^/]*".join(re.escape(piece) for piece in segment.split("*"))
    return re.compile(body + r"\Z", re.IGNORECASE if case_insensitive else 0)


def star_matches(
    path: str,
    os_name: str,
    listdir: Callable[[str], list[str]],
    is_dir: Callable[[str], bool],
    exists: Callable[[str], bool],
) -> list[str]:
    """Every existing path matching *path*, where ``*`` matches within one segment.

    Only ``*`` is special (``?`` and ``[`` are literal); a star does not match
    names starting with a dot.  Results come newest first (descending natural
    version order), at most :data:`MAX_STAR_MATCHES`.
    """
    segments = _segments(path)
    if not segments or "*" not in path:
        return []
    sep = "/"
    # A leading empty segment means a POSIX root; keep it to rebuild "/...".
    prefixes = [segments[0] if segments[0] else ""]
    for depth, segment in enumerate(segments[1:], start=1):
        last = depth == len(segments) - 1
        following: list[str] = []
        for prefix in prefixes:
            parent = prefix or sep
            if "*" not in segment:
                following.append(prefix + sep + segment)
                continue
            try:
                names = listdir(parent)
            except OSError:
                continue
            pattern = _star_pattern(segment, os_name == "win32")
            for name in names:
                if name.startswith(".") and not segment.startswith("."):
                    continue
                if pattern.match(name):
                    candidate = prefix + sep + name
                    if last or is_dir(candidate):
                        following.append(candidate)
                if len(following) >= MAX_STAR_MATCHES:
                    break
        prefixes = following[:MAX_STAR_MATCHES]
        if not prefixes:
            return []
    found = [p for p in prefixes if exists(p)]
    return sorted(found, key=natural_version_key, reverse=True)
