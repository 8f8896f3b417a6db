"""``hermes apps check``: evaluate declarations on this machine and explain each state."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hermes_core.cli.common import PluginLoader
from hermes_core.host.liveness.endpoint import LiveEndpoint, live_endpoint, liveness_app
from hermes_core.host.liveness.words import not_running_sentence
from hermes_core.plugin_yaml import PluginFileError, load_plugin_file
from hermes_core.plugins.manager import HermesPluginManager
from hermes_platform import declaration
from hermes_platform.declaration import Declaration
from hermes_platform.host import gpu_class, os_family
from hermes_platform.resolver.availability import Explanation
from hermes_platform.resolver.availability import explain as explain_decl
from hermes_platform.sentences import guidance

__all__ = ["check", "collect_files", "run_check"]


def run_check(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes apps check [PATH…] [--json] [--explain]``."""
    return check(args.paths, plugins(), as_json=args.json, explain=args.explain)


@dataclass(frozen=True)
class Subject:
    """One declaration to evaluate and where it came from."""

    name: str
    declaration: Declaration
    source: str
    display_name: str | None = None


def collect_files(paths: list[str]) -> list[Path]:
    """The given files, and the ``plugin.yaml`` files below given folders."""
    found: list[Path] = []
    for target in map(Path, paths):
        if target.is_dir():
            found.extend(sorted(target.rglob("plugin.yaml")))
        else:
            found.append(target)
    return found


def _report(subject: Subject, explanation: Explanation) -> dict[str, object]:
    result = explanation.availability
    advice = guidance(subject.declaration, result, display_name=subject.display_name)
    return {
        "server": subject.name,
        "source": subject.source,
        "state": result.state,
        "offerable": result.offerable,
        "path": result.path,
        "version": result.version,
        "min_version": result.min_version,
        "sentence": advice.sentence if advice else None,
        **_running(subject),
        "explain": explanation.as_dict(),
    }


def _running(subject: Subject) -> dict[str, object]:
    """Whether a declared app that serves MCP itself (``liveness``) runs now: ``running``
    (``None``: it declares no liveness here), where it serves, and why not (never its token)."""
    app = liveness_app(subject.declaration)
    if app is None:
        return {"running": None}
    seen = live_endpoint(subject.name, subject.declaration)
    if not isinstance(seen, LiveEndpoint):
        why = seen.reason if seen is not None else "no liveness on this OS"
        sentence = not_running_sentence(subject.name, subject.display_name)
        return {
            "running": False,
            "runtime_file": app.liveness_path,
            "not_running": why,
            "running_sentence": sentence,
        }
    return {"running": True, "runtime_file": app.liveness_path, "endpoint": seen.as_dict()}


def _render(report: dict[str, object], explanation: Explanation, show_explain: bool) -> str:
    mark = "ok" if report["offerable"] else "--"
    lines = [f"[{mark}] {report['server']}: {report['state']}   ({report['source']})"]
    for label in ("path", "version", "min_version"):
        lines.append(f"     {label + ':':<13}{report[label] if report[label] is not None else '-'}")
    if report["sentence"]:
        lines.append(f"     {report['sentence']}")
    endpoint = report.get("endpoint")
    if report["running"] is True and isinstance(endpoint, Mapping):
        lines.append(
            f"     {'running:':<13}yes, serving at {endpoint['url']} (pid {endpoint['pid']})"
        )
    elif report["running"] is False:
        lines.append(f"     {'running:':<13}not running ({report['not_running']})")
        lines.append(f"     {report['running_sentence']}")
    if show_explain and report["running"] is not None:
        lines.append(f"     runtime file: {report['runtime_file']}")
    if show_explain:
        lines.append(
            f"     evaluated as {explanation.os}"
            + (f", GPU class {explanation.gpu}" if explanation.gpu else "")
        )
        if explanation.version_kind not in (None, "none"):
            lines.append(f"     version source: {explanation.version_kind}")
        for step in explanation.steps:
            lines.append(f"     - {step}")
        for location in explanation.locations:
            what = location.kind if location.kind != "path" else "path"
            extra = f" file={location.file}" if location.file else ""
            lines.append(f"     location[{location.index}] {what} {location.value}{extra}")
            if location.error:
                lines.append(f"         ! locator failed: {location.error}")
            if not location.candidates and not location.error:
                lines.append("         (no place to look on this OS)")
            for cand in location.candidates:
                found = "found    " if cand.present else "not found"
                version = ""
                if cand.version_state != "not_checked":
                    version = (
                        f"  version {cand.version}"
                        + (f" ({cand.version_detail})" if cand.version_detail else "")
                        if cand.version
                        else (f"  version unreadable ({cand.version_state}: {cand.version_detail})")
                    )
                lines.append(f"         {found} {cand.path}{version}")
    return "\n".join(lines)


def _from_files(paths: list[str]) -> list[Subject] | None:
    files = collect_files(paths)
    subjects: list[Subject] = []
    errors: list[str] = []
    if not files:
        errors.append(f"no plugin.yaml files in {', '.join(paths)}")
    for file in files:
        try:
            loaded = load_plugin_file(file)
        except PluginFileError as exc:
            errors.append(str(exc))
            continue
        assert loaded.declaration is not None
        subjects.append(Subject(loaded.name, loaded.declaration, loaded.path, loaded.display_name))
    for message in errors:
        print(f"error: {message}", file=sys.stderr)
    if errors:
        return None
    seen: dict[str, str] = {}
    for subject in subjects:
        if subject.name in seen:
            print(
                f"warning: {subject.source} declares {subject.name!r} again "
                f"(first in {seen[subject.name]}); the last one wins",
                file=sys.stderr,
            )
        seen[subject.name] = subject.source
        declaration.register(subject.name, subject.declaration)
    last = {s.name: s for s in subjects}
    return list(last.values())


def _from_plugins(manager: HermesPluginManager) -> list[Subject]:
    subjects = []
    for registered in manager.app_declarations():
        decl = declaration.lookup(registered.item.server)
        if decl is None:
            continue  # it did not parse; the plugin report says why
        source = f"plugin {registered.plugin}" + (
            f", {registered.distribution}" if registered.distribution else ""
        )
        subjects.append(Subject(registered.item.server, decl, source, registered.item.display_name))
    return subjects


def check(
    paths: list[str],
    manager: HermesPluginManager,
    *,
    as_json: bool = False,
    explain: bool = False,
) -> int:
    """Evaluate the given files, or every declaration plugins registered; print each state."""
    if paths:
        found = _from_files(paths)
        if found is None:
            return 2
        subjects = found
    else:
        subjects = _from_plugins(manager)
        if not subjects:
            print(
                "hermes apps check: no declarations: no plugin declares an app "
                "(see `hermes plugins list`); pass plugin.yaml paths to check files",
                file=sys.stderr,
            )
            return 1
    reports = []
    rendered = []
    for subject in subjects:
        explanation = explain_decl(subject.declaration, name=subject.name)
        report = _report(subject, explanation)
        reports.append(report)
        rendered.append(_render(report, explanation, explain))
    if as_json:
        payload = {"os": os_family(), "gpu_class": gpu_class(), "servers": reports}
        if not explain:
            for report in reports:
                report.pop("explain")
        print(json.dumps(payload, indent=2))
    else:
        print(f"host: {os_family()}, GPU class {gpu_class()}")
        print("\n".join(rendered))
    return 0 if all(r["offerable"] for r in reports) else 1
