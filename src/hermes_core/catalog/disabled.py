"""What ``install`` (the CLI, the dashboard) and ``add`` say when they save an entry that
cannot start yet: disabled, and the one step that fixes it, then ``hermes mcp enable NAME``."""

from __future__ import annotations

from hermes_platform.runners import MissingRunner

__all__ = ["disabled_lines"]


def disabled_lines(name: str, runner: MissingRunner | None, probe: str | None) -> list[str]:
    """What ``install`` and ``add`` say when they save an entry that cannot start yet."""
    if runner is not None:
        return [
            f"saved '{name}' disabled: {runner.state}: {runner.sentence}",
            f"install it, then `hermes mcp enable {name}`",
        ]
    return [
        f"saved '{name}' disabled: the probe failed: {probe}",
        f"fix the entry, then `hermes mcp enable {name}`",
    ]
