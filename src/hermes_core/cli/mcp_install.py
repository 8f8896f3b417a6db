"""``hermes mcp install`` and ``hermes mcp configure``: install a catalog entry (show what will
run, ask, fetch and bootstrap it, ask its keys, add it to ``config.yaml``) and choose the tools
of a configured server (a checklist; the server is asked for its tools).

Reference: ``docs/catalog.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hermes_core.catalog import install as mechanics
from hermes_core.catalog.catalog import Entry, refusal
from hermes_core.catalog.install import install_dir, server_entry
from hermes_core.catalog.manifest import Manifest
from hermes_core.catalog.probe import probe_tools
from hermes_core.catalog.selection import (
    excluded_filter,
    family_enabled,
    filter_for_choice,
    filter_without_probe,
    prechecked,
    prior_filter,
    with_tools,
)
from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, PluginLoader
from hermes_core.cli.disabled_save import say_probe_failed, say_runner_missing
from hermes_core.cli.loading import factory_for
from hermes_core.cli.mcp_catalog import (
    catalog_guard,
    configured_servers,
    entry_named,
    found_catalog,
    print_error,
)
from hermes_core.cli.progress import Activity
from hermes_core.cli.prompts import Row, ask_value, checklist, confirm, interactive, shown
from hermes_core.cli.stop import Stop
from hermes_core.config import store
from hermes_core.config.dotenv_file import dotenv_path, update_dotenv
from hermes_core.config.errors import ConfigError
from hermes_core.config.interpolate import load_dotenv
from hermes_core.config.kinds import ServerKinds
from hermes_core.config.loader import validate_server
from hermes_core.config.secret_lift import VariableNames, lift_secrets
from hermes_core.plugins.manager import HermesPluginManager
from hermes_platform.runners import missing_runner

__all__ = ["configure", "install", "run_configure", "run_install"]


def run_install(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp install NAME [--yes]``."""
    return install(plugins(), args.name, assume_yes=args.yes)


def run_configure(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp configure NAME``."""
    return configure(plugins(), args.name)


def _plan(entry: Entry, manifest: Manifest) -> list[str]:

    lines = [f"Install '{entry.name}' from {entry.origin}", f"  {shown(manifest.description)}"]
    if manifest.homepage:
        lines.append(f"  homepage:  {shown(manifest.homepage)}")
    lines.append(f"  manifest:  {entry.where}")
    folder = install_dir(entry.name)
    if manifest.source is not None:
        ref = manifest.source.ref or "the default branch"
        lines.append(f"  source:    {shown(manifest.source.git)} at {shown(ref)}")
    if manifest.installs:
        lines.append(f"  into:      {folder}")
    for number, command in enumerate(manifest.install.bootstrap, 1):
        lines.append(f"  bootstrap {number}: {shown(command, 400)}")
    made = server_entry(manifest, folder if manifest.installs else None)
    # Shown as it will be written: a literal secret as the ${VAR} that config.yaml will hold.
    lift_secrets(entry.name, made, VariableNames(os.environ, load_dotenv()))
    if "command" in made:
        lines.append(
            f"  runs:      {shown(' '.join([made['command'], *made.get('args', [])]), 400)}"
        )
        runner = missing_runner(made["command"])
        if runner is not None:
            lines.append(f"  {runner.state}: {runner.sentence} (saved disabled until then)")
        for key, value in made.get("env", {}).items():
            lines.append(f"  env:       {key}={shown(value)}")
    else:
        auth = " (OAuth sign-in)" if made.get("auth") == "oauth" else ""
        lines.append(f"  connects:  {shown(made['url'])}{auth}")
    if manifest.auth.provider is not None:
        lines.append(f"  auth:      {shown(manifest.auth.provider)} (a plugin's auth provider)")
    for key in manifest.auth.keys:
        kind = "secret" if key.secret else "value"
        need = "required" if key.required else "optional"
        lines.append(f"  asks for:  {key.name} ({kind}, {need}; saved to $HERMES_HOME/.env)")
    if manifest.auth.sign_in is not None:
        sign = manifest.auth.sign_in
        lines.append(f"  sign-in:   {shown(sign.provider)}: run `{shown(sign.run)}` yourself")
    if manifest.tools.default_excluded is not None:
        lines.append(f"  tools:     all except {', '.join(manifest.tools.default_excluded)}")
    elif manifest.tools.default_enabled is not None:
        lines.append(f"  tools:     starts with {', '.join(manifest.tools.default_enabled)}")
    return lines


def _check_provider(manager: HermesPluginManager, name: str, manifest: Manifest) -> None:
    """An entry naming a plugin's auth provider installs only where that plugin is loaded."""
    wanted = manifest.auth.provider
    if wanted is None:
        return
    registered = manager.auth_providers()
    if wanted not in registered:
        listed = ", ".join(registered) or "none"
        raise Stop(
            EXIT_FAILED,
            f"'{name}' signs in with the auth provider {shown(wanted)!r}, which no installed "
            f"plugin registers (registered: {listed}); install the plugin that provides it, "
            "then try again (nothing was installed)",
        )


def _ask_keys(manifest: Manifest, *, assume_yes: bool) -> dict[str, str]:

    existing = load_dotenv()
    values: dict[str, str] = {}
    ask = interactive()
    for key in manifest.auth.keys:
        label = shown(key.prompt or key.name)
        have = existing.get(key.name)
        if ask:
            if have is not None and confirm(f"{key.name} is already in .env; keep it?", True):
                continue
            answer = ask_value(f"{label} ({key.name}):", secret=key.secret, default=key.default)
            answer = answer.strip() or (key.default or "")
        else:
            if have is not None:
                continue
            answer = os.environ.get(key.name, "").strip() or (key.default or "")
        if not answer:
            if key.required:
                how = (
                    "" if ask else f" (set {key.name} in the environment or install on a terminal)"
                )
                raise Stop(EXIT_USAGE, f"{key.name} is required; nothing was installed{how}")
            continue
        values[key.name] = answer
    return values


def install(manager: HermesPluginManager, name: str, *, assume_yes: bool = False) -> int:
    """Show what will run, ask, fetch and bootstrap, ask keys, write config, choose tools."""

    def run() -> int:

        found = found_catalog(manager)
        entry = entry_named(found, name)
        if entry.future is not None:
            raise Stop(
                EXIT_FAILED,
                f"⚠ '{entry.name}' requires a newer Hermes (manifest_version "
                f"{entry.future.manifest_version}; this Hermes reads 1): update Hermes, then "
                "try again",
            )
        manifest = entry.manifest
        assert manifest is not None
        refused = refusal(entry, manager.display_names.get(entry.name))
        if refused is not None:
            raise Stop(EXIT_FAILED, refused)
        _check_provider(manager, entry.name, manifest)
        _policy_check(manager, entry.name, manifest)
        for line in _plan(entry, manifest):
            print(line)
        if not assume_yes:
            if not interactive():
                raise Stop(EXIT_USAGE, "no terminal to ask on: add --yes to install without asking")
            if not confirm(f"Install '{entry.name}'?", default=False):
                print("nothing was installed")
                return EXIT_FAILED
        # Every precondition before anything on disk changes: config.yaml readable and
        # editable for this entry (a duplicate key, a read-only file …), .env writable.
        _servers, raw = configured_servers(manager)
        previous = raw.get(entry.name) if isinstance(raw.get(entry.name), dict) else None
        target = install_dir(entry.name) if manifest.installs else None
        kinds = _kinds(manager)
        store.check_add(
            entry.name,
            _made(manifest, target, previous),
            replace=previous is not None,
            kinds=kinds,
        )
        _check_dotenv_writable()
        keys = _ask_keys(manifest, assume_yes=assume_yes)
        folder = None
        with contextlib.ExitStack() as undo:
            if manifest.installs:
                with Activity(f"installing '{entry.name}'…", announce=False) as activity:

                    def progress(step: int, steps: int, what: str) -> None:
                        print(f"[{step}/{steps}] {shown(what, 300)}", flush=True)
                        activity.update(f"[{step}/{steps}] {shown(what, 100)}…")

                    try:
                        folder, log_file = undo.enter_context(
                            mechanics.installing(manifest, progress)
                        )
                    except mechanics.InstallError as exc:
                        activity.__exit__(None, None, None)  # the spinner off before the error
                        log_file = mechanics.log_path(entry.name)
                        print_error(f"{exc}; nothing was installed")
                        _show_log_tail(log_file)
                        return EXIT_FAILED
                print(f"installed into {folder} (log: {log_file})")
            # A failure from here on puts back the previous install (the `with`) and .env.
            undo.enter_context(_restoring(dotenv_path()))
            made = _made(manifest, folder, previous)
            # One rule with add, import and export: literal secrets go to .env, not config.
            lifted = lift_secrets(entry.name, made, VariableNames(os.environ, load_dotenv()))
            values = {**keys, **lifted}
            if values:
                update_dotenv(values)
                print(f"saved {', '.join(values)} to $HERMES_HOME/.env (mode 0600)")
            include, exclude = prior_filter(previous)
            if manifest.tools.default_excluded is not None:
                made = with_tools(
                    made, excluded_filter(include, exclude, manifest.tools.default_excluded)
                )
            runner = missing_runner(made.get("command"))
            if runner is not None:
                made = {**made, "enabled": False}
            for warning in store.add_server(
                entry.name, made, replace=previous is not None, kinds=kinds
            ):
                print(f"warning: {warning}", file=sys.stderr)
        print(f"{'updated' if previous is not None else 'added'} mcp_servers.{entry.name}")
        code = EXIT_OK
        if runner is not None:  # as `hermes mcp add` does: disabled, exit 1
            _apply_without_probe(entry.name, made, manifest)
            say_runner_missing(entry.name, runner)
            code = EXIT_FAILED
        elif manifest.tools.default_excluded is not None:
            chosen = made.get("tools", {})
            if "exclude" in chosen:
                print(
                    f"tools: all except {', '.join(chosen['exclude'])} "
                    f"(edit mcp_servers.{entry.name}.tools.exclude to change)"
                )
        elif made.get("auth") == "oauth":
            print(
                f"sign in with `hermes mcp login {entry.name}`, then choose its tools with "
                f"`hermes mcp configure {entry.name}`"
            )
            _apply_without_probe(entry.name, made, manifest, kinds)
        else:
            code = _choose_tools(manager, entry.name, made, manifest)
        if manifest.auth.sign_in is not None:
            sign = manifest.auth.sign_in
            print(f"sign in to {shown(sign.provider)} first if you have not: {shown(sign.run)}")
        if manifest.notes:
            print(f"note: {shown(manifest.notes, 600)}")
        return code

    return catalog_guard(run)


def _policy_check(manager: HermesPluginManager, name: str, manifest: Manifest) -> None:
    """Stop before anything is fetched when the administrator's policy refuses the entry
    the install would write."""
    folder = install_dir(name) if manifest.installs else None
    cfg, problems, _warnings = validate_server(name, server_entry(manifest, folder))
    if cfg is None or problems:
        return  # the entry's own problems are reported where it is written
    try:
        refused = factory_for(manager).refused(name, cfg)
    except ConfigError as exc:
        raise Stop(EXIT_USAGE, str(exc)) from None
    if refused is not None:
        raise Stop(EXIT_FAILED, f"{refused}; nothing was installed")


def _made(
    manifest: Manifest, folder: Path | None, previous: dict[str, Any] | None
) -> dict[str, Any]:
    """The entry an install writes (a previous entry's tool choice kept)."""
    made = mechanics.server_entry(manifest, folder)
    kept = {"tools": previous["tools"]} if previous and "tools" in previous else {}
    return {**made, **kept}


def _check_dotenv_writable() -> None:
    path = dotenv_path()
    folder = path.parent if path.parent.exists() else path.parent.parent
    if (path.exists() and not os.access(path, os.W_OK)) or not os.access(folder, os.W_OK):
        raise Stop(EXIT_USAGE, f"{path}: cannot write the file; nothing was installed")


@contextlib.contextmanager
def _restoring(path: Path) -> Iterator[None]:
    """Put *path* (``.env``) back as it was when the block fails."""
    try:
        before: bytes | None = path.read_bytes()
    except FileNotFoundError:
        before = None
    try:
        yield
    except BaseException:
        with contextlib.suppress(OSError):
            if before is None:
                path.unlink(missing_ok=True)
            else:
                path.write_bytes(before)
        raise


def _show_log_tail(log_file: Path) -> None:
    try:
        lines = log_file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return
    print(f"last lines of {log_file}:", file=sys.stderr)
    for line in lines[-12:]:
        print(f"  {shown(line, 300)}", file=sys.stderr)


def _kinds(manager: HermesPluginManager) -> ServerKinds:
    """What the entry may select: the loaded plugins' transports and auth providers."""
    return ServerKinds.of(manager.transports(), manager.auth_providers())


def _write_tools(
    name: str,
    entry: dict[str, Any],
    chosen: dict[str, list[str]],
    families: dict[str, bool] | None = None,
    *,
    kinds: ServerKinds | None = None,
) -> dict[str, Any]:

    updated = with_tools(entry, chosen, families)
    if updated != entry:
        store.add_server(name, updated, replace=True, kinds=kinds)
    return updated


def _describe_filter(name: str, chosen: dict[str, list[str]]) -> str:
    if "include" in chosen:
        picked = chosen["include"]
        return f"tools: {len(picked)} enabled ({', '.join(picked) or 'none'})"
    if "exclude" in chosen:
        return f"tools: all except {', '.join(chosen['exclude'])}"
    return "tools: all enabled"


def _describe_offer(
    name: str, chosen: dict[str, list[str]], own: list[str], utilities: list[str]
) -> str:
    """What the server is offered with: its own tools chosen and the utility tools of its
    resources and prompts, counted together (the count is what ``hermes mcp tools`` lists)."""
    described = _describe_filter(name, chosen)
    if not utilities:
        return described
    if "exclude" in chosen:
        return f"{described}, with the utility tools {', '.join(utilities)}"
    listed = f"({', '.join(own) or 'none of its own'}; utility tools: {', '.join(utilities)})"
    count = len(own) + len(utilities)
    return f"tools: {count} enabled {listed}" if chosen else f"tools: all {count} enabled {listed}"


def _apply_without_probe(
    name: str, entry: dict[str, Any], manifest: Manifest | None, kinds: ServerKinds | None = None
) -> None:

    include, exclude = prior_filter(entry)
    default = manifest.tools.default_enabled if manifest is not None else None
    chosen = filter_without_probe(include, exclude, default)
    _write_tools(name, entry, chosen, kinds=kinds)
    print(_describe_filter(name, chosen))


def _choose_tools(
    manager: HermesPluginManager,
    name: str,
    entry: dict[str, Any],
    manifest: Manifest | None,
    *,
    require_terminal: bool = False,
) -> int:

    print(f"asking '{name}' for its tools…", flush=True)
    with Activity(f"starting '{name}' to list its tools…", announce=False):
        tools, problem = probe_tools(name, entry, manager)
    include, exclude = prior_filter(entry)
    default = manifest.tools.default_enabled if manifest is not None else None
    if problem is not None or not tools:
        why = shown(problem or "the server lists no tools", 300)
        print(f"warning: could not list the tools of '{name}': {why}", file=sys.stderr)
        if require_terminal:  # configure: nothing to choose from, nothing changed
            return EXIT_FAILED
        chosen = filter_without_probe(include, exclude, default)
        if problem is not None:  # as `hermes mcp add` does: saved disabled, exit 1
            disabled = with_tools({**entry, "enabled": False}, chosen)
            store.add_server(name, disabled, replace=True, kinds=_kinds(manager))
            print(_describe_filter(name, chosen))
            say_probe_failed(name, problem)
            print(f"then choose its tools with `hermes mcp configure {name}`")
            return EXIT_FAILED
        _write_tools(name, entry, chosen, kinds=_kinds(manager))
        print(_describe_filter(name, chosen))
        print(f"the server is installed; when it is reachable run `hermes mcp configure {name}`")
        return EXIT_OK
    own = [t for t in tools if t.family is None]
    names = [t.name for t in own]
    checked = prechecked(names, include, exclude, default)
    families: dict[str, list[str]] = {}
    for tool in tools:
        if tool.family is not None:
            families.setdefault(tool.family, []).append(tool.name)
    for family in families:
        if family_enabled(entry, family):
            checked.add("@" + family)
    if interactive():
        rows = [Row(t.name, shown(t.name, 60), t.description) for t in own]
        rows += [
            Row("@" + fam, f"({fam})", f"the generated tools {', '.join(members)}")
            for fam, members in families.items()
        ]
        count = f"{len(own)} tool{'s' if len(own) != 1 else ''}"  # the utility rows not counted
        picked = set(checklist(f"Select tools for '{name}' ({count})", rows, checked))
    else:
        picked = checked
    chosen = filter_for_choice(names, [n for n in names if n in picked])
    switches = {fam: "@" + fam in picked for fam in families}
    _write_tools(name, entry, chosen, switches, kinds=_kinds(manager))
    utilities = [tool for fam, members in families.items() if switches[fam] for tool in members]
    print(_describe_offer(name, chosen, [n for n in names if n in picked], utilities))
    off = [fam for fam, on in switches.items() if not on]
    if off:
        print(f"utility tools off: {', '.join(off)}")
    return EXIT_OK


# --------------------------------------------------------------------------- configure


def configure(manager: HermesPluginManager, name: str) -> int:
    """The tool checklist again for a configured server, pre-checked with the current choice."""

    def run() -> int:
        _servers, raw = configured_servers(manager)
        entry = raw.get(name)
        if not isinstance(entry, dict):  # said before asking for a terminal
            known = ", ".join(raw) or "none"
            raise Stop(EXIT_USAGE, f"no server named {name!r} in config.yaml (configured: {known})")
        if not interactive():
            raise Stop(EXIT_USAGE, "'hermes mcp configure' needs an interactive terminal")
        found = found_catalog(manager, quiet=True)
        listed = found.entries.get(name)
        manifest = listed.manifest if listed is not None else None
        return _choose_tools(manager, name, entry, manifest, require_terminal=True)

    return catalog_guard(run)
