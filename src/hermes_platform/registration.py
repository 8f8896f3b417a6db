"""A small thread-safe table of named registration objects.

``LOCATION_KINDS``, ``VERSION_KINDS`` and ``GPU_PROBES`` are instances.
Registering the *same* object twice is a no-op (built-ins may arrive both at
import and through the plugin hook), and so is the same object under another
provider's name (one plugin loaded by two plugin managers in one process:
``check_plugin`` beside ``HostFactory.from_plugins()``); a *different* object
under a taken name is a :class:`RegistrationConflict` naming both providers.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Generic, Protocol, TypeVar

__all__ = ["Registration", "RegistrationConflict", "RegistrationTable"]


class Registration(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def provider(self) -> str: ...


T = TypeVar("T", bound=Registration)


class RegistrationConflict(ValueError):
    """Two providers registered different objects under one name."""

    def __init__(self, what: str, name: str, first: str, second: str) -> None:
        super().__init__(f"{what} {name!r} is provided by both {first} and {second}")
        self.what = what
        self.name = name
        self.providers = (first, second)


class RegistrationTable(Generic[T]):
    """Named registrations in registration order."""

    def __init__(self, what: str, item_type: type[T], items: Iterable[T] = ()) -> None:
        self._what = what
        self._type = item_type
        self._lock = threading.Lock()
        self._items: dict[str, T] = {}
        self._listeners: list[Callable[[], None]] = []
        for item in items:
            self.register(item)

    def register(self, item: T) -> None:
        """Add *item*; see the module docstring for duplicates."""
        if not isinstance(item, self._type):
            raise TypeError(
                f"expected a {self._type.__name__} for a {self._what}, got {type(item).__name__}"
            )
        with self._lock:
            existing = self._items.get(item.name)
            if existing is not None:
                if existing == item or _same_but_provider(existing, item):
                    return
                raise RegistrationConflict(self._what, item.name, existing.provider, item.provider)
            self._items[item.name] = item
        self._changed()

    def unregister(self, name: str) -> None:
        """Remove *name*; an absent name is not an error."""
        with self._lock:
            removed = self._items.pop(name, None)
        if removed is not None:
            self._changed()

    def add_listener(self, listener: Callable[[], None]) -> None:
        """Call *listener* after every change to the table."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    def get(self, name: object) -> T | None:
        if not isinstance(name, str):
            return None
        with self._lock:
            return self._items.get(name)

    def __getitem__(self, name: str) -> T:
        item = self.get(name)
        if item is None:
            raise KeyError(name)
        return item

    def __contains__(self, name: object) -> bool:
        return self.get(name) is not None

    def names(self) -> list[str]:
        """Registered names, sorted."""
        with self._lock:
            return sorted(self._items)

    def values(self) -> tuple[T, ...]:
        with self._lock:
            return tuple(self._items.values())

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._what}: {', '.join(self.names())}>"


def _same_but_provider(existing: object, item: object) -> bool:
    """Whether *item* is *existing* registered again under another provider's name: the same
    code loaded by a second plugin manager (``check_plugin`` beside the installed plugin), not
    a second provider of the name.  The first registration stays."""
    if not (dataclasses.is_dataclass(item) and not isinstance(item, type)):
        return False
    if type(existing) is not type(item) or not hasattr(item, "provider"):
        return False
    try:
        return dataclasses.replace(item, provider=existing.provider) == existing  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        return False
