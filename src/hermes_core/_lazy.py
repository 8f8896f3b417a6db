"""Public names of a package imported from their home module on first use.

``hermes --help`` and other commands that never touch a server must not pay for importing the
plugin stack, pydantic or the OAuth machinery just because a package re-exports them; the
packages' ``__getattr__`` hand their lookups to :class:`LazyExports`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping

__all__ = ["LazyExports"]


class LazyExports:
    """*homes* maps a public name to its module: relative to *package*, or absolute."""

    def __init__(self, package: str, homes: Mapping[str, str]) -> None:
        self.package = package
        self.homes = dict(homes)

    def get(self, name: str) -> object:
        home = self.homes.get(name)
        if home is None:
            raise AttributeError(f"module {self.package!r} has no attribute {name!r}")
        module = home if home.startswith("hermes_") else f"{self.package}.{home}"
        value = getattr(importlib.import_module(module), name)
        vars(sys.modules[self.package])[name] = value  # later lookups skip __getattr__
        return value

    def names(self) -> list[str]:
        return sorted({*vars(sys.modules[self.package]), *self.homes})
