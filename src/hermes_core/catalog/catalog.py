"""Read the catalog from the plugins and tell each entry's state on this machine."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from hermes_core import __version__
from hermes_core.catalog.manifest import (
    FutureManifest,
    Manifest,
    ManifestError,
    ParsedManifest,
    parse_manifest,
)
from hermes_core.config.models import ServerConfig
from hermes_core.plugins.manager import HermesPluginManager
from hermes_platform import declaration
from hermes_platform.declaration import Declaration, gpu_label
from hermes_platform.resolver.availability import availability
from hermes_platform.runners import MissingRunner, missing_runner
from hermes_platform.sentences import guidance

__all__ = [
    "AVAILABLE",
    "DISABLED",
    "ENABLED",
    "NEEDS_RUNNER",
    "NEWER",
    "UNAVAILABLE",
    "Catalog",
    "CatalogState",
    "Entry",
    "EntryState",
    "entry_runner",
    "load_catalog",
    "refusal",
    "state_of",
]

BUILTIN_PLUGIN = "hermes_core.builtin.catalog"
LOCAL_PLUGIN = "hermes_core.builtin.local_catalog"


class CatalogState(StrEnum):
    """An entry's state here, in the words ``hermes mcp catalog`` prints."""

    AVAILABLE = "available"
    ENABLED = "installed (enabled)"
    DISABLED = "installed (disabled)"
    UNAVAILABLE = "unavailable here"
    NEEDS_RUNNER = "needs a runner"
    """Its command (``uvx``, ``npx``, ``docker``, ``codex``…) is not on PATH: ``needs uv``."""
    NEWER = "requires a newer Hermes"


AVAILABLE = CatalogState.AVAILABLE
ENABLED = CatalogState.ENABLED
DISABLED = CatalogState.DISABLED
UNAVAILABLE = CatalogState.UNAVAILABLE
NEEDS_RUNNER = CatalogState.NEEDS_RUNNER
NEWER = CatalogState.NEWER


@dataclass(frozen=True)
class Entry:
    """A catalog entry: its manifest (or the newer one this Hermes cannot read) and origin."""

    name: str
    origin: str
    """The distribution it came from (``acme-studio-hermes 2.4.0``, ``hermes-core (built-in)``)."""
    where: str
    manifest: Manifest | None = None
    own_declaration: Declaration | None = None
    future: FutureManifest | None = None

    @property
    def description(self) -> str:
        if self.manifest is not None:
            return self.manifest.description
        return self.future.description if self.future is not None else ""

    @property
    def declaration(self) -> Declaration | None:
        """The app declaration deciding where it may be installed (its own, else the plugin's)."""
        return self.own_declaration or declaration.lookup(self.name)


@dataclass(frozen=True)
class Catalog:
    entries: dict[str, Entry]
    problems: list[str] = field(default_factory=list)
    """Manifests left out: ``file:line: key: reason (from <distribution>)``."""
    broken: dict[str, str] = field(default_factory=dict)
    """Entry name → why its manifest was left out."""


@dataclass(frozen=True)
class EntryState:
    state: CatalogState
    detail: str = ""
    """The declaration's sentence (unavailable), or the newer-Hermes warning."""
    offerable: bool = True
    needs: str = ""
    """What is missing to run it (``uv``), for :data:`NEEDS_RUNNER` and installed entries."""

    @property
    def label(self) -> str:
        """The state as ``hermes mcp catalog`` prints it (``needs uv`` for a missing runner)."""
        if self.state == NEEDS_RUNNER:
            return f"needs {self.needs}"
        return str(self.state)


def _origin(manager: HermesPluginManager, plugin: str, distribution: str | None) -> str:
    if distribution:
        return distribution
    if plugin == BUILTIN_PLUGIN:
        return f"hermes-core {__version__} (built-in)"
    if plugin == LOCAL_PLUGIN:
        return "HERMES_CATALOG_PATH"
    return plugin


def load_catalog(manager: HermesPluginManager) -> Catalog:
    """Every entry the plugins contribute, parsed; a bad manifest is reported and left out.

    Raises :class:`PluginError` in strict mode (``HERMES_STRICT_PLUGINS=1``).
    """
    entries: dict[str, Entry] = {}
    problems: list[str] = []
    broken: dict[str, str] = {}
    for registered in manager.catalog_manifests():
        spec = registered.item
        origin = _origin(manager, registered.plugin, registered.distribution)
        where = spec.where or f"catalog_entry of {registered.plugin}"
        try:
            parsed = parse_manifest(spec.text, where)
            got = parsed.name if isinstance(parsed, FutureManifest) else parsed.manifest.name
            if got != spec.name:
                raise ManifestError(
                    where,
                    None,
                    "name",
                    f"is {got!r}, but the entry was registered as {spec.name!r}",
                )
        except ManifestError as exc:
            message = f"{exc} (from {origin})"
            problems.append(message)
            broken[spec.name] = message
            if registered.plugin not in (BUILTIN_PLUGIN, LOCAL_PLUGIN):
                # A plugin's broken manifest is its author's problem too (strict: raise).
                manager.report(registered, "catalog_entry", str(exc))
            continue
        if isinstance(parsed, FutureManifest):
            entries[spec.name] = Entry(spec.name, origin, where, future=parsed)
        else:
            entries[spec.name] = _entry(spec.name, origin, where, parsed)
    return Catalog(dict(sorted(entries.items())), problems, broken)


def _entry(name: str, origin: str, where: str, parsed: ParsedManifest) -> Entry:
    return Entry(name, origin, where, parsed.manifest, parsed.declaration)


def refusal(entry: Entry, display_name: str | None = None) -> str | None:
    """The sentence refusing to install *entry* here; ``None`` when it may be installed."""
    decl = entry.declaration
    if decl is None:
        return None
    result = availability(decl)
    if result.offerable:
        return None
    if result.state == "unsupported_gpu":
        return (
            f"'{entry.name}' is unavailable: unsupported_gpu, needs {gpu_label(decl.required_gpu)}."
        )
    told = guidance(decl, result, display_name=display_name)
    sentence = told.sentence if told is not None else result.state
    return f"'{entry.name}' is unavailable: {result.state}. {sentence}"


def _sentence(entry: Entry, display_name: str | None) -> str | None:
    decl = entry.declaration
    if decl is None:
        return None
    result = availability(decl)
    if result.offerable:
        return None
    told = guidance(decl, result, display_name=display_name)
    return told.sentence if told is not None else result.state


def state_of(
    entry: Entry,
    servers: Mapping[str, ServerConfig],
    display_names: Mapping[str, str] | None = None,
) -> EntryState:
    """The entry's state against the configured servers and this machine."""
    if entry.future is not None:
        return EntryState(
            NEWER,
            f"⚠ '{entry.name}' requires a newer Hermes (manifest_version "
            f"{entry.future.manifest_version}); run `hermes update` to install it",
            offerable=False,
        )
    sentence = _sentence(entry, (display_names or {}).get(entry.name))
    configured = servers.get(entry.name)
    runner = entry_runner(entry)
    if configured is not None:
        if sentence is None and runner is not None:
            state = ENABLED if configured.enabled else DISABLED
            return EntryState(state, f"{runner.state}: {runner.sentence}", needs=runner.label)
        return EntryState(
            ENABLED if configured.enabled else DISABLED, sentence or "", sentence is None
        )
    if sentence is not None:
        return EntryState(UNAVAILABLE, sentence, offerable=False)
    if runner is not None:
        return EntryState(NEEDS_RUNNER, runner.sentence, needs=runner.label)
    return EntryState(AVAILABLE)


def entry_runner(entry: Entry) -> MissingRunner | None:
    """The runner *entry*'s command needs and this machine lacks (``uvx`` for ``time``)."""
    if entry.manifest is None:
        return None
    return missing_runner(entry.manifest.transport.command)
