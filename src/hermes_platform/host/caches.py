"""The memoised host facts and their reset: each module that caches a fact registers how to
forget it (:func:`register_cache`); :func:`clear_caches` forgets them all, and so does replacing
the host (:func:`~hermes_platform.host.seam.set_host`)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from hermes_platform.host.seam import add_host_change_listener

__all__ = ["clear_caches", "register_cache"]

_lock = threading.Lock()
_resets: list[Callable[[], None]] = []


def register_cache(reset: Callable[[], None]) -> None:
    """Call *reset* from :func:`clear_caches` (a cached fact's ``cache_clear``)."""
    with _lock:
        _resets.append(reset)


def clear_caches() -> None:
    """Forget every cached host fact (OS family, architectures, GPU class)."""
    with _lock:
        resets = list(_resets)
    for reset in resets:
        reset()


add_host_change_listener(clear_caches)
