"""Every directory (and registry key) literal that ``hermes_platform`` looks in.

A test forbids such literals anywhere else in the package, so this module is
the one place to read to know where Hermes looks.  Each table takes the OS
family and returns an empty tuple where the ecosystem does not install, so
callers need no OS branches.  Entries are unexpanded (``~``, ``%VAR%``).
"""

from __future__ import annotations

__all__ = [
    "DRM_CLASS_DIR",
    "FLATPAK_ACTIVE_DEPLOYMENT",
    "FLATPAK_EXPORT_LAUNCHER",
    "FLATPAK_METAINFO_FILES",
    "JETBRAINS_PRODUCT_INFO",
    "JETBRAINS_PRODUCT_INFO_IN_BUNDLE",
    "NVIDIA_PROC_VERSION",
    "SNAP_LAUNCHER_FOLDER",
    "SNAP_YAML",
    "UNINSTALL_REGISTRY_ROOTS",
    "WINDOWS_DISPLAY_CLASS_KEY",
    "cargo_bin_dirs",
    "drm_vendor_file",
    "flatpak_export_dirs",
    "hermes_bin_dirs",
    "homebrew_bin_dirs",
    "mac_application_dirs",
    "node_bin_dirs",
    "snap_bin_dirs",
    "user_local_bin_dirs",
    "windows_user_program_dirs",
]

# Linux GPU sources (sysfs / procfs).
NVIDIA_PROC_VERSION = "/proc/driver/nvidia/version"
DRM_CLASS_DIR = "/sys/class/drm"


def drm_vendor_file(card: str) -> str:
    """The PCI vendor id file of one DRM card (``card0`` …)."""
    return f"{DRM_CLASS_DIR}/{card}/device/vendor"


# Windows registry keys.
WINDOWS_DISPLAY_CLASS_KEY = (
    "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}"
)
UNINSTALL_REGISTRY_ROOTS = (
    "HKLM\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Uninstall",
    "HKLM\\SOFTWARE\\WOW6432Node\\Microsoft\\Windows\\CurrentVersion\\Uninstall",
    "HKCU\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Uninstall",
)


def _is_linux(os_name: str) -> bool:
    return os_name.startswith("linux")


def mac_application_dirs(os_name: str) -> tuple[str, ...]:
    """Where macOS app bundles live: system-wide first, then per user."""
    return ("/Applications", "~/Applications") if os_name == "darwin" else ()


def flatpak_export_dirs(os_name: str) -> tuple[str, ...]:
    """Flatpak's exported launchers: system installation, then per-user."""
    if not _is_linux(os_name):
        return ()
    return ("/var/lib/flatpak/exports/bin", "~/.local/share/flatpak/exports/bin")


def snap_bin_dirs(os_name: str) -> tuple[str, ...]:
    """Snap's launcher folder."""
    return ("/snap/bin",) if _is_linux(os_name) else ()


def homebrew_bin_dirs(os_name: str) -> tuple[str, ...]:
    """Homebrew's bin folders on macOS (Apple silicon, then Intel)."""
    return ("/opt/homebrew/bin", "/usr/local/bin") if os_name == "darwin" else ()


def user_local_bin_dirs(os_name: str) -> tuple[str, ...]:
    return ("%USERPROFILE%/.local/bin",) if os_name == "win32" else ("~/.local/bin",)


def cargo_bin_dirs(os_name: str) -> tuple[str, ...]:
    return ("%USERPROFILE%/.cargo/bin",) if os_name == "win32" else ("~/.cargo/bin",)


def node_bin_dirs(os_name: str) -> tuple[str, ...]:
    if os_name == "win32":
        return ("%APPDATA%/npm", "%USERPROFILE%/.bun/bin", "%LOCALAPPDATA%/Volta/bin")
    return ("~/.npm-global/bin", "~/.bun/bin", "~/.volta/bin")


def hermes_bin_dirs(os_name: str) -> tuple[str, ...]:
    return ("%USERPROFILE%/.hermes/bin",) if os_name == "win32" else ("~/.hermes/bin",)


def windows_user_program_dirs(os_name: str) -> tuple[str, ...]:
    if os_name != "win32":
        return ()
    return (
        "%LOCALAPPDATA%/Programs",
        "%USERPROFILE%/scoop/shims",
        "%LOCALAPPDATA%/Microsoft/WinGet/Links",
    )


# Files that state an installed app's version, relative to what a locator found
# (the version sources of hermes_platform.resolver.file_versions read them).

# A JetBrains IDE: <install>/product-info.json next to <install>/bin/<launcher>;
# in a macOS bundle, <Name>.app/Contents/Resources/product-info.json.
JETBRAINS_PRODUCT_INFO = "product-info.json"
JETBRAINS_PRODUCT_INFO_IN_BUNDLE = ("Contents", "Resources", "product-info.json")

# A flatpak launcher is <installation>/exports/bin/<app_id>; the app's active
# deployment is <installation>/app/<app_id>/current/active, and its AppStream
# metainfo (which carries the release versions) is one of these, below it.
FLATPAK_EXPORT_LAUNCHER = ("exports", "bin")
FLATPAK_ACTIVE_DEPLOYMENT = ("app", "{app_id}", "current", "active")
FLATPAK_METAINFO_FILES = (
    ("files", "share", "metainfo", "{app_id}.metainfo.xml"),
    ("files", "share", "metainfo", "{app_id}.appdata.xml"),
    ("files", "share", "appdata", "{app_id}.appdata.xml"),
)

# A snap launcher is <snap root>/bin/<snap>[.<app>]; the current revision's
# metadata is <snap root>/<snap>/current/meta/snap.yaml.
SNAP_LAUNCHER_FOLDER = "bin"
SNAP_YAML = ("current", "meta", "snap.yaml")
