"""A parsed app declaration (what :func:`hermes_platform.declaration.parse_declaration`
returns): the ``app:`` block per OS, the ``requires:`` block, and the phrase for a GPU."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from hermes_platform.resolver.app import AppDef

__all__ = ["GPU_LABELS", "AppSpec", "Declaration", "RequiresSpec", "gpu_label"]

GPU_LABELS = {"nvidia": "an NVIDIA GPU"}


@dataclass(frozen=True)
class AppSpec:
    """The ``app:`` block: one :class:`AppDef` per OS key, in input order."""

    blocks: tuple[tuple[str, AppDef], ...]

    @property
    def per_os(self) -> Mapping[str, AppDef]:
        return MappingProxyType(dict(self.blocks))

    def for_os(self, os_family: str) -> AppDef | None:
        """The block for exactly this OS key (no fallback)."""
        for key, app in self.blocks:
            if key == os_family:
                return app
        return None


@dataclass(frozen=True)
class RequiresSpec:
    """The ``requires:`` block."""

    app: bool = False
    min_version: str | None = None
    gpu: str | None = None


@dataclass(frozen=True)
class Declaration:
    """A parsed declaration: server name, optional app block, requirements."""

    name: str
    app: AppSpec | None = None
    requires: RequiresSpec = field(default_factory=RequiresSpec)

    @property
    def requires_app(self) -> bool:
        return self.requires.app

    @property
    def min_version(self) -> str | None:
        return self.requires.min_version

    @property
    def required_gpu(self) -> str | None:
        return self.requires.gpu

    def app_for(self, os_family: str) -> AppDef | None:
        """The :class:`AppDef` for *os_family*, or ``None`` (also without an app block)."""
        return self.app.for_os(os_family) if self.app is not None else None


def gpu_label(gpu: str | None) -> str:
    """A human phrase for a ``requires.gpu`` value (``"an NVIDIA GPU"``)."""
    return GPU_LABELS.get(gpu, "a supported GPU") if isinstance(gpu, str) else "a supported GPU"
