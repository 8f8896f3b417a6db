"""Is the program a server entry runs (``uvx``, ``npx``, ``docker``, ``codex``…) on this machine?

:func:`missing_runner` is the one check every reader uses: ``hermes mcp catalog`` and the
picker show a missing runner as its own state (``needs uv``), ``hermes mcp install`` and
``hermes mcp add`` save such an entry disabled instead of enabled-but-broken, and the registry
install refuses a package type whose runner is absent.  It looks at ``PATH`` only (no spawn, no
network), so it is cheap enough for a listing.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["MissingRunner", "missing_runner", "runner_label"]


@dataclass(frozen=True)
class _Known:
    label: str
    """What the user installs (``uv``, ``Node.js``): the word after ``needs``."""
    how: str


_KNOWN: dict[str, _Known] = {
    "uvx": _Known("uv", "Install uv (https://docs.astral.sh/uv/), which provides uvx"),
    "uv": _Known("uv", "Install uv (https://docs.astral.sh/uv/)"),
    "pipx": _Known("pipx", "Install pipx (https://pipx.pypa.io/)"),
    "npx": _Known("Node.js", "Install Node.js 20+ (https://nodejs.org/), which provides npx"),
    "node": _Known("Node.js", "Install Node.js 20+ (https://nodejs.org/)"),
    "npm": _Known("Node.js", "Install Node.js 20+ (https://nodejs.org/), which provides npm"),
    "docker": _Known("docker", "Install Docker (https://docs.docker.com/get-docker/)"),
    "podman": _Known("podman", "Install Podman (https://podman.io/)"),
    "dnx": _Known(
        ".NET", "Install the .NET 10 SDK (https://dotnet.microsoft.com/), which provides dnx"
    ),
    "dotnet": _Known(".NET", "Install the .NET SDK (https://dotnet.microsoft.com/)"),
    "deno": _Known("Deno", "Install Deno (https://deno.com/)"),
    "bun": _Known("Bun", "Install Bun (https://bun.sh/)"),
    "bunx": _Known("Bun", "Install Bun (https://bun.sh/), which provides bunx"),
    "codex": _Known("codex", "Install the Codex CLI (npm install -g @openai/codex)"),
}


@dataclass(frozen=True)
class MissingRunner:
    """A command that is not on ``PATH``: what to install, and how."""

    command: str
    label: str
    """``uv``, ``Node.js``, ``docker``…; the state reads ``needs <label>``."""
    how: str
    known: bool = True
    """Whether it is a runner this module knows (``uvx``, ``npx``…), not just any command."""

    @property
    def state(self) -> str:
        """``needs uv``."""
        return f"needs {self.label}"

    @property
    def sentence(self) -> str:
        """``uvx is not on PATH. Install uv (…), then try again.``"""
        if os.sep in self.command or (os.altsep and os.altsep in self.command):
            return f"`{self.command}` is not an executable file. {self.how}, then try again."
        return f"`{self.command}` is not on PATH. {self.how}, then try again."


def runner_label(command: str) -> str:
    """What provides *command* (``uvx`` → ``uv``); the command's own name when unknown."""
    base = os.path.basename(command)
    known = _KNOWN.get(base.removesuffix(".exe").lower())
    return known.label if known is not None else base


def missing_runner(
    command: str | None, *, env: Mapping[str, str] | None = None
) -> MissingRunner | None:
    """*command*'s runner when it cannot be found here, else ``None``.

    ``None`` too for what cannot be judged before install: no command (an HTTP entry), or one
    holding a ``${…}`` reference (``${INSTALL_DIR}/bin/x``, resolved later).  A path (``/opt/x``,
    ``bin/x``) must be an executable file; a bare name must be on ``PATH`` (*env*'s, else this
    process's)."""
    if not command or "${" in command or "$" in command:
        return None
    path = (env if env is not None else os.environ).get("PATH", os.defpath)
    if os.sep in command or (os.altsep and os.altsep in command):
        if os.path.isfile(command) and os.access(command, os.X_OK):
            return None
    elif shutil.which(command, path=path) is not None:
        return None
    base = os.path.basename(command)
    known = _KNOWN.get(base.removesuffix(".exe").lower())
    if known is not None:
        return MissingRunner(command, known.label, known.how)
    return MissingRunner(command, base, f"Install {base} and make sure it is on PATH", known=False)
