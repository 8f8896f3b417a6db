"""Install a catalog entry and choose a configured server's tools from the page, through the
catalog code ``hermes mcp install`` / ``configure`` use (:mod:`hermes_core.catalog`): the same
refusals, the same clone and bootstrap, keys written to ``$HERMES_HOME/.env`` (0600), the
entry added to ``config.yaml`` with comments kept."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hermes_core.catalog import install as mechanics
from hermes_core.catalog.catalog import Catalog, Entry, load_catalog, refusal
from hermes_core.catalog.probe import ProbedTool, probe_tools
from hermes_core.catalog.selection import (
    excluded_filter,
    family_enabled,
    filter_for_choice,
    filter_without_probe,
    prechecked,
    prior_filter,
    with_tools,
)
from hermes_core.config import store
from hermes_core.config.dotenv_file import update_dotenv
from hermes_core.config.interpolate import load_dotenv
from hermes_core.host.factory import HostFactory
from hermes_core.plugin_yaml import _plain
from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["Checklist", "InstallRefused", "apply_choice", "checklist", "install", "raw_servers"]


class InstallRefused(ValueError):
    """Why nothing was installed (the sentence the page shows)."""


def raw_servers(manager: HermesPluginManager) -> dict[str, Any]:
    """The raw ``mcp_servers`` mapping of config.yaml."""
    loaded = HostFactory.from_manager(manager).load_config(strict=False)
    if loaded.tree is not None and isinstance(loaded.tree.get("mcp_servers"), dict):
        return dict(_plain(loaded.tree["mcp_servers"]))
    return {}


def _entry(found: Catalog, name: str) -> Entry:
    entry = found.entries.get(name)
    if entry is None:
        raise InstallRefused(found.broken.get(name) or f"no catalog entry named {name!r}")
    return entry


def _keys(entry: Entry, given: Mapping[str, str]) -> dict[str, str]:
    assert entry.manifest is not None
    existing = load_dotenv()
    values: dict[str, str] = {}
    for key in entry.manifest.auth.keys:
        answer = given.get(key.name, "").strip()
        if not answer and key.name in existing:
            continue  # kept as it is
        answer = answer or (key.default or "")
        if not answer:
            if key.required:
                raise InstallRefused(f"{key.name} is required; nothing was installed")
            continue
        values[key.name] = answer
    return values


def install(manager: HermesPluginManager, name: str, given: Mapping[str, str]) -> list[str]:
    """Install entry *name* with the keys *given*; what was done, one sentence a line."""
    entry = _entry(load_catalog(manager), name)
    if entry.future is not None:
        raise InstallRefused(
            f"'{name}' requires a newer Hermes (manifest_version "
            f"{entry.future.manifest_version}; this Hermes reads 1): update Hermes"
        )
    refused = refusal(entry, manager.display_names.get(name))
    if refused is not None:
        raise InstallRefused(refused)
    manifest = entry.manifest
    assert manifest is not None
    keys = _keys(entry, given)
    done: list[str] = []
    folder = None
    if manifest.installs:
        try:
            folder, log_file = mechanics.install_code(manifest, lambda *_step: None)
        except mechanics.InstallError as exc:
            raise InstallRefused(
                f"{exc}; nothing was installed (log: {mechanics.log_path(name)})"
            ) from None
        done.append(f"installed into {folder} (log: {log_file})")
    if keys:
        update_dotenv(keys)
        done.append(f"saved {', '.join(keys)} to $HERMES_HOME/.env (mode 0600)")
    previous = raw_servers(manager).get(name)
    previous = previous if isinstance(previous, dict) else None
    include, exclude = prior_filter(previous)
    made = mechanics.server_entry(manifest, folder)
    if previous and "tools" in previous:
        made["tools"] = previous["tools"]
    if manifest.tools.default_excluded is not None:
        chosen = excluded_filter(include, exclude, manifest.tools.default_excluded)
    else:
        chosen = filter_without_probe(include, exclude, manifest.tools.default_enabled)
    made = with_tools(made, chosen)
    done.extend(f"warning: {w}" for w in store.add_server(name, made, replace=previous is not None))
    done.append(f"{'updated' if previous is not None else 'added'} mcp_servers.{name}")
    if made.get("auth") == "oauth":
        done.append(f"sign in with `hermes mcp login {name}`, then choose its tools here")
    if manifest.auth.sign_in is not None:
        done.append(
            f"sign in to {manifest.auth.sign_in.provider} first: {manifest.auth.sign_in.run}"
        )
    return done


class Checklist:
    """A configured server's tools as the server lists them, and which are checked now."""

    def __init__(self, tools: list[ProbedTool], checked: set[str], problem: str | None) -> None:
        self.tools = tools
        self.checked = checked
        self.problem = problem


def checklist(manager: HermesPluginManager, name: str) -> Checklist:
    """Ask server *name* for its tools (as ``hermes mcp configure``) and pre-check them."""
    entry = raw_servers(manager).get(name)
    if not isinstance(entry, dict):
        raise InstallRefused(f"no server named {name!r} in config.yaml")
    listed = load_catalog(manager).entries.get(name)
    manifest = listed.manifest if listed is not None else None
    tools, problem = probe_tools(name, entry, manager)
    include, exclude = prior_filter(entry)
    default = manifest.tools.default_enabled if manifest is not None else None
    own = [t.name for t in tools if t.family is None]
    checked = prechecked(own, include, exclude, default)
    for tool in tools:
        if tool.family is not None and family_enabled(entry, tool.family):
            checked.add("@" + tool.family)
    return Checklist(tools, checked, problem or (None if tools else "the server lists no tools"))


def apply_choice(
    manager: HermesPluginManager, name: str, tools: list[str], families: list[str], picked: set[str]
) -> str:
    """Write the choice (``tools.include`` / the family switches) to config.yaml."""
    entry = raw_servers(manager).get(name)
    if not isinstance(entry, dict):
        raise InstallRefused(f"no server named {name!r} in config.yaml")
    chosen = filter_for_choice(tools, [t for t in tools if t in picked])
    switches = {fam: "@" + fam in picked for fam in families}
    updated = with_tools(entry, chosen, switches)
    if updated != entry:
        store.add_server(name, updated, replace=True)
    if "include" in chosen:
        picked_names = ", ".join(chosen["include"]) or "none"
        return f"'{name}': {len(chosen['include'])} tools enabled ({picked_names})"
    return f"'{name}': all tools enabled"
