"""Installing an entry's code: clone, bootstrap, and the ``mcp_servers`` entry it becomes.

A failed clone or bootstrap leaves nothing half-installed: a previous install
is moved aside first and put back, the new folder is removed; :func:`installing` keeps the
previous install aside until the caller's own next step (recording it in ``config.yaml``)
succeeds too.  The bootstrap's
output goes to a log file (``$HERMES_HOME/logs/mcp-install-<name>.log``).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from hermes_core.catalog.manifest import INSTALL_DIR, Manifest
from hermes_core.config.loader import hermes_home

__all__ = [
    "InstallError",
    "install_code",
    "install_dir",
    "installing",
    "log_path",
    "server_entry",
]

_SHA = re.compile(r"[0-9a-fA-F]{40}")


class InstallError(Exception):
    """A clone or bootstrap step failed (nothing was left behind)."""


def install_dir(name: str) -> Path:
    """``$HERMES_HOME/mcp-installs/<name>``."""
    return hermes_home() / "mcp-installs" / name


def log_path(name: str) -> Path:
    return hermes_home() / "logs" / f"mcp-install-{name}.log"


def substitute(text: str, folder: Path) -> str:
    return text.replace(INSTALL_DIR, str(folder))


def _run(argv: list[str] | str, log: IO[str], *, cwd: Path, shell: bool = False) -> int:
    log.write(f"$ {argv if isinstance(argv, str) else ' '.join(argv)}\n")
    log.flush()
    env = {
        **os.environ,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ASKPASS": "true",
        "SSH_ASKPASS": "true",
        "INSTALL_DIR": str(cwd),
    }
    done = subprocess.run(
        argv,
        cwd=cwd,
        shell=shell,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        check=False,
    )
    log.write(f"(exit {done.returncode})\n")
    log.flush()
    return done.returncode


def _clone(manifest: Manifest, folder: Path, log: IO[str]) -> None:
    source = manifest.source
    assert source is not None
    ref = source.ref
    parent = folder.parent
    if ref is not None and _SHA.fullmatch(ref):
        steps = [
            ["git", "clone", "--quiet", "--no-checkout", "--", source.git, str(folder)],
            ["git", "-C", str(folder), "checkout", "--quiet", "--detach", ref],
        ]
    else:
        branch = ["--branch", ref] if ref else []
        steps = [
            ["git", "clone", "--quiet", "--depth", "1", *branch, "--", source.git, str(folder)]
        ]
    for argv in steps:
        code = _run(argv, log, cwd=parent)
        if code != 0:
            where = f"{source.git}" + (f" at {ref}" if ref else "")
            raise InstallError(f"git could not fetch {where} (exit {code})")


def install_code(
    manifest: Manifest, progress: Callable[[int, int, str], None]
) -> tuple[Path, Path]:
    """Clone and bootstrap into ``install_dir(name)``; returns (folder, log file).

    *progress(step, steps, what)* is called before each step.  Raises
    :class:`InstallError` (or ``KeyboardInterrupt``) with nothing left behind.
    """
    with installing(manifest, progress) as done:
        return done


@contextlib.contextmanager
def installing(
    manifest: Manifest, progress: Callable[[int, int, str], None]
) -> Iterator[tuple[Path, Path]]:
    """:func:`install_code` whose previous install is kept aside until the ``with`` block
    succeeds: when anything in the block fails (the ``config.yaml`` edit that records the
    install), the new folder is removed and the previous one put back."""
    folder, log_file, previous = _install(manifest, progress)
    try:
        yield folder, log_file
    except BaseException:
        with contextlib.suppress(OSError):
            shutil.rmtree(folder)
        if previous is not None:
            os.replace(previous, folder)
        raise
    if previous is not None:
        shutil.rmtree(previous, ignore_errors=True)


def _install(
    manifest: Manifest, progress: Callable[[int, int, str], None]
) -> tuple[Path, Path, Path | None]:
    """Clone and bootstrap; returns (folder, log file, the previous install moved aside)."""
    folder = install_dir(manifest.name)
    log_file = log_path(manifest.name)
    folder.parent.mkdir(parents=True, exist_ok=True)
    log_file.parent.mkdir(parents=True, exist_ok=True)
    previous = folder.with_name(f".{manifest.name}.previous")
    if previous.exists():
        shutil.rmtree(previous)
    moved = False
    if folder.exists():
        os.replace(folder, previous)
        moved = True
    commands = [substitute(c, folder) for c in manifest.install.bootstrap]
    steps = len(commands) + (1 if manifest.source is not None else 0)
    try:
        with open(log_file, "w", encoding="utf-8") as log:
            step = 0
            if manifest.source is not None:
                step += 1
                ref = f" ({manifest.source.ref})" if manifest.source.ref else ""
                progress(step, steps, f"git clone {manifest.source.git}{ref}")
                _clone(manifest, folder, log)
            else:
                folder.mkdir()
            for command in commands:
                step += 1
                progress(step, steps, command)
                code = _run(command, log, cwd=folder, shell=True)
                if code != 0:
                    raise InstallError(
                        f"bootstrap step {step - (steps - len(commands))} "
                        f"failed (exit {code}): {command}"
                    )
    except BaseException:
        with contextlib.suppress(OSError):
            shutil.rmtree(folder)
        if moved:
            os.replace(previous, folder)
        raise
    return folder, log_file, previous if moved else None


def server_entry(manifest: Manifest, folder: Path | None) -> dict[str, object]:
    """The ``mcp_servers.<name>`` entry (``${INSTALL_DIR}`` replaced, ``${VAR}`` kept)."""

    def sub(text: str) -> str:
        return substitute(text, folder) if folder is not None else text

    transport = manifest.transport
    entry: dict[str, object] = {}
    if transport.command is not None:
        entry["command"] = sub(transport.command)
        if transport.args:
            entry["args"] = [sub(a) for a in transport.args]
        if transport.env:
            entry["env"] = {k: sub(v) for k, v in transport.env.items()}
    elif transport.plugin is not None:
        # Selected by name; its settings under its name (config.yaml moves them to the key the
        # transport reads them from).
        entry["transport"] = transport.plugin
        if transport.settings:
            entry[transport.plugin] = {
                k: sub(v) if isinstance(v, str) else v for k, v in transport.settings.items()
            }
    else:
        entry["url"] = sub(transport.url or "")
        if transport.headers:
            entry["headers"] = {k: sub(v) for k, v in transport.headers.items()}
    if manifest.auth.oauth is not None:
        entry["auth"] = "oauth"
        if manifest.auth.oauth:
            entry["oauth"] = dict(manifest.auth.oauth)
    if manifest.auth.provider is not None:
        entry["auth"] = manifest.auth.provider
        if manifest.auth.settings:
            entry[manifest.auth.provider] = dict(manifest.auth.settings)
    return entry
