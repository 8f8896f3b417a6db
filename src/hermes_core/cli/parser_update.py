"""The parser of ``hermes update`` (docs/cli.md#hermes-update)."""

from __future__ import annotations

from hermes_core.cli.parser_base import Commands

__all__ = ["add_update_parser"]


def add_update_parser(commands: Commands) -> None:
    """``hermes update [--check | --dry-run]``."""
    update = commands.add_parser(
        "update",
        help="upgrade Hermes and its first-party plugins (pip, pipx or uv, as installed)",
        description="Upgrade hermes-core and the first-party plugins installed beside it, "
        "with the installer this Hermes was installed by (pip, pipx or uv, read from the "
        "running environment; the command is printed first), then list the catalog installs "
        "whose manifest changed (re-run `hermes mcp install NAME` for each). A source "
        "checkout is updated where it is (git). Registry and bundle installs: `hermes mcp "
        "update`.",
    )
    how = update.add_mutually_exclusive_group()
    how.add_argument(
        "--check",
        action="store_true",
        help="only report: what the package index has that is newer (pip's dry run), the "
        "command an update would run, the changed manifests",
    )
    how.add_argument(
        "--dry-run", action="store_true", help="print the command an update runs, run nothing"
    )
    how.add_argument(
        "--manifests",
        action="store_true",
        help="only list the catalog installs whose manifest changed",
    )
