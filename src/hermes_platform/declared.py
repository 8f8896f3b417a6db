"""The process-wide registry of app declarations: server name -> :class:`Declaration`.

Standard library only, and nothing else of ``hermes_platform``: a host that only needs to know
whether a server is declared (most are not) imports this, not the parser and the resolvers
behind :mod:`hermes_platform.declaration`, which registers through here and re-exports
:func:`lookup`, :func:`names` and the change listeners.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hermes_platform.declaration_model import Declaration

__all__ = ["add_change_listener", "lookup", "names", "remove_change_listener"]

_lock = threading.Lock()
_registry: dict[str, Declaration] = {}
_listeners: list[Callable[[], None]] = []


def add_change_listener(listener: Callable[[], None]) -> None:
    """Also call *listener* after every mutation (for more than one subscriber)."""
    with _lock:
        _listeners.append(listener)


def remove_change_listener(listener: Callable[[], None]) -> None:
    with _lock:
        if listener in _listeners:
            _listeners.remove(listener)


def lookup(server_name: str) -> Declaration | None:
    """The registered declaration (the same object), or ``None``. Exact match only."""
    with _lock:
        return _registry.get(server_name)


def names() -> list[str]:
    """Registered server names, sorted."""
    with _lock:
        return sorted(_registry)


def _store(server_name: str, decl: Declaration | None) -> None:
    """Set (``None``: remove) one entry; :mod:`hermes_platform.declaration` then notifies."""
    with _lock:
        if decl is None:
            _registry.pop(server_name, None)
        else:
            _registry[server_name] = decl


def _clear() -> None:
    with _lock:
        _registry.clear()


def _notify_listeners() -> None:
    with _lock:
        listeners = list(_listeners)
    for listener in listeners:
        listener()
