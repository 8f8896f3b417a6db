"""What a registry install and a bundle install share with each other and with the catalog's:
the questions (asked like the catalog's keys, saved to ``.env`` 0600), the confirmation, the
write to ``config.yaml`` (an existing entry keeps its ``tools:``), the install record, and the
end: a missing runner or a failed probe saves the entry disabled (exit 1), else the tool
checklist.  Reference: ``docs/registry.md``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

from hermes_core.catalog.registry.entry import Question
from hermes_core.catalog.registry.records import InstallRecord, load_record, save_record
from hermes_core.cli.common import EXIT_FAILED, EXIT_USAGE
from hermes_core.cli.disabled_save import say_runner_missing
from hermes_core.cli.mcp_catalog import configured_servers
from hermes_core.cli.mcp_install import _apply_without_probe, _choose_tools
from hermes_core.cli.prompts import ask_value, confirm, interactive, shown
from hermes_core.cli.stop import Stop
from hermes_core.config import store
from hermes_core.config.dotenv_file import update_dotenv
from hermes_core.config.interpolate import load_dotenv
from hermes_core.plugins.manager import HermesPluginManager
from hermes_platform.runners import MissingRunner

__all__ = ["ask", "asks_lines", "check_name_free", "confirm_install", "finish"]


def asks_lines(questions: Sequence[Question]) -> list[str]:
    """``asks for:`` lines of the trust display."""
    lines = []
    for q in questions:
        kind = "secret" if q.secret else "value"
        need = "required" if q.required else "optional"
        default = f", default {shown(q.default, 80)}" if q.default and not q.secret else ""
        lines.append(
            f"  asks for:  {q.variable} ({kind}, {need}{default}; saved to $HERMES_HOME/.env)"
            f" — {shown(q.prompt, 120)}"
        )
    return lines


def confirm_install(name: str, *, assume_yes: bool) -> bool:
    """The question before anything is written; exit 2 without a terminal and ``--yes``."""
    if assume_yes:
        return True
    if not interactive():
        raise Stop(EXIT_USAGE, "no terminal to ask on: add --yes to install without asking")
    if not confirm(f"Install '{name}' (unvetted)?", default=False):
        print("nothing was installed")
        return False
    return True


def ask(questions: Sequence[Question]) -> tuple[dict[str, str], set[str]]:
    """(values to save to ``.env``, every variable that has a value): on a terminal each is
    asked (a value already in ``.env`` offered for reuse); without one, the environment variable
    of its name, else its default.  A required value left empty stops the install (exit 2)."""
    existing = load_dotenv()
    values: dict[str, str] = {}
    answered: set[str] = set()
    terminal = interactive()
    for q in questions:
        have = existing.get(q.variable)
        if have is not None and (
            not terminal or confirm(f"{q.variable} is already in .env; keep it?", True)
        ):
            answered.add(q.variable)
            continue
        choices = f" [{'/'.join(q.choices)}]" if q.choices else ""
        while True:
            if terminal:
                label = f"{shown(q.prompt, 200)}{choices} ({q.variable}):"
                answer = ask_value(label, secret=q.secret, default=q.default).strip()
            else:
                answer = os.environ.get(q.variable, "").strip()
            answer = answer or (q.default or "")
            if not answer or not q.choices or answer in q.choices:
                break
            if not terminal:
                raise Stop(
                    EXIT_USAGE,
                    f"{q.variable} must be one of {', '.join(q.choices)}; nothing was installed",
                )
            print(f"choose one of {', '.join(q.choices)}", file=sys.stderr)
        if not answer:
            if q.required:
                how = "" if terminal else f" (set {q.variable} in the environment)"
                raise Stop(EXIT_USAGE, f"{q.variable} is required; nothing was installed{how}")
            continue
        values[q.variable] = answer
        answered.add(q.variable)
    return values, answered


def check_name_free(manager: HermesPluginManager, name: str, origin: str) -> dict[str, Any] | None:
    """The configured entry *name* when it is ours to replace (installed from *origin*, the
    registry server name or the bundle's name), ``None`` when there is none; exit 2 when an
    entry of that name came from elsewhere."""
    _servers, raw = configured_servers(manager)
    previous = raw.get(name)
    if previous is None:
        return None
    record = load_record(name)
    if record is None or record.server != origin:
        raise Stop(
            EXIT_USAGE,
            f"mcp_servers.{name} already exists and was not installed from {origin}: "
            "choose another name with --name, or remove it first",
        )
    return previous if isinstance(previous, dict) else {}


def finish(
    manager: HermesPluginManager,
    name: str,
    entry: dict[str, Any],
    values: dict[str, str],
    record: InstallRecord,
    previous: dict[str, Any] | None,
    runner: MissingRunner | None,
) -> int:
    """Write ``.env``, the entry and the record; then disabled (runner missing) or the tools."""
    if values:
        update_dotenv(values)
        print(f"saved {', '.join(values)} to $HERMES_HOME/.env (mode 0600)")
    if previous is not None and "tools" in previous:
        entry = {**entry, "tools": previous["tools"]}
    if runner is not None:
        entry = {**entry, "enabled": False}
    for warning in store.add_server(name, entry, replace=previous is not None):
        print(f"warning: {warning}", file=sys.stderr)
    save_record(record)
    print(f"{'updated' if previous is not None else 'added'} mcp_servers.{name}")
    if runner is not None:
        _apply_without_probe(name, entry, None)
        say_runner_missing(name, runner)
        return EXIT_FAILED
    return _choose_tools(manager, name, entry, None)
