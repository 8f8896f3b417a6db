"""How this Hermes was installed, and the command that upgrades it where it runs.

Read from the running environment, never guessed from what is on PATH:

- an editable install (``direct_url.json`` says so): a source checkout, updated there (git);
- ``pipx_metadata.json`` in the environment: pipx (``pipx upgrade --include-injected``, the
  plugins injected with it);
- ``uv-receipt.toml`` in the environment: a uv tool (``uv tool upgrade``);
- an environment made by uv (``uv =`` in ``pyvenv.cfg``) without pip: ``uv pip install
  --python THIS --upgrade``;
- else pip of this interpreter (``python -m pip install --upgrade``).

What is upgraded: ``hermes-core`` and the first-party plugins installed beside it
(:data:`FIRST_PARTY`).
"""

from __future__ import annotations

import enum
import importlib.metadata
import importlib.util
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CORE",
    "FIRST_PARTY",
    "Installer",
    "Plan",
    "check_command",
    "detect",
    "installed",
    "plan",
    "upgrade_command",
]

CORE = "hermes-core"
#: The plugins published with Hermes, upgraded with it when installed.
FIRST_PARTY = ("hermes-appimage", "hermes-homebrew", "hermes-llm", "hermes-webhooks")


class Installer(enum.Enum):
    PIP = "pip"
    PIPX = "pipx"
    UV_TOOL = "uv tool"
    UV = "uv pip"
    SOURCE = "a source checkout"


@dataclass(frozen=True)
class Plan:
    """How to upgrade: the installer, the distributions and their versions here, the command
    (``None`` for a source checkout, whose folder is *source*)."""

    installer: Installer
    versions: dict[str, str]
    command: list[str] | None
    source: str | None = None


def installed(names: Iterable[str]) -> dict[str, str]:
    """The versions of those of *names* installed in this environment."""
    found = {}
    for name in names:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return found


def _editable_source(name: str) -> str | None:
    """The folder an editable install of *name* points at, or ``None``."""
    try:
        text = importlib.metadata.distribution(name).read_text("direct_url.json")
    except importlib.metadata.PackageNotFoundError:
        return None
    try:
        data = json.loads(text or "{}")
    except ValueError:
        return None
    if isinstance(data, dict) and (data.get("dir_info") or {}).get("editable"):
        url = str(data.get("url", ""))
        return url.removeprefix("file://") or "?"
    return None


def _made_by_uv(prefix: Path) -> bool:
    try:
        lines = (prefix / "pyvenv.cfg").read_text(encoding="utf-8").splitlines()
    except OSError:
        return False
    return any(line.split("=", 1)[0].strip() == "uv" for line in lines)


def detect(prefix: Path, has_pip: bool) -> Installer:
    """The installer of the environment at *prefix* (*has_pip*: pip is importable there)."""
    if (prefix / "pipx_metadata.json").is_file():
        return Installer.PIPX
    if (prefix / "uv-receipt.toml").is_file():
        return Installer.UV_TOOL
    if _made_by_uv(prefix) and not has_pip:
        return Installer.UV
    return Installer.PIP


def plan(prefix: Path | None = None, executable: str | None = None) -> Plan:
    """How ``hermes update`` upgrades the environment this Hermes runs from."""
    prefix = prefix or Path(sys.prefix)
    executable = executable or sys.executable
    versions = installed((CORE, *FIRST_PARTY))
    source = _editable_source(CORE)
    if source is not None:
        return Plan(Installer.SOURCE, versions, None, source)
    names = [n for n in versions if _editable_source(n) is None]
    installer = detect(prefix, importlib.util.find_spec("pip") is not None)
    return Plan(installer, versions, upgrade_command(installer, executable, names))


def upgrade_command(installer: Installer, executable: str, names: list[str]) -> list[str]:
    """The command that upgrades *names* (``hermes-core`` first) with *installer*, for the
    interpreter *executable*."""
    if installer is Installer.PIPX:
        return ["pipx", "upgrade", "--include-injected", CORE]
    if installer is Installer.UV_TOOL:
        return ["uv", "tool", "upgrade", CORE]
    if installer is Installer.UV:
        return ["uv", "pip", "install", "--python", executable, "--upgrade", *names]
    if installer is Installer.PIP:
        return [executable, "-m", "pip", "install", "--upgrade", *names]
    raise ValueError(f"{installer.value} is not upgraded by a command")


def check_command(executable: str, names: Iterable[str]) -> list[str]:
    """The command that asks the index, installing nothing, which of *names* has a newer
    version: pip's dry run with a JSON report on stdout (pip's own settings apply:
    ``PIP_INDEX_URL``, ``PIP_FIND_LINKS``, ``pip.conf``)."""
    return [
        executable,
        "-m",
        "pip",
        "install",
        "--dry-run",
        "--upgrade",
        "--no-deps",
        "--quiet",
        "--disable-pip-version-check",
        "--report",
        "-",
        *names,
    ]
