"""Homebrew's prefixes and the folders casks install apps into."""

from __future__ import annotations


def homebrew_prefixes(os_name: str) -> tuple[str, ...]:
    """Apple silicon, then Intel prefix on macOS; the shared, then per-user Linuxbrew."""
    if os_name == "darwin":
        return ("/opt/homebrew", "/usr/local")
    if os_name.startswith("linux"):
        return ("/home/linuxbrew/.linuxbrew", "~/.linuxbrew")
    return ()


def cask_app_dirs(os_name: str) -> tuple[str, ...]:
    """Where casks put .app bundles (``--appdir`` defaults)."""
    return ("/Applications", "~/Applications") if os_name == "darwin" else ()
