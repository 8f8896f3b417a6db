"""The terminal's side of the install service (:mod:`hermes_core.catalog.install_service`):
the screen printed and ``Install …?`` asked (``--yes`` skips it; no terminal and no ``--yes``:
exit 2), the values asked one by one (secrets hidden; without a terminal from the environment),
progress and the spinner, the tool checklist; and the outcome as an exit code."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from hermes_core.catalog.install_plan import (
    InstallOutcome,
    InstallPlan,
    InstallRefused,
    InstallState,
    Refusal,
)
from hermes_core.catalog.install_service import InstallService
from hermes_core.catalog.registry.entry import Question
from hermes_core.catalog.tool_choice import Checklist
from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from hermes_core.cli.mcp_catalog import catalog_guard, print_error
from hermes_core.cli.progress import Activity
from hermes_core.cli.prompts import Row, ask_value, checklist, confirm, interactive, shown
from hermes_core.config.interpolate import load_dotenv
from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["TerminalDoor", "checklist_rows", "install_with"]


class TerminalDoor:
    """Answers the install service on the terminal."""

    def __init__(self, *, assume_yes: bool) -> None:
        self.assume_yes = assume_yes
        self._activity: Activity | None = None

    def confirm(self, plan: InstallPlan) -> bool:
        for line in plan.lines:
            print(line)
        if self.assume_yes:
            return True
        if not interactive():
            raise InstallRefused(
                "no terminal to ask on: add --yes to install without asking", Refusal.USAGE
            )
        if not confirm(f"Install {plan.title}?", default=False):
            print("nothing was installed")
            return False
        return True

    def answer(self, questions: Sequence[Question]) -> tuple[dict[str, str], set[str]]:
        """On a terminal each value is asked (one already in ``.env`` offered for reuse);
        without one, the environment variable of its name, else its default."""
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
            answer = self._one(q, terminal)
            if not answer:
                if q.required:
                    how = "" if terminal else f" (set {q.variable} in the environment)"
                    raise InstallRefused(
                        f"{q.variable} is required; nothing was installed{how}", Refusal.USAGE
                    )
                continue
            values[q.variable] = answer
            answered.add(q.variable)
        return values, answered

    def _one(self, q: Question, terminal: bool) -> str:
        choices = f" [{'/'.join(q.choices)}]" if q.choices else ""
        while True:
            if terminal:
                label = f"{shown(q.prompt, 200)}{choices} ({q.variable}):"
                answer = ask_value(label, secret=q.secret, default=q.default).strip()
            else:
                answer = os.environ.get(q.variable, "").strip()
            answer = answer or (q.default or "")
            if not answer or not q.choices or answer in q.choices:
                return answer
            if not terminal:
                raise InstallRefused(
                    f"{q.variable} must be one of {', '.join(q.choices)}; nothing was installed",
                    Refusal.USAGE,
                )
            print(f"choose one of {', '.join(q.choices)}", file=sys.stderr)

    @contextlib.contextmanager
    def busy(self, what: str) -> Iterator[None]:
        with Activity(what, announce=False) as activity:
            self._activity = activity
            try:
                yield
            finally:
                self._activity = None

    def progress(self, step: int, steps: int, what: str) -> None:
        print(f"[{step}/{steps}] {shown(what, 300)}", flush=True)
        if self._activity is not None:
            self._activity.update(f"[{step}/{steps}] {shown(what, 100)}…")

    def say(self, line: str) -> None:
        print(line, flush=True)

    def warn(self, line: str) -> None:
        print(line, file=sys.stderr)

    def choose(self, name: str, found: Checklist) -> set[str]:
        if not interactive():
            return set(found.checked)
        count = f"{len(found.own)} tool{'s' if len(found.own) != 1 else ''}"
        title = f"Select tools for '{name}' ({count})"  # the utility rows not counted
        return set(checklist(title, checklist_rows(found), found.checked))


def checklist_rows(found: Checklist) -> list[Row]:
    """The server's own tools, then one row per family of generated utility tools."""
    rows = [Row(t.name, shown(t.name, 60), t.description) for t in found.own]
    rows += [
        Row("@" + fam, f"({fam})", f"the generated tools {', '.join(members)}")
        for fam, members in found.families.items()
    ]
    return rows


def _show_log_tail(log_file: Path) -> None:
    try:
        lines = log_file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return
    print(f"last lines of {log_file}:", file=sys.stderr)
    for line in lines[-12:]:
        print(f"  {shown(line, 300)}", file=sys.stderr)


def exit_code(outcome: InstallOutcome) -> int:
    return EXIT_OK if outcome.state is InstallState.INSTALLED else EXIT_FAILED


def install_with(
    manager: HermesPluginManager,
    resolve: Callable[[InstallService], InstallPlan],
    *,
    assume_yes: bool,
) -> int:
    """Resolve a plan with *resolve* and install it, on the terminal; the exit code."""

    def action() -> int:
        service = InstallService(manager, TerminalDoor(assume_yes=assume_yes))
        try:
            outcome = service.install(resolve(service))
        except InstallRefused as exc:
            print_error(exc.message)
            if exc.log is not None:
                _show_log_tail(exc.log)
            return EXIT_USAGE if exc.kind is Refusal.USAGE else EXIT_FAILED
        return exit_code(outcome)

    return catalog_guard(action)
