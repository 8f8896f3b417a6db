"""What the plugin manager keeps about each plugin and each registration."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Generic, TypeVar

__all__ = ["PluginRecord", "PluginStatus", "Registered"]

T = TypeVar("T", covariant=True)


class PluginStatus(StrEnum):
    """Where a plugin stands (compares equal to its word, as ``plugins list`` prints it)."""

    LOADED = "loaded"
    DEGRADED = "degraded"
    """Loaded, but something it contributed was rejected or misbehaved."""
    DISABLED = "disabled"
    FAILED = "failed"


@dataclass(frozen=True)
class Registered(Generic[T]):
    """A registration with its provenance."""

    item: T
    plugin: str
    distribution: str | None


@dataclass
class PluginRecord:
    """What ``hermes plugins list`` shows for one plugin."""

    name: str
    distribution: str | None = None
    version: str | None = None
    builtin: bool = False
    status: PluginStatus = PluginStatus.LOADED
    reason: str = ""
    hooks: list[str] = field(default_factory=list)
    contributions: dict[str, list[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        if self.distribution:
            return f"{self.distribution} {self.version or ''}".strip()
        return "built-in" if self.builtin else "-"

    def as_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)
