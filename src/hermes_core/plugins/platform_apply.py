"""Registering plugins' contributions with ``hermes_platform`` (location kinds, version
sources, GPU probes, app declarations), and undoing exactly that."""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable
from typing import TypeVar

from hermes_core.plugins.records import Registered
from hermes_core.plugins.types import AppDeclaration, GpuProbe, LocationKind, VersionSource
from hermes_platform import declaration
from hermes_platform.host.gpu import GPU_PROBES
from hermes_platform.registration import RegistrationConflict
from hermes_platform.resolver.app import LOCATION_KINDS
from hermes_platform.resolver.versions import VERSION_KINDS

__all__ = ["PlatformApplication"]

_Item = TypeVar("_Item", LocationKind, VersionSource, GpuProbe)

Report = Callable[[Registered[object], str, str], None]
"""Records a problem of a registration: (registration, hook, reason)."""


class PlatformApplication:
    """What one plugin manager added to ``hermes_platform``'s registries, so that
    :meth:`unapply` removes that and nothing else; problems go to *report*."""

    def __init__(self, report: Report) -> None:
        self._report = report
        self._applied_kinds: list[str] = []
        self._applied_probes: list[str] = []
        self._applied_version_sources: list[str] = []
        self._applied_servers: list[str] = []
        self.display_names: dict[str, str] = {}
        """The declared servers' display names (``display_name`` of an app declaration)."""

    def apply(
        self,
        location_kinds: Iterable[Registered[LocationKind]],
        version_sources: Iterable[Registered[VersionSource]],
        gpu_probes: Iterable[Registered[GpuProbe]],
        declarations: Iterable[Registered[AppDeclaration]],
    ) -> None:
        """Register the kinds and probes, then parse and register the declarations (after
        the kinds, so declarations may use plugin kinds)."""
        for kind in location_kinds:
            self._apply_one(kind, LOCATION_KINDS.register, self._applied_kinds, "location_kind")
        for source in version_sources:
            self._apply_one(
                source,
                VERSION_KINDS.register,
                self._applied_version_sources,
                "version_source",
            )
        for probe in gpu_probes:
            self._apply_one(probe, GPU_PROBES.register, self._applied_probes, "gpu_probe")
        for declared in declarations:
            self._apply_declaration(declared)

    def _apply_one(
        self,
        registered: Registered[_Item],
        register: Callable[[_Item], None],
        applied: list[str],
        hook: str,
    ) -> None:
        item = registered.item
        tables: dict[str, Container[str]] = {
            "location_kind": LOCATION_KINDS,
            "version_source": VERSION_KINDS,
            "gpu_probe": GPU_PROBES,
        }
        existed = item.name in tables[hook]
        try:
            register(item)
        except RegistrationConflict as exc:
            self._report(registered, hook, str(exc))
            return
        if not existed:
            applied.append(item.name)

    def _apply_declaration(self, registered: Registered[AppDeclaration]) -> None:
        decl = registered.item
        label = decl.where or f"declare_app of {registered.plugin}"
        where = f"{label} (plugin {registered.plugin}" + (
            f", {registered.distribution})" if registered.distribution else ")"
        )
        try:
            parsed = declaration.parse_declaration(
                decl.server, raw_app=decl.app, raw_requires=decl.requires, where=where
            )
        except declaration.DeclarationError as exc:
            line = decl.key_line(exc.key) if decl.key_line is not None and exc.key else None
            if line is not None:
                exc = declaration.DeclarationError(
                    where.replace(label, f"{label}:{line}", 1), exc.key, exc.reason
                )
            self._report(registered, "declare_app", str(exc))
            return
        declaration.register(decl.server, parsed)
        self._applied_servers.append(decl.server)
        if decl.display_name:
            self.display_names[decl.server] = decl.display_name

    def unapply(self) -> None:
        """Undo :meth:`apply`: remove what this manager added to ``hermes_platform``."""
        for name in self._applied_kinds:
            LOCATION_KINDS.unregister(name)
        for name in self._applied_probes:
            GPU_PROBES.unregister(name)
        for name in self._applied_version_sources:
            VERSION_KINDS.unregister(name)
        self._applied_version_sources = []
        for server in self._applied_servers:
            declaration.unregister(server)
        self._applied_kinds, self._applied_probes, self._applied_servers = [], [], []
