"""``hermes mcp doctor [SERVER] [--json] [--timeout SECONDS]``: one screen per server that
says what is wrong and how to fix it (:mod:`hermes_core.doctor`); exit 0 when all is well,
1 otherwise, 2 for an unknown server or a config file that cannot be read.

Doctor changes nothing: its plugin manager remembers no entry points or catalog names in
``$HERMES_HOME/cache`` (``hermes mcp`` commands usually do), and its host writes nothing."""

from __future__ import annotations

import argparse
import json
import sys

from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_PLUGIN, EXIT_USAGE, PluginLoader
from hermes_core.cli.loading import factory_for, load
from hermes_core.cli.stop import Stop
from hermes_core.doctor.diagnose import DEFAULT_TIMEOUT, diagnose
from hermes_core.doctor.findings import ServerReport, Severity
from hermes_core.plugins.catalog_files import remember_names
from hermes_core.plugins.config_keys import env_flag, env_list
from hermes_core.plugins.errors import PluginError
from hermes_core.plugins.manager import HermesPluginManager, create_plugin_manager
from hermes_core.sanitize import clean_line
from hermes_core.spelling import closest

__all__ = ["doctor", "run"]

_MARK = {Severity.OK: "ok", Severity.WARNING: "warning", Severity.PROBLEM: "PROBLEM"}


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp doctor``."""
    del plugins  # the usual loader remembers what it found in $HERMES_HOME/cache
    try:
        manager = _manager(no_plugins=args.no_plugins)
    except PluginError as exc:  # strict mode (HERMES_STRICT_PLUGINS=1)
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_PLUGIN
    return doctor(manager, args.name, as_json=args.json, timeout=args.timeout or DEFAULT_TIMEOUT)


def _manager(*, no_plugins: bool) -> HermesPluginManager:
    """The plugins as every ``hermes`` command loads them, without writing any cache."""
    strict = env_flag("HERMES_STRICT_PLUGINS")
    remember_names(None)
    manager = create_plugin_manager(
        no_plugins=no_plugins, disabled=env_list("HERMES_DISABLE_PLUGINS"), strict=strict
    )
    manager.apply()
    return manager


def doctor(
    manager: HermesPluginManager,
    name: str | None,
    *,
    as_json: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
) -> int:
    """Examine server *name* (every configured one: ``None``) and print the screens."""

    factory = factory_for(manager)
    loaded = load(factory, strict=False)
    written = loaded.tree.get("mcp_servers") if loaded.tree is not None else None
    configured = [str(k) for k in written] if isinstance(written, dict) else []
    if name is not None and name not in configured:
        close = closest(name, configured)
        hint = f"; did you mean {close!r}?" if close else ""
        raise Stop(
            EXIT_USAGE,
            f"no server named {name!r} in {loaded.path}{hint} "
            f"(configured: {', '.join(configured) or 'none'})",
        )
    names = [name] if name is not None else configured
    reports = diagnose(factory, loaded, names, timeout=timeout)
    well = all(r.ok for r in reports)
    if as_json:
        payload = {"ok": well, "servers": [r.as_dict() for r in reports]}
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        _print(reports, str(loaded.path))
    return EXIT_OK if well else EXIT_FAILED


def _print(reports: list[ServerReport], path: str) -> None:
    if not reports:
        print(f"no servers configured in {path}; add one with `hermes mcp add`")
        return
    for report in reports:
        problems = sum(f.severity is Severity.PROBLEM for f in report.findings)
        verdict = "all is well" if problems == 0 else f"{problems} problem(s)"
        tools = f", {report.tools} tool(s)" if report.tools is not None else ""
        head = f"{report.server} ({report.transport}, {report.connection}{tools})"
        print(f"{clean_line(head)}: {verdict}")
        for finding in report.findings:
            print(f"  [{_MARK[finding.severity]}] {finding.check}: {clean_line(finding.text)}")
            if finding.fix and finding.severity is not Severity.OK:
                print(f"      fix: {clean_line(finding.fix)}")
        print()
    bad = [r.server for r in reports if not r.ok]
    if bad:
        print(
            clean_line(f"{len(bad)} of {len(reports)} server(s) need attention: {', '.join(bad)}")
        )
    else:
        print(f"all {len(reports)} server(s) are well")
