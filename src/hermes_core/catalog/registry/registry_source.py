"""Resolve ``REGISTRY_NAME[@VERSION]`` into an install plan
(:mod:`hermes_core.catalog.install_service`): the first registry that has it, the refusals
(deleted, an app that is not here, nothing this Hermes runs, a name taken by another entry),
the package or remote chosen, the screen and the values to ask.  An ``mcpb`` package is a
bundle's plan (:mod:`.bundle_source`)."""

from __future__ import annotations

from hermes_core.catalog.install_plan import InstallPlan, InstallRefused, Refusal
from hermes_core.catalog.registry.app_gate import (
    declared_lines,
    declared_refusal,
    own_declaration,
)
from hermes_core.catalog.registry.app_meta import MetaDeclaration
from hermes_core.catalog.registry.bundle_source import bundle_plan
from hermes_core.catalog.registry.client import Listed, RegistryClient, RegistryError
from hermes_core.catalog.registry.entry import (
    Choice,
    PlanError,
    choose,
    config_name,
    entry_for,
    questions,
)
from hermes_core.catalog.registry.records import InstallRecord, replaced_entry
from hermes_core.catalog.registry.registries import Registry
from hermes_core.catalog.registry.screen import registry_lines
from hermes_core.catalog.registry.server_json import ServerJson
from hermes_platform.runners import MissingRunner

__all__ = ["find_server", "registry_plan", "split_target"]


def split_target(target: str) -> tuple[str, str]:
    """``name@version`` → (name, version); no version: ``latest``."""
    head, sep, version = target.rpartition("@")
    if sep and "/" in head and version and "/" not in version:
        return head, version
    return target, "latest"


def find_server(registries: list[Registry], name: str, version: str) -> Listed:
    """*name* at *version* from the first registry that has it."""
    for registry in registries:
        try:
            listed = RegistryClient(registry).server(name, version)
        except RegistryError as exc:
            raise InstallRefused(str(exc)) from None
        if listed is not None:
            if listed.server is None:
                raise InstallRefused(f"{name}: {listed.problem}")
            return listed
    asked = ", ".join(f"{r.name} ({r.url})" for r in registries)
    at = "" if version == "latest" else f" version {version}"
    raise InstallRefused(
        f"no server named {name!r}{at} in {asked}; look for it with `hermes mcp search`",
        Refusal.USAGE,
    )


def registry_plan(
    registries: list[Registry],
    target: str,
    *,
    configured: dict[str, object],
    display_names: dict[str, str],
    package: str | None = None,
    as_name: str | None = None,
) -> InstallPlan:
    """The plan for *target* (``NAME`` or ``NAME@VERSION``) from the first of *registries*
    that has it; *configured* is ``config.yaml``'s ``mcp_servers``."""
    server_name, version = split_target(target)
    listed = find_server(registries, server_name, version)
    server = listed.server
    assert server is not None
    if listed.status == "deleted":
        raise InstallRefused(f"{server.name} was deleted from the registry")
    name = as_name or config_name(server.name)
    own = own_declaration(server.hermes_meta, name, f"{server.name} (server.json _meta)")
    refused = declared_refusal(name, server.name, own, display_names)
    if refused is not None:
        raise InstallRefused(refused)
    try:
        choice = choose(server, package)
    except PlanError as exc:
        raise InstallRefused(str(exc)) from None
    try:
        previous = replaced_entry(configured, name, server.name)
    except ValueError as exc:
        raise InstallRefused(str(exc), Refusal.USAGE) from None
    if choice.kind == "mcpb":
        assert choice.package is not None
        return bundle_plan(
            choice.package.identifier,
            sha256=choice.package.file_sha256,
            configured=configured,
            display_names=display_names,
            as_name=name,
            registry=(listed, server, own),
            required_sha=True,
        )
    return _package_plan(listed, server, choice, name, previous, own)


def _package_plan(
    listed: Listed,
    server: ServerJson,
    choice: Choice,
    name: str,
    previous: dict[str, object] | None,
    own: MetaDeclaration | None,
) -> InstallPlan:
    asked = questions(choice, name)

    def make(answered: set[str]) -> tuple[dict[str, object], MissingRunner | None]:
        return entry_for(choice, name, answered)

    draft, runner = make({q.variable for q in asked})
    return InstallPlan(
        name=name,
        title=f"'{name}' (unvetted)",
        lines=[
            *registry_lines(server, listed, choice, draft, asked, runner),
            *declared_lines(name, own),
        ],
        questions=asked,
        make=make,
        previous=previous,
        record=InstallRecord(
            name=name,
            kind="registry",
            version=server.version,
            package=choice.kind,
            server=server.name,
            registry=listed.registry.url,
            declaration=dict(own.raw) if own is not None else None,
        ),
    )
