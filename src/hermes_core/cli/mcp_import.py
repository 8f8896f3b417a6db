"""``hermes mcp import`` and ``hermes import-agent``.

Import: read a client's files, translate each server (``hermes_core.importing``),
show or write the result.  The write is one atomic, comment-keeping edit of
``config.yaml`` (all servers or none) after ``$HERMES_HOME/.env`` got the
secrets and input answers.  Exit 0 when every selected server was imported or
kept, 1 when one was left out (untranslatable, or an input not answered) or the
client has no configuration here, 2 for a bad file or bad usage.
"""

from __future__ import annotations

import argparse
import copy
import getpass
import io
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, PluginLoader
from hermes_core.cli.foreign_text import clean, say
from hermes_core.cli.loading import factory_for
from hermes_core.cli.masked import masked_entry
from hermes_core.config import store
from hermes_core.config.interpolate import load_dotenv
from hermes_core.config.loader import config_path, parse_yaml, validate_server
from hermes_core.config.models import ConfigError
from hermes_core.home import hermes_home
from hermes_core.importing.dotenv_update import update_dotenv
from hermes_core.importing.model import InputSpec, Skip, SourceError
from hermes_core.importing.plan import Action, ImportPlan, UnknownNames, build_plan
from hermes_core.importing.skills import import_skills
from hermes_core.importing.sources import SOURCES, read_servers
from hermes_core.yaml_lines import plain

if TYPE_CHECKING:
    pass

__all__ = ["import_agent", "import_servers", "run_import", "run_import_agent"]


def run_import(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp import SOURCE [--path FILE] [--dry-run] [--overwrite] [--only NAME…]``."""
    return import_servers(
        args.source, paths=args.path, dry_run=args.dry_run, overwrite=args.overwrite, only=args.only
    )


def run_import_agent(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes import-agent AGENT [--path FILE] [--dry-run] [--overwrite] [--only NAME…]``."""
    return import_agent(
        args.agent, paths=args.path, dry_run=args.dry_run, overwrite=args.overwrite, only=args.only
    )


# --------------------------------------------------------------------------- output


def _yaml(entry: dict[str, object], indent: str) -> str:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.default_flow_style = False
    yaml.width = 4096
    buffer = io.StringIO()
    yaml.dump(entry, buffer)
    return "".join(indent + line + "\n" for line in buffer.getvalue().splitlines())


_VERBS: dict[bool, dict[Action, str]] = {
    True: {
        Action.ADD: "would add",
        Action.REPLACE: "would replace",
        Action.KEEP: "would keep existing",
        Action.UNCHANGED: "unchanged",
        Action.SHADOWED: "would skip",
        Action.SKIP: "would leave out",
    },
    False: {
        Action.ADD: "added",
        Action.REPLACE: "replaced",
        Action.KEEP: "kept existing",
        Action.UNCHANGED: "unchanged",
        Action.SHADOWED: "skipped",
        Action.SKIP: "left out",
    },
}


def _report(plan: ImportPlan, dry_run: bool) -> None:
    for planned in plan.items:
        item = planned.item
        verb = _VERBS[dry_run][planned.action]
        origin = item.source.origin
        if planned.action in (Action.ADD, Action.REPLACE):
            say(f"{verb} '{item.name}'  (from {origin})")
            if dry_run and item.entry is not None:
                say(_yaml(masked_entry(item.entry), "    ").rstrip("\n"))
        else:
            say(f"{verb} '{item.name}'  (from {origin}): {planned.reason}")
            continue
        for skip in item.skipped:
            say(f"    not translated: {skip}")
        for note in item.notes:
            say(f"    note: {note}")
        if planned.writes and item.secrets:
            say(f"    secrets moved to .env: {', '.join(sorted(item.secrets))}")
        if planned.writes:
            for variable, spec in item.inputs.items():
                say(f"    input '{spec.id}' → ${{{variable}}}")
    for clash in plan.clashes:
        say(f"warning: {clash}", err=True)
    counts: dict[Action, int] = {}
    for planned in plan.items:
        counts[planned.action] = counts.get(planned.action, 0) + 1
    words = (
        (Action.ADD, "to add" if dry_run else "added"),
        (Action.REPLACE, "to replace" if dry_run else "replaced"),
        (Action.KEEP, "kept"),
        (Action.UNCHANGED, "unchanged"),
        (Action.SKIP, "left out"),
        (Action.SHADOWED, "shadowed"),
    )
    summary = ", ".join(f"{counts[key]} {word}" for key, word in words if counts.get(key))
    say(f"{'would import' if dry_run else 'import'}: {summary}")


# --------------------------------------------------------------------------- import


def import_servers(
    source_name: str,
    *,
    paths: list[Path] | None = None,
    dry_run: bool = False,
    overwrite: bool = False,
    only: list[str] | None = None,
) -> int:
    source = SOURCES[source_name]
    try:
        servers, files = read_servers(source, paths=paths)
        existing = _existing(config_path())
        dotenv_path = hermes_home() / ".env"
        dotenv = load_dotenv(dotenv_path)
    except (SourceError, ConfigError) as exc:
        say(f"error: {exc}", err=True)
        return EXIT_USAGE
    if not files:
        looked = ", ".join(str(f.path) for f in source.files(os.environ, Path.cwd(), sys.platform))
        say(
            f"no {source.label} configuration found (looked for {looked}; use --path FILE)",
            err=True,
        )
        return EXIT_FAILED
    say(f"reading {source.label}: {', '.join(map(str, files))}")
    try:
        plan = build_plan(
            servers,
            existing=existing,
            only=only,
            overwrite=overwrite,
            environ=os.environ,
            dotenv=dotenv,
        )
    except UnknownNames as exc:
        say(f"error: {exc}", err=True)
        return EXIT_USAGE
    if not plan.items:
        say(f"no MCP servers in {', '.join(map(str, files))}")
        return EXIT_OK
    try:
        _apply_policy(plan)
    except ConfigError as exc:
        say(f"error: {exc}", err=True)
        return EXIT_USAGE
    if dry_run:
        _report(plan, dry_run=True)
        secrets = plan.secrets()
        if secrets:
            say(f"would store in {dotenv_path}: {', '.join(sorted(secrets))} (values hidden)")
        return _exit_code(plan)
    answers = _ask_inputs(plan, dotenv)
    values = {**plan.secrets(), **answers}
    entries = {p.item.name: p.item.entry for p in plan.to_write() if p.item.entry is not None}
    try:
        stored = update_dotenv(dotenv_path, values) if values and entries else []
        warnings = store.add_servers(entries, replace=overwrite) if entries else ()
    except (ConfigError, ValueError, OSError) as exc:
        say(f"error: {exc}", err=True)
        return EXIT_USAGE
    _report(plan, dry_run=False)
    for warning in warnings:
        say(f"warning: {warning}", err=True)
    if stored:
        say(f"stored in {dotenv_path} (mode 0600): {', '.join(sorted(stored))}")
    if entries:
        say(
            f"wrote {len(entries)} server(s) to {config_path()}; check them with "
            "`hermes mcp status`"
        )
    return _exit_code(plan)


def _apply_policy(plan: ImportPlan) -> None:
    """Leave out what the administrator's policy refuses (the reason names the rule)."""
    factory = factory_for(None)
    for planned in plan.to_write():
        item = planned.item
        cfg, problems, _warnings = validate_server(item.name, copy.deepcopy(item.entry))
        refused = factory.refused(item.name, cfg) if cfg is not None and not problems else None
        if refused is not None:
            planned.action, planned.reason = Action.SKIP, refused


def _exit_code(plan: ImportPlan) -> int:
    return EXIT_FAILED if any(p.action == Action.SKIP for p in plan.items) else EXIT_OK


def _existing(path: Path) -> dict[str, object]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the file: {exc}", path=str(path)) from None
    data = plain(parse_yaml(text, str(path)))
    servers = data.get("mcp_servers") if isinstance(data, dict) else None
    return servers if isinstance(servers, dict) else {}


def _ask_inputs(plan: ImportPlan, dotenv: dict[str, str]) -> dict[str, str]:
    """Ask each ``${input:…}`` once; a server whose input gets no answer is left out."""
    answers: dict[str, str] = {}
    unanswered: set[str] = set()
    for planned in plan.to_write():
        for variable, spec in planned.item.inputs.items():
            if variable in answers or variable in os.environ or variable in dotenv:
                continue
            if variable not in unanswered:
                answer = _ask(spec)
                if answer is None:
                    unanswered.add(variable)
                else:
                    answers[variable] = answer
            if variable in unanswered:
                planned.action = Action.SKIP
                planned.item.skipped.append(Skip("", f"input '{spec.id}' was not answered"))
                planned.reason = f"input '{spec.id}' was not answered"
    return answers


def _ask(spec: InputSpec) -> str | None:
    what = f" ({spec.description})" if spec.description else ""
    default = f" [{spec.default}]" if spec.default and not spec.password else ""
    prompt = clean(f"value for input '{spec.id}'{what}{default}: ")
    try:
        if spec.password and sys.stdin.isatty():
            answer = getpass.getpass(prompt, stream=sys.stderr)
        else:
            sys.stderr.write(prompt)
            sys.stderr.flush()
            line = sys.stdin.readline()
            if not line:
                return spec.default if spec.default is not None else None
            answer = line.rstrip("\r\n")
    except (EOFError, KeyboardInterrupt):
        return None
    if not answer:
        return spec.default if spec.default is not None else None
    return str(answer)


# --------------------------------------------------------------------------- agent


def import_agent(
    agent: str,
    *,
    paths: list[Path] | None = None,
    dry_run: bool = False,
    overwrite: bool = False,
    only: list[str] | None = None,
) -> int:
    code = import_servers(agent, paths=paths, dry_run=dry_run, overwrite=overwrite, only=only)
    if code == EXIT_USAGE:
        return code
    config_dir = os.environ.get("CLAUDE_CONFIG_DIR")
    source = Path(config_dir) if config_dir else Path(os.path.expanduser("~")) / ".claude"
    target = hermes_home() / "skills"
    try:
        result = import_skills(source / "skills", target, dry_run=dry_run)
    except OSError as exc:
        say(f"error: copying skills: {exc}", err=True)
        return EXIT_FAILED
    verb = "would copy" if dry_run else "copied"
    say(
        f"skills from {source / 'skills'}: {verb} {len(result.copied)}, "
        f"kept {len(result.kept)} already in {target}, {len(result.problems)} with problems"
    )
    for name in result.copied:
        say(f"  {verb} {name}")
    for name in result.kept:
        say(f"  kept {name} (exists; never overwritten)")
    for problem in result.problems:
        say(f"  problem: {problem}", err=True)
    return EXIT_FAILED if result.problems else code
