"""The install screen of an unvetted server (a registry's, a bundle's): where it comes from,
UNVETTED, and everything it runs in full (:mod:`hermes_core.catalog.command_line`), then each
value it asks for."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from hermes_core.catalog.command_line import CommandLineTooLong, one_line, run_lines
from hermes_core.catalog.install_plan import InstallRefused
from hermes_core.catalog.registry.bundle import BundleManifest
from hermes_core.catalog.registry.client import Listed
from hermes_core.catalog.registry.entry import Choice, Question
from hermes_core.catalog.registry.server_json import ServerJson
from hermes_platform.runners import MissingRunner

__all__ = ["asks_lines", "bundle_lines", "registry_lines", "running_lines"]

UNVETTED = "  UNVETTED: not reviewed for the Hermes catalog; check what it runs before you agree"


def running_lines(entry: Mapping[str, object], label: str, suffix: str = "") -> list[str]:
    """``runs:``/``env:`` (or ``connects:``/``header:``) lines, each in full;
    :class:`InstallRefused` when what runs is too long to show."""
    try:
        rows = run_lines(entry, label)
    except CommandLineTooLong as exc:
        raise InstallRefused(str(exc)) from None
    return [
        f"  {field + ':':<10} {text}{suffix if field in ('runs', 'connects') else ''}"
        for field, text in rows
    ]


def asks_lines(questions: Sequence[Question]) -> list[str]:
    """``asks for:`` lines."""
    lines = []
    for q in questions:
        kind = "secret" if q.secret else "value"
        need = "required" if q.required else "optional"
        default = f", default {one_line(q.default, 80)}" if q.default and not q.secret else ""
        lines.append(
            f"  asks for:  {q.variable} ({kind}, {need}{default}; saved to $HERMES_HOME/.env)"
            f" — {one_line(q.prompt, 120)}"
        )
    return lines


def _runner_line(runner: MissingRunner | None) -> list[str]:
    if runner is None:
        return []
    return [f"  {runner.state}: {runner.sentence} (saved disabled until then)"]


def registry_lines(
    server: ServerJson,
    listed: Listed,
    choice: Choice,
    entry: dict[str, object],
    questions: Sequence[Question],
    runner: MissingRunner | None,
) -> list[str]:
    """What will run, from where, marked unvetted."""
    registry = listed.registry
    lines = [
        f"Install '{one_line(server.name)}' {one_line(server.version)} from registry "
        f"{registry.name} ({registry.url})",
        UNVETTED,
    ]
    if server.description:
        lines.append(f"  {one_line(server.description)}")
    if server.repository_url:
        lines.append(f"  repository: {one_line(server.repository_url)}")
    if server.website_url:
        lines.append(f"  website:   {one_line(server.website_url)}")
    if listed.status and listed.status != "active":
        lines.append(f"  status:    {one_line(listed.status)} (the registry says so)")
    label = f"{one_line(server.name)} {one_line(server.version)}"
    if choice.package is not None:
        p = choice.package
        base = f" from {one_line(p.registry_base_url)}" if p.registry_base_url else ""
        version = f" {one_line(p.version)}" if p.version else ""
        lines.append(f"  package:   {p.registry_type} {one_line(p.identifier)}{version}{base}")
        lines.extend(running_lines(entry, label))
    else:
        sse = " (sse)" if entry.get("transport") == "sse" else ""
        lines.extend(running_lines(entry, label, sse))
    if server.unknown:
        fields = ", ".join(one_line(u, 60) for u in server.unknown[:12])
        lines.append(f"  note:      fields this Hermes does not read (ignored): {fields}")
    return [*lines, *asks_lines(questions), *_runner_line(runner)]


def bundle_lines(
    source: str,
    digest: str,
    manifest: BundleManifest,
    folder: Path,
    entry: dict[str, object],
    questions: Sequence[Question],
    runner: MissingRunner | None,
    registry: tuple[Listed, ServerJson] | None,
) -> list[str]:
    title = manifest.display_name or manifest.name
    lines = []
    if registry is not None:
        listed, server = registry
        lines.append(f"From registry {listed.registry.name} ({listed.registry.url}): {server.name}")
    lines += [
        f"Install bundle '{one_line(title)}' {one_line(manifest.version)} from "
        f"{one_line(source, 300)}",
        UNVETTED,
        f"  sha256:    {digest}",
    ]
    if manifest.description:
        lines.append(f"  {one_line(manifest.description)}")
    lines.append(f"  into:      {folder}")
    label = f"bundle '{one_line(manifest.name)}'"
    lines.extend(running_lines(entry, label, f" ({manifest.server_type} server)"))
    if manifest.unknown:
        fields = ", ".join(one_line(u, 60) for u in manifest.unknown[:12])
        lines.append(f"  note:      manifest fields this Hermes does not read (ignored): {fields}")
    return [*lines, *asks_lines(questions), *_runner_line(runner)]
