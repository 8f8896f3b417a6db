"""The words every door shows for a desktop app that is not running (no platform import:
the gate and the status rows use them for any server)."""

from __future__ import annotations

__all__ = ["app_label", "not_running_sentence", "start_action"]


def app_label(server: str, display_name: str | None = None) -> str:
    """The app's name as users read it (the declaration's display name, else the server's)."""
    return display_name or server


def not_running_sentence(server: str, display_name: str | None = None) -> str:
    """The one sentence every door shows for a call to an app that is not running."""
    app = app_label(server, display_name)
    return f"{app} is not running; start {app}"


def start_action(server: str, display_name: str | None = None) -> str:
    """What the user does about it."""
    return f"Start {app_label(server, display_name)}, then try again."
