"""The one seam through which ``hermes_platform`` reads the machine.

Every stat, directory listing, environment read, file read, registry read and
sysctl goes through a :class:`Host`.  The real one (:class:`RealHost`) uses
``os``, ``winreg`` and ``ctypes``; tests and plugin authors swap in
:class:`hermes_platform.testing.FakeHost` with :func:`use_host` to evaluate
Windows and macOS declarations on Linux and to count I/O.

Paths handed to a host are plain strings in the evaluated OS's syntax
(``C:/Program Files/...`` for win32).  A host never raises for a path that
does not exist: predicates answer ``False`` and readers raise ``OSError``,
which callers turn into "not present" or "unreadable".
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Protocol, runtime_checkable

__all__ = [
    "Host",
    "RealHost",
    "add_host_change_listener",
    "current_host",
    "set_host",
    "use_host",
]


@runtime_checkable
class Host(Protocol):
    """What ``hermes_platform`` may ask of a machine."""

    def platform(self) -> str:
        """``sys.platform`` of the machine (``win32``, ``darwin``, ``linux`` …)."""

    def machine(self) -> str:
        """The process CPU architecture as ``platform.machine()`` spells it."""

    def env(self) -> Mapping[str, str]:
        """The process environment (read-only view)."""

    def home(self) -> str:
        """The user's home folder (``~``)."""

    def is_file(self, path: str) -> bool:
        """True if *path* is a regular file (symlinks followed)."""

    def is_dir(self, path: str) -> bool:
        """True if *path* is a directory (symlinks followed)."""

    def is_executable(self, path: str) -> bool:
        """True if *path* is a regular file this user may execute."""

    def exists(self, path: str) -> bool:
        """True if anything exists at *path*."""

    def listdir(self, path: str) -> list[str]:
        """Names in the directory *path*; raises ``OSError`` when unreadable."""

    def file_size(self, path: str) -> int:
        """Size of the file at *path* in bytes; raises ``OSError``."""

    def read_range(self, path: str, offset: int, length: int) -> bytes:
        """Up to *length* bytes of *path* from *offset*; raises ``OSError``."""

    def registry_subkeys(self, key: str) -> list[str]:
        """Subkey names of a registry key such as ``HKLM\\SOFTWARE\\X``.

        Raises ``OSError`` when the key cannot be opened (always, off Windows).
        """

    def registry_value(self, key: str, name: str) -> object | None:
        """A registry value, or ``None`` when it or its key is absent."""

    def sysctl_int(self, name: str) -> int | None:
        """An integer sysctl (macOS), or ``None`` when unreadable."""

    def pid_alive(self, pid: int) -> bool:
        """True when a process with this pid exists (or exists but is not ours)."""


class RealHost:
    """The machine this process runs on."""

    def platform(self) -> str:
        return sys.platform

    def machine(self) -> str:
        import platform

        return platform.machine()

    def env(self) -> Mapping[str, str]:
        return os.environ

    def home(self) -> str:
        return os.path.expanduser("~")

    def is_file(self, path: str) -> bool:
        try:
            return os.path.isfile(path)
        except (ValueError, OSError):  # embedded NUL, overlong names
            return False

    def is_link(self, path: str) -> bool:
        """True if *path* is a symbolic link (not followed); an optional method of a host."""
        try:
            return os.path.islink(path)
        except (ValueError, OSError):
            return False

    def is_dir(self, path: str) -> bool:
        try:
            return os.path.isdir(path)
        except (ValueError, OSError):
            return False

    def is_executable(self, path: str) -> bool:
        try:
            return os.path.isfile(path) and os.access(path, os.X_OK)
        except (ValueError, OSError):
            return False

    def exists(self, path: str) -> bool:
        try:
            return os.path.exists(path)
        except (ValueError, OSError):
            return False

    def listdir(self, path: str) -> list[str]:
        try:
            return os.listdir(path)
        except ValueError as exc:
            raise OSError(str(exc)) from None

    def file_size(self, path: str) -> int:
        try:
            return os.stat(path).st_size
        except ValueError as exc:
            raise OSError(str(exc)) from None

    def read_range(self, path: str, offset: int, length: int) -> bytes:
        if offset < 0 or length < 0:
            raise OSError("negative read")
        try:
            with open(path, "rb") as fh:
                fh.seek(offset)
                return fh.read(length)
        except ValueError as exc:
            raise OSError(str(exc)) from None

    def registry_subkeys(self, key: str) -> list[str]:
        winreg = _winreg()
        root, sub = _split_registry_key(key)
        names: list[str] = []
        with winreg.OpenKey(getattr(winreg, root), sub) as handle:  # type: ignore[attr-defined]
            index = 0
            while index < 10_000:
                try:
                    names.append(winreg.EnumKey(handle, index))  # type: ignore[attr-defined]
                except OSError:
                    break
                index += 1
        return names

    def registry_value(self, key: str, name: str) -> object | None:
        try:
            winreg = _winreg()
            root, sub = _split_registry_key(key)
            with winreg.OpenKey(getattr(winreg, root), sub) as handle:  # type: ignore[attr-defined]
                value, _kind = winreg.QueryValueEx(handle, name)  # type: ignore[attr-defined]
        except OSError:
            return None
        return value  # type: ignore[no-any-return]

    def sysctl_int(self, name: str) -> int | None:
        if sys.platform != "darwin":
            return None
        try:
            import ctypes
            import ctypes.util

            libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
            value = ctypes.c_int(0)
            size = ctypes.c_size_t(ctypes.sizeof(value))
            rc = libc.sysctlbyname(
                name.encode(), ctypes.byref(value), ctypes.byref(size), None, ctypes.c_size_t(0)
            )
        except (OSError, AttributeError, TypeError, ValueError):
            return None
        return int(value.value) if rc == 0 else None

    def pid_alive(self, pid: int) -> bool:
        if sys.platform == "win32":
            return _windows_pid_alive(pid)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        except (OSError, OverflowError, ValueError):
            return False
        return True


_REGISTRY_ROOTS = {
    "HKLM": "HKEY_LOCAL_MACHINE",
    "HKEY_LOCAL_MACHINE": "HKEY_LOCAL_MACHINE",
    "HKCU": "HKEY_CURRENT_USER",
    "HKEY_CURRENT_USER": "HKEY_CURRENT_USER",
}


def _split_registry_key(key: str) -> tuple[str, str]:
    root, _, sub = key.replace("/", "\\").partition("\\")
    try:
        return _REGISTRY_ROOTS[root.upper()], sub
    except KeyError:
        raise OSError(f"unknown registry root {root!r}") from None


def _winreg() -> object:
    try:
        import winreg
    except ImportError:
        raise OSError("the Windows registry exists only on Windows") from None
    return winreg


def _windows_pid_alive(pid: int) -> bool:  # pragma: no cover - Windows only
    try:
        import ctypes

        process_query_limited_information = 0x1000
        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = kernel32.OpenProcess(process_query_limited_information, False, pid)
        if not handle:
            return False
        kernel32.CloseHandle(handle)
        return True
    except (OSError, AttributeError, OverflowError, ValueError):
        return False


_lock = threading.Lock()
_host: Host = RealHost()
_listeners: list[Callable[[], None]] = []


def current_host() -> Host:
    """The host every reader in ``hermes_platform`` consults now."""
    return _host


def add_host_change_listener(listener: Callable[[], None]) -> None:
    """Call *listener* after the host is replaced (caches use it to reset)."""
    with _lock:
        _listeners.append(listener)


def set_host(host: Host) -> Host:
    """Replace the process-wide host; returns the previous one.

    Cached host facts (OS family, GPU class) are cleared so they are read
    again from the new host.
    """
    global _host
    with _lock:
        previous, _host = _host, host
        listeners = list(_listeners)
    for listener in listeners:
        listener()
    return previous


@contextlib.contextmanager
def use_host(host: Host) -> Iterator[Host]:
    """Evaluate with *host* inside the ``with`` block, then restore."""
    previous = set_host(host)
    try:
        yield host
    finally:
        set_host(previous)
