"""Cached facts about the host: its OS family and CPU architecture.

Facts are read through the host seam and memoised for the process; they are
cleared by :func:`~hermes_platform.host.caches.clear_caches` and whenever the host is
replaced.
"""

from __future__ import annotations

import functools

from hermes_platform.host.caches import clear_caches, register_cache
from hermes_platform.host.seam import current_host

__all__ = ["clear_caches", "native_arch", "os_family", "process_arch"]

_ARCH_ALIASES = {
    "x86_64": "x86_64",
    "amd64": "x86_64",
    "x64": "x86_64",
    "arm64": "arm64",
    "aarch64": "arm64",
    "armv8": "arm64",
    "i386": "x86",
    "i686": "x86",
    "x86": "x86",
}


@functools.lru_cache(maxsize=1)
def os_family() -> str:
    """``sys.platform`` of the host: ``win32``, ``darwin``, ``linux`` or another value.

    ``linux2``-style values are folded to ``linux``.
    """
    platform = current_host().platform()
    return "linux" if platform.startswith("linux") else platform


@functools.lru_cache(maxsize=1)
def process_arch() -> str:
    """The architecture this process runs as: ``x86_64``, ``arm64``, ``x86`` or as reported."""
    machine = current_host().machine().strip().lower()
    return _ARCH_ALIASES.get(machine, machine or "unknown")


@functools.lru_cache(maxsize=1)
def native_arch() -> str:
    """The machine's own architecture; an x86-64 process under Rosetta reports ``arm64``."""
    arch = process_arch()
    translated = os_family() == "darwin" and arch == "x86_64"
    if translated and current_host().sysctl_int("sysctl.proc_translated") == 1:
        return "arm64"
    return arch


register_cache(os_family.cache_clear)
register_cache(process_arch.cache_clear)
register_cache(native_arch.cache_clear)
