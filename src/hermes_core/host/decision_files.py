"""The files whose contents decide what a running host does, and a cheap stamp of each.

``config.yaml``, the ``.env`` beside it in ``$HERMES_HOME`` and the administrator's policy
files (``$HERMES_POLICY``, ``/etc/hermes/policy.yaml``).  A stamp is the file's modification
time, size and inode (``None``: missing or unreadable): one ``stat``, so a host can compare
them before every call (:mod:`hermes_core.host.config_watch`).  ``trust.db`` has a better signal of
its own (SQLite's ``data_version``, :meth:`TrustStore.changed`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from hermes_core.config.loader import config_path, hermes_home
from hermes_core.config.policy import SYSTEM_POLICY

__all__ = ["Stamp", "decision_files", "policy_files", "stamp_of", "stamps_of"]

Stamp = tuple[int, int, int] | None


def policy_files(env: Mapping[str, str] | None = None) -> list[Path]:
    """The administrator's policy files: ``$HERMES_POLICY`` (when set) and
    ``/etc/hermes/policy.yaml`` (see :mod:`hermes_core.config.policy`)."""
    environ = os.environ if env is None else env
    named = environ.get("HERMES_POLICY", "").strip()
    found = [Path(named).expanduser()] if named else []
    return found if SYSTEM_POLICY in found else [*found, SYSTEM_POLICY]


def decision_files(
    config: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
) -> list[Path]:
    """*config* (default ``$HERMES_HOME/config.yaml``), ``$HERMES_HOME/.env`` and the policy
    files."""
    target = Path(config) if config is not None else config_path(env)
    return [target, hermes_home(env) / ".env", *policy_files(env)]


def stamp_of(path: str | os.PathLike[str]) -> Stamp:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size, info.st_ino)


def stamps_of(paths: Iterable[Path]) -> dict[Path, Stamp]:
    return {path: stamp_of(str(path)) for path in paths}
