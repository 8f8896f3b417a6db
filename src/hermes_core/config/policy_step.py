"""One step of looking through an exec wrapper (``env``, ``sh -c``, ``npx``…): what it runs
next, with which environment and folder — or why that cannot be told."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["Package", "Step", "unjudged"]


@dataclass(frozen=True)
class Package:
    """A package a runner fetches and runs (``npx -y pkg@1``, ``uvx pkg==1``)."""

    name: str
    """Its name, version left out (lower case; a Python package's name normalised)."""
    spec: str
    """As written (``@scope/pkg@1.2``, ``pkg==1.0``, a URL or a path)."""
    runner: str
    """``npx`` or ``uvx``."""


@dataclass(frozen=True)
class Step:
    """What a wrapper runs: *argv* (empty: nothing more) in *env* and *cwd*, the *packages* it
    fetches, further *programs* it starts itself, the *urls* a bridge dials; or *unjudged*,
    why that cannot be told."""

    argv: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    packages: tuple[Package, ...] = ()
    programs: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()
    """URLs a bridge package connects to for the host (``npx mcp-remote URL``)."""
    unjudged: str | None = None


def unjudged(why: str) -> Step:
    """A step whose target cannot be told (*why*, a clause: ``it runs the script file x``)."""
    return Step(unjudged=why)
