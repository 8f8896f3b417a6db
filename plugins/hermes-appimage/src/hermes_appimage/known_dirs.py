"""Where AppImages are kept (AppImageLauncher, appimaged and common habits)."""

from __future__ import annotations


def appimage_dirs(os_name: str) -> tuple[str, ...]:
    if not os_name.startswith("linux"):
        return ()
    return ("~/Applications", "~/.local/bin", "~/AppImages", "/opt/appimages")
