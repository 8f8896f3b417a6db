"""The environment a stdio server's process starts with: a safe minimum of ours, then its own."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

__all__ = ["SAFE_ENV_NAMES", "child_environment"]

# What every stdio child may inherit from us; the server's own `env` comes on top.
SAFE_ENV_NAMES = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "TMPDIR",
    "TZ",
    "LANG",
    "LANGUAGE",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
)
_SAFE_PREFIXES = ("LC_", "XDG_")
_WINDOWS_ENV_NAMES = frozenset(
    name.upper()
    for name in (
        "ALLUSERSPROFILE",
        "APPDATA",
        "COMMONPROGRAMFILES",
        "COMMONPROGRAMFILES(X86)",
        "COMMONPROGRAMW6432",
        "COMPUTERNAME",
        "COMSPEC",
        "HOMEDRIVE",
        "HOMEPATH",
        "LOCALAPPDATA",
        "NUMBER_OF_PROCESSORS",
        "OS",
        "PATHEXT",
        "PROCESSOR_ARCHITECTURE",
        "PROGRAMDATA",
        "PROGRAMFILES",
        "PROGRAMFILES(X86)",
        "PROGRAMW6432",
        "PUBLIC",
        "SYSTEMDRIVE",
        "SYSTEMROOT",
        "TEMP",
        "TMP",
        "USERDOMAIN",
        "USERNAME",
        "USERPROFILE",
        "WINDIR",
    )
)


def child_environment(
    explicit: Mapping[str, str], parent: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of a stdio child: a safe minimum of ours, then its explicit ``env``."""
    source = os.environ if parent is None else parent
    env: dict[str, str] = {}
    for name, value in source.items():
        if value.startswith("()"):
            continue  # exported shell functions
        if (
            name in SAFE_ENV_NAMES
            or name.startswith(_SAFE_PREFIXES)
            or (sys.platform == "win32" and name.upper() in _WINDOWS_ENV_NAMES)
        ):
            env[name] = value
    env.update(explicit)
    return env
