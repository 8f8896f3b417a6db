"""What ``install`` and ``add`` say when they save an entry that cannot start yet: disabled,
exit 1, and the one step that fixes it (install the runner, or fix the entry), then
``hermes mcp enable NAME``.  One wording for both commands and the dashboard
(:func:`hermes_core.catalog.install_plan.disabled_lines`, ``docs/catalog.md``)."""

from __future__ import annotations

from hermes_core.catalog.disabled import disabled_lines
from hermes_core.cli.prompts import shown
from hermes_platform.runners import MissingRunner

__all__ = ["say_probe_failed", "say_runner_missing"]


def say_runner_missing(name: str, runner: MissingRunner) -> None:
    """``saved 'time' disabled: needs uv: `uvx` is not on PATH. …``."""
    for line in disabled_lines(name, runner, None):
        print(line)


def say_probe_failed(name: str, why: str) -> None:
    """``saved 'x' disabled: the probe failed: …``."""
    for line in disabled_lines(name, None, shown(why, 300)):
        print(line)
