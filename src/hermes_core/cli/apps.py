"""``hermes apps check``: evaluate declarations on this machine and explain each state."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from hermes_core.plugin_yaml import PluginFile, PluginFileError, load_plugin_file
from hermes_platform import declaration
from hermes_platform.host import gpu_class, os_family
from hermes_platform.resolver.availability import Explanation, explain
from hermes_platform.sentences import guidance

__all__ = ["check", "collect_files"]

DEFAULT_EXAMPLES = Path("examples")


def collect_files(paths: list[str]) -> list[Path]:
    """The given files, ``plugin.yaml`` files below given folders, or those under ./examples."""
    targets = [Path(p) for p in paths] if paths else [DEFAULT_EXAMPLES]
    found: list[Path] = []
    for target in targets:
        if target.is_dir():
            found.extend(sorted(target.rglob("plugin.yaml")))
        else:
            found.append(target)
    return found


def _report(plugin: PluginFile, explanation: Explanation) -> dict[str, Any]:
    result = explanation.availability
    advice = guidance(plugin.declaration, result, display_name=plugin.display_name)
    return {
        "server": plugin.name,
        "file": plugin.path,
        "state": result.state,
        "offerable": result.offerable,
        "path": result.path,
        "version": result.version,
        "min_version": result.min_version,
        "sentence": advice.sentence if advice else None,
        "explain": explanation.as_dict(),
    }


def _render(report: dict[str, Any], explanation: Explanation, show_explain: bool) -> str:
    mark = "ok" if report["offerable"] else "--"
    lines = [f"[{mark}] {report['server']}: {report['state']}   ({report['file']})"]
    for label in ("path", "version", "min_version"):
        lines.append(f"     {label + ':':<13}{report[label] if report[label] is not None else '-'}")
    if report["sentence"]:
        lines.append(f"     {report['sentence']}")
    if show_explain:
        lines.append(
            f"     evaluated as {explanation.os}"
            + (f", GPU class {explanation.gpu}" if explanation.gpu else "")
        )
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
                        if cand.version
                        else (f"  version unreadable ({cand.version_state}: {cand.version_detail})")
                    )
                lines.append(f"         {found} {cand.path}{version}")
    return "\n".join(lines)


def check(paths: list[str], *, as_json: bool = False, explain: bool = False) -> int:
    files = collect_files(paths)
    if not files:
        print("hermes apps check: no plugin.yaml files found; pass paths to check", file=sys.stderr)
        return 2
    plugins: list[PluginFile] = []
    errors: list[str] = []
    for file in files:
        try:
            plugins.append(load_plugin_file(file))
        except PluginFileError as exc:
            errors.append(str(exc))
    if errors:
        for message in errors:
            print(f"error: {message}", file=sys.stderr)
        return 2
    seen: dict[str, str] = {}
    for plugin in plugins:
        if plugin.name in seen:
            print(
                f"warning: {plugin.path} declares {plugin.name!r} again "
                f"(first in {seen[plugin.name]}); the last one wins",
                file=sys.stderr,
            )
        seen[plugin.name] = plugin.path
        declaration.register(plugin.name, plugin.declaration)
    reports = []
    rendered = []
    for plugin in plugins:
        current = declaration.lookup(plugin.name)
        if current is not plugin.declaration:
            continue
        explanation = _explain(plugin)
        report = _report(plugin, explanation)
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


def _explain(plugin: PluginFile) -> Explanation:
    return explain(plugin.declaration, name=plugin.name)
