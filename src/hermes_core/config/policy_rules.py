"""The administrator's policy as rules (see :mod:`hermes_core.config.policy` for the file):
plain data, standard library only, so a host holding one loads nothing of the YAML reader."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Policy", "ServerRule", "UrlRule"]


@dataclass(frozen=True)
class UrlRule:
    """Globs over a URL's scheme, host (lower case, no trailing dot) and path."""

    scheme: str | None = None
    host: str | None = None
    path: str | None = None
    pattern: str | None = None
    """A glob over the whole ``scheme://host[:port]/path`` (no user, query or fragment)."""


@dataclass(frozen=True)
class ServerRule:
    """One rule of ``allow.servers`` / ``deny.servers``: every key it gives must match."""

    where: str
    """``allow.servers[2]`` in ``/etc/hermes/policy.yaml`` (line 7)."""
    text: str
    """The rule as written, short (``command: sh``)."""
    name: str | None = None
    command: str | None = None
    path: str | None = None
    url: UrlRule | None = None


@dataclass(frozen=True)
class Policy:
    """The rules of every policy file read, together (each one can only narrow)."""

    files: tuple[str, ...] = ()
    allow_servers: tuple[ServerRule, ...] | None = None
    """``None``: no allow list (every server not denied may run)."""
    deny_servers: tuple[ServerRule, ...] = ()
    allow_tools: tuple[tuple[str, str], ...] | None = None
    """(glob, where) pairs; ``None``: no allow list."""
    deny_tools: tuple[tuple[str, str], ...] = ()
    catalog_only: str | None = None
    """Where ``catalog_only: true`` was set (``None``: not set)."""
    broken: str | None = None
    """Why a policy file could not be read: every server is refused (fail closed)."""
    extra: tuple[Policy, ...] = field(default=(), repr=False)
    """Further files' policies (each applies)."""

    @property
    def policies(self) -> tuple[Policy, ...]:
        return (self, *self.extra)
