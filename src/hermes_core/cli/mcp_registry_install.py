"""``hermes mcp install REGISTRY_NAME[@VERSION]`` (a name with a ``/``, or ``--registry``) and
``hermes mcp install ./file.mcpb``: the unvetted ways in.  A catalog name falls through to the
catalog's install (:mod:`.mcp_install`).  Reference: ``docs/registry.md``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from hermes_core.catalog.catalog import Entry, refusal
from hermes_core.catalog.registry.client import Listed, RegistryClient, RegistryError
from hermes_core.catalog.registry.entry import (
    Choice,
    PlanError,
    choose,
    config_name,
    described,
    entry_for,
    questions,
)
from hermes_core.catalog.registry.records import InstallRecord
from hermes_core.catalog.registry.registries import (
    Registry,
    configured_registries,
    pick_registries,
)
from hermes_core.catalog.registry.server_json import ServerJson
from hermes_core.cli.common import EXIT_FAILED, EXIT_USAGE, PluginLoader
from hermes_core.cli.loading import factory_for
from hermes_core.cli.mcp_bundle_install import install_bundle, is_bundle_target
from hermes_core.cli.mcp_catalog import catalog_guard
from hermes_core.cli.prompts import shown
from hermes_core.cli.stop import Stop
from hermes_core.cli.unvetted_install import (
    ask,
    asks_lines,
    check_name_free,
    confirm_install,
    finish,
)
from hermes_core.config.errors import ConfigError
from hermes_core.plugins.manager import HermesPluginManager
from hermes_platform.declaration import DeclarationError, parse_declaration

__all__ = ["find_server", "install_from_registry", "registries_for", "run"]


def _is_registry_target(args: argparse.Namespace) -> bool:
    name = str(args.name)
    if getattr(args, "registry", None):
        return True
    return "/" in name and not name.startswith("official/")


def run(args: argparse.Namespace, plugins: PluginLoader) -> int | None:
    """The registry or bundle install; ``None`` for a catalog name (the next handler runs)."""
    options = {
        "assume_yes": args.yes,
        "as_name": getattr(args, "as_name", None),
    }
    if is_bundle_target(args.name):
        return install_bundle(plugins(), args.name, sha256=args.sha256, **options)
    if not _is_registry_target(args):
        if args.sha256 or args.package or args.as_name:
            print(
                "error: --sha256, --package and --name are for registry and bundle installs "
                f"({args.name!r} is a catalog name)",
                file=sys.stderr,
            )
            return EXIT_USAGE
        return None
    return install_from_registry(
        plugins(), args.name, registry=args.registry, package=args.package, **options
    )


def registries_for(manager: HermesPluginManager, wanted: str | None) -> list[Registry]:
    """The registries to ask: ``config.yaml``'s ``registries:`` (or the official one), or the
    one ``--registry`` names."""
    loaded = factory_for(manager).load_config(strict=False)
    try:
        return pick_registries(configured_registries(loaded), wanted)
    except ConfigError as exc:  # every problem of the block, each on its line
        for problem in (exc, *exc.more):
            print(f"error: {problem}", file=sys.stderr)
        raise Stop(EXIT_USAGE) from None
    except ValueError as exc:
        raise Stop(EXIT_USAGE, str(exc)) from None


def find_server(registries: list[Registry], name: str, version: str) -> Listed:
    """*name* at *version* from the first registry that has it; exit 2 when none has."""
    for registry in registries:
        try:
            listed = RegistryClient(registry).server(name, version)
        except RegistryError as exc:
            raise Stop(EXIT_FAILED, str(exc)) from None
        if listed is not None:
            if listed.server is None:
                raise Stop(EXIT_FAILED, f"{name}: {listed.problem}")
            return listed
    asked = ", ".join(f"{r.name} ({r.url})" for r in registries)
    at = "" if version == "latest" else f" version {version}"
    raise Stop(
        EXIT_USAGE,
        f"no server named {name!r}{at} in {asked}; look for it with `hermes mcp search`",
    )


def _split(target: str) -> tuple[str, str]:
    head, sep, version = target.rpartition("@")
    if sep and "/" in head and version and "/" not in version:
        return head, version
    return target, "latest"


def _refused(server: ServerJson, name: str, manager: HermesPluginManager) -> str | None:
    own = None
    if server.declaration is not None:
        where = f"{server.name} (server.json _meta)"
        try:
            own = parse_declaration(
                name,
                raw_app=server.declaration.get("app"),
                raw_requires=server.declaration.get("requires"),
                where=where,
            )
        except DeclarationError as exc:
            return f"{server.name}: its app declaration is invalid: {exc}"
    entry = Entry(name, server.name, "registry", own_declaration=own)
    return refusal(entry, manager.display_names.get(name))


def trust_lines(
    server: ServerJson, listed: Listed, choice: Choice, entry: dict[str, Any]
) -> list[str]:
    """What will run, from where, marked unvetted."""
    registry = listed.registry
    lines = [
        f"Install '{shown(server.name)}' {shown(server.version)} from registry {registry.name} "
        f"({registry.url})",
        "  UNVETTED: not reviewed for the Hermes catalog; check what it runs before you agree",
    ]
    if server.description:
        lines.append(f"  {shown(server.description)}")
    if server.repository_url:
        lines.append(f"  repository: {shown(server.repository_url)}")
    if server.website_url:
        lines.append(f"  website:   {shown(server.website_url)}")
    if listed.status and listed.status != "active":
        lines.append(f"  status:    {shown(listed.status)} (the registry says so)")
    if choice.package is not None:
        p = choice.package
        base = f" from {shown(p.registry_base_url)}" if p.registry_base_url else ""
        version = f" {shown(p.version)}" if p.version else ""
        lines.append(f"  package:   {p.registry_type} {shown(p.identifier)}{version}{base}")
        lines.append(f"  runs:      {shown(described(choice, entry), 400)}")
        for key, value in entry.get("env", {}).items():
            lines.append(f"  env:       {shown(key)}={shown(value)}")
    else:
        sse = " (sse)" if entry.get("transport") == "sse" else ""
        lines.append(f"  connects:  {shown(entry['url'])}{sse}")
        for key, value in entry.get("headers", {}).items():
            lines.append(f"  header:    {shown(key)}: {shown(value)}")
    if server.unknown:
        fields = ", ".join(shown(u, 60) for u in server.unknown[:12])
        lines.append(f"  note:      fields this Hermes does not read (ignored): {fields}")
    return lines


def install_from_registry(
    manager: HermesPluginManager,
    target: str,
    *,
    registry: str | None = None,
    package: str | None = None,
    assume_yes: bool = False,
    as_name: str | None = None,
) -> int:
    """Resolve *target* in the registries, show it (unvetted), ask, write, choose tools."""

    def action() -> int:
        server_name, version = _split(target)
        listed = find_server(registries_for(manager, registry), server_name, version)
        server = listed.server
        assert server is not None
        if listed.status == "deleted":
            raise Stop(EXIT_FAILED, f"{server.name} was deleted from the registry")
        name = as_name or config_name(server.name)
        refused = _refused(server, name, manager)
        if refused is not None:
            raise Stop(EXIT_FAILED, refused)
        try:
            choice = choose(server, package)
        except PlanError as exc:
            raise Stop(EXIT_FAILED, str(exc)) from None
        previous = check_name_free(manager, name, server.name)
        if choice.kind == "mcpb":
            assert choice.package is not None
            return install_bundle(
                manager,
                choice.package.identifier,
                sha256=choice.package.file_sha256,
                assume_yes=assume_yes,
                as_name=name,
                registry=(listed, server),
                required_sha=True,
            )
        asked = questions(choice, name)
        everything = {q.variable for q in asked}
        draft, runner = entry_for(choice, name, everything)
        for line in trust_lines(server, listed, choice, draft):
            print(line)
        for line in asks_lines(asked):
            print(line)
        if runner is not None:
            print(f"  {runner.state}: {runner.sentence} (saved disabled until then)")
        if not confirm_install(name, assume_yes=assume_yes):
            return EXIT_FAILED
        values, answered = ask(asked)
        made, runner = entry_for(choice, name, answered)
        record = InstallRecord(
            name=name,
            kind="registry",
            version=server.version,
            package=choice.kind,
            server=server.name,
            registry=listed.registry.url,
        )
        return finish(manager, name, made, values, record, previous, runner)

    return catalog_guard(action)
