"""Registry names for MCP tools: ``mcp_<server>_<tool>``, clamped, collision-free.

The form is the user guide's (``product.md`` → Decisions): ``mcp_`` + server + ``_`` + tool, with
every character outside ``[A-Za-z0-9_]`` replaced by ``_`` (``my-api`` + ``query.data`` →
``mcp_my_api_query_data``).  Model APIs reject tool names over 64 characters, so a longer name
keeps its first 55 characters and gains ``_`` + 8 hex digits of SHA-256 over the *unsanitised*
``"<server>/<tool>"``; the result is exactly 64 characters and the same on every run.

Sanitising is lossy (``a.b`` and ``a_b`` both become ``a_b``; servers ``my-api`` and ``my_api``
share a prefix), so :func:`assign_names` resolves collisions over a whole set of tools at once:
inputs are sorted, the first of each colliding group keeps the plain name and the others get a
hash suffix.  The outcome depends only on the *set* of inputs, never on their order, and every
collision is listed so the host can report it.  Dispatch always uses the original names the
assignment maps back to, never the registry name.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = [
    "MAX_NAME_LENGTH",
    "AssignedName",
    "NameAssignment",
    "NameCollision",
    "assign_names",
    "registered_tool_name",
    "sanitize_component",
    "toolset_name",
]

MAX_NAME_LENGTH = 64
"""The longest tool name model APIs accept; every registry name fits."""

_HASH_CHARS = 8
_KEPT_CHARS = MAX_NAME_LENGTH - _HASH_CHARS - 1  # 55 characters, "_", 8 hex digits
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


def sanitize_component(part: str) -> str:
    """Replace every character outside ``[A-Za-z0-9_]`` with ``_`` (no collapsing)."""
    return _UNSAFE.sub("_", part)


def _plain_name(server: str, tool: str) -> str:
    return f"mcp_{sanitize_component(server)}_{sanitize_component(tool)}"


def _digest(text: str) -> str:
    # surrogatepass: a lone surrogate in a hostile server's tool name must not crash hashing.
    data = text.encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()[:_HASH_CHARS]


def _suffixed(plain: str, hashed_text: str) -> str:
    return f"{plain[:_KEPT_CHARS]}_{_digest(hashed_text)}"


def registered_tool_name(server: str, tool: str) -> str:
    """The registry name of *tool* on *server*, before collision resolution.

    >>> registered_tool_name("my-api", "query.data")
    'mcp_my_api_query_data'
    """
    plain = _plain_name(server, tool)
    if len(plain) <= MAX_NAME_LENGTH:
        return plain
    return _suffixed(plain, f"{server}/{tool}")


def toolset_name(server: str) -> str:
    """The toolset holding *server*'s tools: ``mcp-<server>`` with the raw server name."""
    return f"mcp-{server}"


@dataclass(frozen=True)
class AssignedName:
    """One tool's final registry name."""

    server: str
    tool: str
    name: str

    @property
    def origin(self) -> tuple[str, str]:
        """``(server, tool)`` as the server spelled them."""
        return (self.server, self.tool)

    @property
    def clamped(self) -> bool:
        """True when the plain ``mcp_<server>_<tool>`` name was over 64 characters."""
        return len(_plain_name(self.server, self.tool)) > MAX_NAME_LENGTH


@dataclass(frozen=True)
class NameCollision:
    """Tools whose names sanitised (or clamped) to the same *base_name*.

    ``members`` is sorted by ``(server, tool)``; the first keeps *base_name*, the others carry a
    hash suffix.
    """

    base_name: str
    members: tuple[AssignedName, ...]

    def message(self) -> str:
        """A one-line report for logs and ``hermes mcp tools``."""
        parts = ", ".join(f"{m.server!r}/{m.tool!r} → {m.name}" for m in self.members)
        return f"tool name collision on {self.base_name!r}: {parts}"


@dataclass(frozen=True)
class NameAssignment:
    """The result of :func:`assign_names`: one entry per distinct ``(server, tool)``."""

    entries: tuple[AssignedName, ...]
    collisions: tuple[NameCollision, ...]
    _by_origin: Mapping[tuple[str, str], str] = field(
        init=False, repr=False, compare=False, hash=False
    )
    _by_name: Mapping[str, tuple[str, str]] = field(
        init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        by_origin = {e.origin: e.name for e in self.entries}
        by_name = {e.name: e.origin for e in self.entries}
        if len(by_name) != len(self.entries) or len(by_origin) != len(self.entries):
            raise ValueError("a name assignment must map distinct tools to distinct names")
        object.__setattr__(self, "_by_origin", MappingProxyType(by_origin))
        object.__setattr__(self, "_by_name", MappingProxyType(by_name))

    @property
    def names(self) -> Mapping[tuple[str, str], str]:
        """Read-only ``(server, tool) → registry name``."""
        return self._by_origin

    @property
    def clamped(self) -> tuple[AssignedName, ...]:
        """Entries whose plain name was over 64 characters (worth one warning each)."""
        return tuple(e for e in self.entries if e.clamped)

    def name_for(self, server: str, tool: str) -> str:
        """The registry name of *tool* on *server*; ``KeyError`` when it was not assigned."""
        return self._by_origin[(server, tool)]

    def origin_of(self, name: str) -> tuple[str, str] | None:
        """``(server, tool)`` behind a registry name, or ``None`` when it is not ours."""
        return self._by_name.get(name)

    def __len__(self) -> int:
        return len(self.entries)


def _free_name(server: str, tool: str, taken: set[str]) -> str:
    plain = _plain_name(server, tool)
    origin = f"{server}/{tool}"
    candidate = _suffixed(plain, origin)
    attempt = 0
    # Only hostile inputs get past the first try: a tool literally named like another's suffixed
    # name, clamped names sharing 55 characters, or "a/b"+"c" against "a"+"b/c".
    while candidate in taken:
        attempt += 1
        candidate = _suffixed(plain, f"{origin}#{attempt}")
    return candidate


def assign_names(pairs: Iterable[tuple[str, str]]) -> NameAssignment:
    """Give every ``(server, tool)`` a distinct registry name, deterministically.

    Duplicate pairs count once.  Each group of tools sharing a :func:`registered_tool_name` is
    sorted; the first keeps that name, the rest get ``<first 55 chars>_<8 hex>``.  Every
    un-suffixed name of the input set is reserved before any suffix is chosen, so a suffixed name
    never takes a name another tool would have had, and the result depends on the set alone.
    """
    origins = sorted(set(pairs))
    groups: dict[str, list[tuple[str, str]]] = {}
    for server, tool in origins:
        groups.setdefault(registered_tool_name(server, tool), []).append((server, tool))

    taken = set(groups)
    final: dict[tuple[str, str], str] = {}
    collisions: list[NameCollision] = []
    for base in sorted(groups):
        first, *rest = groups[base]
        final[first] = base
        for server, tool in rest:
            name = _free_name(server, tool, taken)
            taken.add(name)
            final[(server, tool)] = name
        if rest:
            members = tuple(AssignedName(s, t, final[(s, t)]) for s, t in groups[base])
            collisions.append(NameCollision(base_name=base, members=members))

    entries = tuple(AssignedName(s, t, final[(s, t)]) for s, t in origins)
    return NameAssignment(entries=entries, collisions=tuple(collisions))
