"""The problems a configuration can have: errors (``<file>:<line>: <key>: <what>``), the
conflict of a concurrent edit, and warnings."""

from __future__ import annotations

__all__ = ["ConfigConflict", "ConfigError", "ConfigWarning"]


class ConfigError(ValueError):
    """A configuration that cannot be used: ``<file>:<line>: <key>: <what is wrong>``.

    ``path``/``line`` are absent when the problem has no place in a file (a
    value resolved at connect time, an entry passed to ``add_server``).  When
    several problems were found, this one is the first and ``more`` holds the
    rest.
    """

    def __init__(
        self,
        reason: str,
        *,
        path: str | None = None,
        line: int | None = None,
        key: str = "",
        more: tuple[ConfigError, ...] = (),
        plugin: bool = False,
    ) -> None:
        location = f"{path}:{line}" if path and line else path
        super().__init__(": ".join(part for part in (location, key, reason) if part))
        self.reason = reason
        self.path = path
        self.line = line
        self.key = key
        self.more = more
        self.plugin = plugin
        """A problem a plugin that is not loaded could explain (an unknown name or key)."""

    @property
    def all(self) -> tuple[ConfigError, ...]:
        """This problem followed by every other one found in the same pass."""
        return (self, *self.more)


class ConfigConflict(ConfigError):
    """Another program changed the same part of the file while an edit was being made."""


class ConfigWarning:
    """Something in the configuration that is ignored or suspicious, but not fatal."""

    __slots__ = ("key", "line", "message", "path")

    def __init__(
        self, message: str, *, path: str | None = None, line: int | None = None, key: str = ""
    ) -> None:
        self.message = message
        self.path = path
        self.line = line
        self.key = key

    def __str__(self) -> str:
        location = f"{self.path}:{self.line}" if self.path and self.line else self.path
        return ": ".join(part for part in (location, self.key, self.message) if part)

    def __repr__(self) -> str:
        return f"ConfigWarning({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConfigWarning) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))
