"""``hermes mcp`` on a terminal: one list of the catalog and the configured servers.

ENTER on a row offers what fits its state: install (available), enable /
disable, configure (the tool checklist), remove, log in (``auth: oauth``),
reinstall.  Esc or Ctrl-C leaves.  Without a terminal ``hermes mcp`` prints
the catalog instead (:func:`hermes_core.cli.mcp_catalog.catalog`).
"""

from __future__ import annotations

import argparse
import shutil
import sys

from hermes_core.catalog.catalog import (
    AVAILABLE,
    DISABLED,
    ENABLED,
    NEEDS_RUNNER,
    NEWER,
    UNAVAILABLE,
    state_of,
)
from hermes_core.catalog.install import install_dir
from hermes_core.cli.common import PluginLoader
from hermes_core.cli.mcp_catalog import configured_servers, found_catalog
from hermes_core.cli.mcp_edit import remove, set_enabled
from hermes_core.cli.mcp_install import configure, install
from hermes_core.cli.mcp_login import login
from hermes_core.cli.prompts import Row, menu, shown
from hermes_core.cli.stop import guard
from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["picker", "picker_rows", "run"]

_QUIT = "\x00quit"
_BACK = "\x00back"


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """A bare ``hermes mcp`` on a terminal."""
    return picker(plugins())


def picker_rows(manager: HermesPluginManager) -> tuple[list[Row], dict[str, str]]:
    """The picker's rows (the catalog's entries, then the other configured servers) and each
    row's state by name."""
    found = found_catalog(manager, quiet=True)
    servers, _raw = configured_servers(manager)
    rows: list[Row] = []
    states: dict[str, str] = {}
    for entry in found.entries.values():
        state = state_of(entry, servers, manager.display_names)
        states[entry.name] = state.state
        if state.state == NEWER:
            rows.append(Row(entry.name, entry.name, state.detail))
            continue
        rows.append(Row(entry.name, entry.name, f"{state.label:<20}  {entry.description}"))
    for name, cfg in servers.items():
        if name in found.entries:
            continue
        custom = "custom — enabled" if cfg.enabled else "custom — disabled"
        states[name] = custom
        rows.append(Row(name, name, f"{custom:<20}  (configured in config.yaml)"))
    rows.append(Row(_QUIT, "(quit)", ""))
    return rows, states


def _actions(name: str, state: str, manager: HermesPluginManager) -> list[Row]:
    _servers, raw = configured_servers(manager)
    written = raw.get(name)
    entry = written if isinstance(written, dict) else {}
    actions: list[Row] = []
    if state == AVAILABLE:
        actions.append(Row("install", "install", "show what will run, then install"))
    if state == NEEDS_RUNNER:
        actions.append(Row("install", "install", "saved disabled until its runner is installed"))
    if state in (ENABLED, "custom — enabled"):
        actions.append(Row("disable", "disable", "keep the entry, stop offering its tools"))
    if state in (DISABLED, "custom — disabled"):
        actions.append(Row("enable", "enable", "offer its tools again"))
    if state in (ENABLED, DISABLED, "custom — enabled", "custom — disabled"):
        actions.append(Row("configure", "configure", "choose its tools"))
        if entry.get("auth") == "oauth":
            actions.append(Row("login", "log in", "a new OAuth login (browser)"))
        if state in (ENABLED, DISABLED):
            actions.append(Row("reinstall", "reinstall", "install again from the manifest"))
        actions.append(Row("remove", "remove", "delete the entry (and its install folder)"))
    actions.append(Row(_BACK, "(back)", ""))
    return actions


def _run(action: str, name: str, manager: HermesPluginManager) -> int:
    """Run *action* on *name*; its exit code (a :class:`Stop` inside is its code and error
    line: the picker goes on)."""
    if action in ("install", "reinstall"):
        return guard(lambda: install(manager, name))
    if action in ("enable", "disable"):
        return guard(lambda: set_enabled(name, action == "enable"))
    if action == "configure":
        return guard(lambda: configure(manager, name))
    if action == "login":
        return guard(lambda: login(name))
    code = guard(lambda: remove(name)) if action == "remove" else 0
    if action == "remove" and code == 0 and install_dir(name).is_dir():
        shutil.rmtree(install_dir(name), ignore_errors=True)
        print(f"removed {install_dir(name)} (values in $HERMES_HOME/.env are kept)")
    return code


def picker(manager: HermesPluginManager) -> int:
    """The interactive list; returns when the user leaves."""
    while True:
        rows, states = picker_rows(manager)
        name = menu("MCP servers (catalog and config.yaml)", rows)
        if name is None or name == _QUIT:
            return 0
        state = states[name]
        if state == NEEDS_RUNNER:
            found = found_catalog(manager, quiet=True)
            servers, _raw = configured_servers(manager)
            told = state_of(found.entries[name], servers, manager.display_names)
            print(f"{name}: {told.label}. {shown(told.detail, 400)}", file=sys.stderr)
        if state in (UNAVAILABLE, NEWER):
            found = found_catalog(manager, quiet=True)
            servers, _raw = configured_servers(manager)
            detail = state_of(found.entries[name], servers, manager.display_names).detail
            print(f"{name}: {shown(detail, 400)}", file=sys.stderr)
            continue
        action = menu(f"'{name}' ({state})", _actions(name, state, manager))
        if action is None or action == _BACK:
            continue
        _run(action, name, manager)
