"""The plugin manager: loads built-ins and entry points, collects and applies registrations.

No manager exists at import time: :func:`create_plugin_manager` builds one
(tests get a fresh one), :func:`get_plugin_manager` caches one for the CLI.
The rest of the code reads plugins only through the typed accessors here.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import logging
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TypeVar, cast

import pluggy

from hermes_core.config.plugin_settings import SettingsShape
from hermes_core.home import hermes_home
from hermes_core.plugins.catalog_files import remember_names as remember_catalog_names
from hermes_core.plugins.config_keys import env_flag, env_list
from hermes_core.plugins.entry_points import GROUP, PluginEntryPoint, hermes_entry_points
from hermes_core.plugins.entry_points import scan as scan_entry_points
from hermes_core.plugins.errors import PluginError
from hermes_core.plugins.guard import call_plugin, code_origin, describe
from hermes_core.plugins.hookspecs import PROJECT, HermesSpecs
from hermes_core.plugins.platform_apply import PlatformApplication
from hermes_core.plugins.records import PluginRecord, PluginStatus, Registered
from hermes_core.plugins.types import (
    AppDeclaration,
    AuthProviderSpec,
    CallInterceptor,
    CatalogManifest,
    GpuProbe,
    LocationKind,
    MessagingPlatform,
    SamplingProvider,
    TransportSpec,
    VersionSource,
)

__all__ = [
    "BUILTIN_PLUGINS",
    "ENTRY_POINT_GROUP",
    "HOOK_TYPES",
    "HermesPluginManager",
    "PluginRecord",
    "Registered",
    "create_plugin_manager",
    "get_plugin_manager",
]

log = logging.getLogger(__name__)
ENTRY_POINT_GROUP = GROUP
_T = TypeVar("_T")
HOOK_TYPES: Mapping[str, type] = {
    "declare_app": AppDeclaration,
    "location_kind": LocationKind,
    "gpu_probe": GpuProbe,
    "version_source": VersionSource,
    "transport": TransportSpec,
    "auth_provider": AuthProviderSpec,
    "messaging_platform": MessagingPlatform,
    "catalog_entry": CatalogManifest,
    "sampling_provider": SamplingProvider,
    "call_interceptor": CallInterceptor,
}


def _name_of(item: object) -> str:
    return str(getattr(item, "name", None) or getattr(item, "server", "?"))


def _missing_callable(item: object) -> str | None:
    """The callable a transport (``connect``), auth provider (``create``) or sampling backend
    (``models``, ``complete``) lacks, if any."""
    if isinstance(item, TransportSpec) and not callable(item.connect):
        return "connect"
    if isinstance(item, AuthProviderSpec) and not callable(item.create):
        return "create"
    if isinstance(item, CallInterceptor):
        if not any(callable(c) for c in (item.before, item.after, item.create)):
            return "before, after or create"
        return None
    if isinstance(item, SamplingProvider):
        for name in ("models", "complete"):
            if not callable(getattr(item, name)):
                return name
    return None


def _bad_settings(item: object) -> str | None:
    """Why a registration's ``settings`` is not a usable pydantic model class, if it is not."""
    model = getattr(item, "settings", None)
    if model is None:
        return None
    from pydantic import BaseModel

    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return f"settings must be a pydantic model class (got {type(model).__name__})"
    try:
        SettingsShape.of_model(model)
    except Exception as exc:  # noqa: BLE001 - a plugin's model is reported, never raised
        return f"settings model {model.__name__} has no JSON Schema: {exc}"
    return None


#: The built-in plugins (:mod:`hermes_core.builtin`), registered by name like a third party's
#: before any entry point: the plugin layer loads them and never imports them.
BUILTIN_PLUGINS: tuple[str, ...] = (
    "hermes_core.builtin.location_kinds",
    "hermes_core.builtin.version_sources",
    "hermes_core.builtin.gpu_probes",
    "hermes_core.builtin.transports",
    "hermes_core.builtin.auth",
    "hermes_core.builtin.catalog",
    "hermes_core.builtin.local_catalog",
    "hermes_core.builtin.interceptors",
    "hermes_core.builtin.installed_apps",
)

#: Built-in plugins whose contributions give way to another plugin's of the same name: the app
#: declarations kept from registry and bundle installs yield to the vendor plugin's own.
GIVES_WAY: frozenset[str] = frozenset({"hermes_core.builtin.installed_apps"})


class HermesPluginManager:
    """Plugins in load order, with typed accessors over what they contribute."""

    def __init__(self, *, strict: bool = False) -> None:
        self.strict = strict
        self._pm = pluggy.PluginManager(PROJECT)
        self._pm.add_hookspecs(HermesSpecs)
        self._records: dict[str, PluginRecord] = {}
        self._collected: dict[str, list[Registered[object]]] = {}
        self._platform = PlatformApplication(self.report)
        self._checked = False
        self.display_names: dict[str, str] = self._platform.display_names
        self.entry_points: list[PluginEntryPoint] = []
        """The entry points :meth:`load_entry_points` went through (disabled ones too)."""

    # -- loading ---------------------------------------------------------------
    def _problem(
        self, record: PluginRecord, error: PluginError, *, fatal: bool = False, kept: bool = False
    ) -> None:
        problem = error.reason if not error.hook else f"{error.hook}: {error.reason}"
        record.problems.append(problem)
        if fatal:
            record.status, record.reason = PluginStatus.FAILED, error.reason
        elif record.status in (PluginStatus.LOADED, PluginStatus.DEGRADED):
            # Loaded, but something it contributed was rejected or misbehaved.
            record.status = PluginStatus.DEGRADED
            record.reason = "; ".join(record.problems)
        if self.strict:
            raise error
        if kept:  # the contribution stays registered: say so instead of "Skipped"
            advice = (
                f"It stays registered. Disable the plugin with HERMES_DISABLE_PLUGINS="
                f"{error.plugin} or --no-plugins, and report the problem to its author."
            )
            log.warning("%s. %s", error, advice)
        else:
            log.warning("%s. %s", error, error.advice)

    def register_plugin(
        self,
        plugin: object,
        name: str,
        *,
        distribution: str | None = None,
        version: str | None = None,
        builtin: bool = False,
    ) -> bool:
        """Register *plugin* under *name*; a plugin pluggy rejects is recorded, not raised."""
        record = PluginRecord(name, distribution, version, builtin)
        self._records[name] = record
        dist_label = record.label if distribution else None
        try:
            self._pm.register(plugin, name=name)
            self._pm.check_pending()
        except Exception as exc:  # noqa: BLE001 - pluggy raises ValueError and its own errors
            if self._pm.get_plugin(name) is not None:
                self._pm.unregister(name=name)
            self._problem(
                record,
                PluginError(name, f"cannot be registered: {exc}", distribution=dist_label),
                fatal=True,
            )
            return False
        record.hooks = sorted(caller.name for caller in self._pm.get_hookcallers(plugin) or [])
        self._collected.clear()
        return True

    def unregister_plugin(self, name: str) -> None:
        if self._pm.get_plugin(name) is not None:
            self._pm.unregister(name=name)
        self._records.pop(name, None)
        self._collected.clear()

    def load_builtins(self) -> None:
        for dotted in BUILTIN_PLUGINS:
            self.register_plugin(importlib.import_module(dotted), dotted, builtin=True)

    def load_entry_points(
        self,
        disabled: Iterable[str] = (),
        *,
        disable_all: bool = False,
        entries: list[PluginEntryPoint] | None = None,
    ) -> None:
        """Load every ``hermes.plugins`` entry point, each on its own; failures are recorded.

        Disabled plugins (by entry-point or distribution name, or all of them)
        are listed but never imported.  *entries* are the entry points found
        already (:func:`hermes_core.plugins.entry_points.hermes_entry_points`);
        by default they are scanned now.
        """
        found = scan_entry_points() if entries is None else entries
        self.entry_points = list(found)
        blocked = set(disabled)
        for entry in sorted(found, key=lambda e: e.name):
            dist_name = entry.dist_name
            version = entry.dist_version
            if (
                disable_all
                or entry.name in blocked
                or (dist_name is not None and dist_name in blocked)
            ):
                self._records[entry.name] = PluginRecord(
                    entry.name,
                    dist_name,
                    version,
                    status=PluginStatus.DISABLED,
                    reason="--no-plugins" if disable_all else "HERMES_DISABLE_PLUGINS",
                )
                continue
            if entry.name in self._records:
                record = PluginRecord(entry.name, dist_name, version)
                other = self._records[entry.name]
                self._records[f"{entry.name} ({dist_name})"] = record
                self._problem(
                    record,
                    PluginError(
                        entry.name,
                        f"the name is already taken by {other.label}",
                        distribution=record.label,
                    ),
                    fatal=True,
                )
                continue
            try:
                plugin = call_plugin(entry.name, "import", entry.load)
            except Exception as exc:  # noqa: BLE001 - a broken plugin must not break Hermes
                record = PluginRecord(entry.name, dist_name, version)
                self._records[entry.name] = record
                self._problem(
                    record,
                    PluginError(
                        entry.name,
                        f"failed to import: {describe(exc, verb='')}",
                        distribution=record.label,
                    ),
                    fatal=True,
                )
                continue
            self.register_plugin(plugin, entry.name, distribution=dist_name, version=version)

    # -- collecting ---------------------------------------------------------------
    def _collect(self, hook: str) -> list[Registered[object]]:
        if hook in self._collected:
            return self._collected[hook]
        expected = HOOK_TYPES[hook]
        caller = getattr(self._pm.hook, hook)
        results: list[Registered[object]] = []
        seen: dict[str, Registered[object]] = {}
        # pluggy calls the last registered first; we want load order (built-ins first).
        for impl in caller.get_hookimpls():
            record = self._records.get(impl.plugin_name) or PluginRecord(impl.plugin_name)
            dist = record.label if record.distribution else None
            try:
                items = call_plugin(impl.plugin_name, hook, _call_hook, impl.function, expected)
            except Exception as exc:  # noqa: BLE001 - a plugin's hook must not break Hermes
                self._problem(
                    record,
                    PluginError(
                        impl.plugin_name,
                        describe(exc, within=code_origin(impl.function)),
                        distribution=dist,
                        hook=hook,
                    ),
                )
                continue
            if isinstance(items, str):  # not an iterable of registrations
                self._problem(
                    record,
                    PluginError(impl.plugin_name, items, distribution=dist, hook=hook),
                )
                continue
            for item in items:
                problem = _item_problem(hook, item, expected)
                if problem:
                    self._problem(
                        record,
                        PluginError(impl.plugin_name, problem, distribution=dist, hook=hook),
                    )
                    continue
                if not record.builtin:
                    item = _credited(item, impl.plugin_name, record)
                key = _name_of(item)
                first = seen.get(key)
                if first is not None and first.plugin in GIVES_WAY and first.item != item:
                    results.remove(first)  # a plugin's own contribution wins over a kept one
                    first = None
                if first is not None:
                    if first.item != item:
                        self._problem(
                            record,
                            PluginError(
                                impl.plugin_name,
                                f"{hook} {key!r} is already provided by {first.plugin}",
                                distribution=dist,
                                hook=hook,
                            ),
                        )
                    continue
                entry = Registered(item, impl.plugin_name, dist)
                seen[key] = entry
                results.append(entry)
                record.contributions.setdefault(hook, []).append(key)
        # get_hookimpls() lists in registration order; keep it.
        self._collected[hook] = results
        return results

    def _registered(self, hook: str, kind: type[_T]) -> list[Registered[_T]]:
        """*hook*'s registrations, typed: :meth:`_collect` keeps only instances of the hook's
        type (``HOOK_TYPES``), which *kind* must be."""
        if HOOK_TYPES[hook] is not kind:
            raise TypeError(f"{hook} registers {HOOK_TYPES[hook].__name__}, not {kind.__name__}")
        return cast("list[Registered[_T]]", self._collect(hook))

    def app_declarations(self) -> list[Registered[AppDeclaration]]:
        return self._registered("declare_app", AppDeclaration)

    def location_kinds(self) -> list[LocationKind]:
        return [r.item for r in self._registered("location_kind", LocationKind)]

    def gpu_probes(self) -> list[GpuProbe]:
        return [r.item for r in self._registered("gpu_probe", GpuProbe)]

    def version_sources(self) -> list[VersionSource]:
        """Every version source, built-ins first (what ``version.kind`` may name)."""
        return [r.item for r in self._registered("version_source", VersionSource)]

    def transports(self) -> dict[str, TransportSpec]:
        return {r.item.name: r.item for r in self._registered("transport", TransportSpec)}

    def auth_providers(self) -> dict[str, AuthProviderSpec]:
        return {r.item.name: r.item for r in self._registered("auth_provider", AuthProviderSpec)}

    def messaging_platforms(self) -> dict[str, MessagingPlatform]:
        """The registered messaging adapters by name (``adapter:`` under ``messaging:``)."""
        found = self._registered("messaging_platform", MessagingPlatform)
        return {r.item.name: r.item for r in found}

    def catalog_manifests(self) -> list[Registered[CatalogManifest]]:
        """Every catalog entry's manifest text, built-ins first, with its provenance."""
        return self._registered("catalog_entry", CatalogManifest)

    def report(self, registered: Registered[object], hook: str, reason: str) -> None:
        """Record a problem found later in what *registered* contributed (strict: raise)."""
        record = self._records.get(registered.plugin) or PluginRecord(registered.plugin)
        self._problem(
            record,
            PluginError(registered.plugin, reason, distribution=registered.distribution, hook=hook),
        )

    def sampling_providers(self) -> dict[str, SamplingProvider]:
        """The LLM backends for sampling, by name, in load order."""
        found = self._registered("sampling_provider", SamplingProvider)
        return {r.item.name: r.item for r in found}

    def call_interceptors(self) -> dict[str, CallInterceptor]:
        """The call interceptors by name, built-ins first (what ``interceptors:`` may name)."""
        found = self._registered("call_interceptor", CallInterceptor)
        return {r.item.name: r.item for r in found}

    def collect_all(self) -> None:
        for hook in HOOK_TYPES:
            self._collect(hook)

    # -- applying to hermes_platform -------------------------------------------------
    def apply(self) -> None:
        """Register kinds and probes with ``hermes_platform``, then parse and register
        the declarations (after the kinds, so declarations may use plugin kinds)."""
        self._platform.apply(
            self._registered("location_kind", LocationKind),
            self._registered("version_source", VersionSource),
            self._registered("gpu_probe", GpuProbe),
            self.app_declarations(),
        )

    def unapply(self) -> None:
        """Undo :meth:`apply`: remove what this manager added to ``hermes_platform``."""
        self._platform.unapply()

    def check_contributions(self) -> None:
        """Run every registered locator, version reader and GPU probe on fake linux, darwin and
        win32 hosts.

        What raises, returns the wrong type or is not callable is a problem of
        the plugin that contributed it (strict mode raises the first as a
        :class:`PluginError`); the contribution stays registered.  Runs once
        per manager; ``check_plugin``, strict mode and ``hermes plugins list``
        call it, ordinary commands do not.
        """
        if self._checked:
            return
        self._checked = True
        from hermes_core.plugins.exercise import kind_problem, probe_problem, source_problem

        declarations = [r.item for r in self.app_declarations()]
        checks: list[tuple[Registered[object], str, str | None]] = []
        for kind in self._registered("location_kind", LocationKind):
            problem = kind_problem(kind.plugin, kind.item, declarations)
            checks.append((kind, "location_kind", problem))
        for source in self._registered("version_source", VersionSource):
            problem = source_problem(source.plugin, source.item)
            checks.append((source, "version_source", problem))
        for probe in self._registered("gpu_probe", GpuProbe):
            problem = probe_problem(probe.plugin, probe.item)
            checks.append((probe, "gpu_probe", problem))
        for registered, hook, problem in checks:
            if problem is None:
                continue
            record = self._records.get(registered.plugin) or PluginRecord(registered.plugin)
            self._problem(
                record,
                PluginError(
                    registered.plugin, problem, distribution=registered.distribution, hook=hook
                ),
                kept=True,
            )

    # -- introspection -------------------------------------------------------------
    def plugins(self) -> list[PluginRecord]:
        """Every plugin, loaded or not, in load order (after collecting every hook)."""
        self.collect_all()
        return list(self._records.values())

    def plugin_objects(self) -> dict[str, object]:
        """The registered external (non-built-in) plugin objects by name, in load order."""
        loaded = [
            n for n, r in self._records.items() if not r.builtin and r.status == PluginStatus.LOADED
        ]
        objects = {name: self._pm.get_plugin(name) for name in loaded}
        return {name: plugin for name, plugin in objects.items() if plugin is not None}

    @property
    def hook(self) -> object:
        """pluggy's hook relay, for the plugin machinery and its tests only."""
        return self._pm.hook


def _call_hook(function: Callable[[], object], expected: type) -> list[object] | str:
    """The hook's registrations as a list, or why what it returned is not an iterable of them."""
    returned = function()
    if returned is None:
        return []
    if not isinstance(returned, Iterable) or isinstance(returned, (str, bytes, Mapping, expected)):
        return (
            f"returned a {type(returned).__name__}, "
            f"expected an iterable of {expected.__name__} (a list)"
        )
    return list(returned)


def create_plugin_manager(
    *,
    builtins: bool = True,
    entry_points: bool = True,
    disabled: Iterable[str] = (),
    strict: bool = False,
    no_plugins: bool = False,
    entry_points_home: Path | None = None,
) -> HermesPluginManager:
    """A fresh manager: built-ins, then the ``hermes.plugins`` entry points not disabled.

    ``no_plugins`` lists the external plugins as disabled without importing them.  With
    ``entry_points_home``, the entry points found are remembered in that ``$HERMES_HOME``
    while the installed distributions are unchanged
    (:mod:`hermes_core.plugins.entry_points`); without it they are scanned.
    """
    manager = HermesPluginManager(strict=strict)
    if builtins:
        manager.load_builtins()
    if entry_points:
        found = hermes_entry_points(entry_points_home, strict=strict)
        manager.load_entry_points(disabled, disable_all=no_plugins, entries=found)
    return manager


@functools.cache
def get_plugin_manager(*, no_plugins: bool = False) -> HermesPluginManager:
    """The CLI's cached, applied manager (``HERMES_STRICT_PLUGINS``, ``HERMES_DISABLE_PLUGINS``;
    the entry points remembered in ``$HERMES_HOME/cache``)."""
    strict = env_flag("HERMES_STRICT_PLUGINS")
    remember_catalog_names(None if strict else hermes_home())
    manager = create_plugin_manager(
        no_plugins=no_plugins,
        disabled=env_list("HERMES_DISABLE_PLUGINS"),
        strict=strict,
        entry_points_home=hermes_home(),
    )
    manager.apply()
    if manager.strict:
        manager.check_contributions()
    return manager


def _item_problem(hook: str, item: object, expected: type) -> str | None:
    """Why a registration a plugin's hook returned is refused (None: it is usable)."""
    if not isinstance(item, expected):
        return f"returned a {type(item).__name__}, expected {expected.__name__}"
    missing = _missing_callable(item)
    if missing:
        return f"{hook} {_name_of(item)!r} has no callable {missing}"
    bad = _bad_settings(item)
    if bad:
        return f"{hook} {_name_of(item)!r}: {bad}"
    return None


def _credited(item: object, plugin_name: str, record: PluginRecord) -> object:
    """A third-party *item* that left the built-in provider name in place, named after the plugin
    that returned it (its failures then name the plugin, not Hermes)."""
    if (
        isinstance(item, (LocationKind, GpuProbe, VersionSource))
        and item.provider == "hermes_platform"
    ):
        suffix = f" ({record.label})" if record.distribution else ""
        return dataclasses.replace(item, provider=plugin_name + suffix)
    if isinstance(item, CallInterceptor) and item.provider == "hermes_core":
        return dataclasses.replace(item, provider=plugin_name)
    return item
