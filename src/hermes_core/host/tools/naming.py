"""Registry names for MCP tools: ``mcp_<server>_<tool>``, clamped, collision-free.

The form is the user guide's (``product.md`` → Decisions): ``mcp_`` + server + ``_`` + tool, with
every character outside ``[A-Za-z0-9_]`` replaced by ``_`` (``my-api`` + ``query.data`` →
``mcp_my_api_query_data``).  Model APIs reject tool names over 64 characters, so a longer name
keeps its first 55 characters and gains ``_`` + 8 hex digits of SHA-256 over the *unsanitised*
``"<server>/<tool>"``; the result is exactly 64 characters and the same on every run.

Sanitising is lossy (``a.b`` and ``a_b`` both become ``a_b``; server ``my`` with tool
``api_echo`` and server ``my-api`` with tool ``echo`` both become ``mcp_my_api_echo``), so
:func:`assign_names` resolves collisions over every server's tools at once:

* tools of **one** server that share a name: sorted, the first keeps the plain name and the
  others get a hash suffix;
* tools of **different** servers that share a name: every one of them gets a hash suffix, so no
  server can take over a name another server's tool would have had (a call meant for one
  server can never reach the other);
* a server tool literally named like a host utility tool (``list_resources`` …) keeps the plain
  name and the utility gets the hash suffix, so neither hides the other.

The outcome depends only on the *set* of inputs, never on their order, and every collision is
listed so the host can report it.  Dispatch always uses the original names the assignment maps
back to, never the registry name.
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
    utility: bool = False
    """A host-made utility tool (``list_resources`` …), not one the server listed."""
    shown: str | None = None
    """The name an override gives the tool (``tools.overrides``), which its registry name is
    made from; ``None``: its own."""

    @property
    def origin(self) -> tuple[str, str]:
        """``(server, tool)`` as the server spelled them."""
        return (self.server, self.tool)

    @property
    def clamped(self) -> bool:
        """True when the plain ``mcp_<server>_<tool>`` name was over 64 characters."""
        return len(_plain_name(self.server, self.shown or self.tool)) > MAX_NAME_LENGTH


@dataclass(frozen=True)
class NameCollision:
    """Tools whose names sanitised (or clamped) to the same *base_name*.

    ``members`` is sorted by ``(server, tool)``.  When they are all of one server the first
    keeps *base_name* and the others carry a hash suffix; across servers every one does.
    """

    base_name: str
    members: tuple[AssignedName, ...]

    def message(self) -> str:
        """A one-line report for logs and ``hermes mcp tools``."""
        parts = ", ".join(
            f"{m.server!r}/{m.tool!r}{' (utility)' if m.utility else ''}"
            f"{f' (renamed {m.shown!r})' if m.shown else ''} → {m.name}"
            for m in self.members
        )
        return f"tool name collision on {self.base_name!r}: {parts}"


@dataclass(frozen=True)
class NameAssignment:
    """The result of :func:`assign_names`: one entry per distinct ``(server, tool)``."""

    entries: tuple[AssignedName, ...]
    collisions: tuple[NameCollision, ...]
    _by_origin: Mapping[tuple[str, str, bool], str] = field(
        init=False, repr=False, compare=False, hash=False
    )
    _by_name: Mapping[str, tuple[str, str]] = field(
        init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        by_origin = {(e.server, e.tool, e.utility): e.name for e in self.entries}
        by_name = {e.name: e.origin for e in self.entries}
        if len(by_name) != len(self.entries) or len(by_origin) != len(self.entries):
            raise ValueError("a name assignment must map distinct tools to distinct names")
        object.__setattr__(self, "_by_origin", MappingProxyType(by_origin))
        object.__setattr__(self, "_by_name", MappingProxyType(by_name))

    @property
    def names(self) -> Mapping[tuple[str, str], str]:
        """Read-only ``(server, tool) → registry name`` of the server's own tools."""
        return MappingProxyType({(e.server, e.tool): e.name for e in self.entries if not e.utility})

    @property
    def clamped(self) -> tuple[AssignedName, ...]:
        """Entries whose plain name was over 64 characters (worth one warning each)."""
        return tuple(e for e in self.entries if e.clamped)

    def name_for(self, server: str, tool: str, *, utility: bool = False) -> str:
        """The registry name of *tool* on *server* (a utility tool with *utility*);
        ``KeyError`` when it was not assigned."""
        return self._by_origin[(server, tool, utility)]

    def for_server(self, server: str) -> tuple[NameCollision, ...]:
        """The collisions *server* takes part in."""
        return tuple(c for c in self.collisions if any(m.server == server for m in c.members))

    def origin_of(self, name: str) -> tuple[str, str] | None:
        """``(server, tool)`` behind a registry name, or ``None`` when it is not ours."""
        return self._by_name.get(name)

    def __len__(self) -> int:
        return len(self.entries)


def _free_name(
    server: str, tool: str, taken: set[str], utility: bool = False, shown: str | None = None
) -> str:
    plain = _plain_name(server, shown or tool)
    origin = f"{server}/{tool}" + ("#utility" if utility else "")
    candidate = _suffixed(plain, origin)
    attempt = 0
    # Only hostile inputs get past the first try: a tool literally named like another's suffixed
    # name, clamped names sharing 55 characters, or "a/b"+"c" against "a"+"b/c".
    while candidate in taken:
        attempt += 1
        candidate = _suffixed(plain, f"{origin}#{attempt}")
    return candidate


def assign_names(
    pairs: Iterable[tuple[str, str]],
    utilities: Iterable[tuple[str, str]] = (),
    shown: Mapping[tuple[str, str], str] | None = None,
) -> NameAssignment:
    """Give every ``(server, tool)`` a distinct registry name, deterministically.

    *pairs* are the servers' own tools, *utilities* the host's utility tools per server.
    Duplicate pairs count once.  Each group of tools sharing a :func:`registered_tool_name` is
    sorted; within one server the first keeps that name, the rest get ``<first 55 chars>_<8
    hex>``; a group spanning servers is suffixed throughout.  Every un-suffixed name of the input
    set is reserved before any suffix is chosen, so a suffixed name never takes a name another
    tool would have had, and the result depends on the set alone.  *shown* gives a server's
    tool the name an override chose (``(server, tool) -> name``): its registry name is made
    from that name, and it collides like any other.
    """
    origins = sorted({(s, t, False) for s, t in pairs} | {(s, t, True) for s, t in utilities})
    renamed = shown or {}

    def shown_as(server: str, tool: str, utility: bool) -> str | None:
        return None if utility else renamed.get((server, tool))

    groups: dict[str, list[tuple[str, str, bool]]] = {}
    for server, tool, utility in origins:
        base = registered_tool_name(server, shown_as(server, tool, utility) or tool)
        groups.setdefault(base, []).append((server, tool, utility))

    taken = set(groups)
    final: dict[tuple[str, str, bool], str] = {}
    collisions: list[NameCollision] = []
    for base in sorted(groups):
        members = groups[base]
        across_servers = len({server for server, _, _ in members}) > 1
        keeper, rest = (None, members) if across_servers else (members[0], members[1:])
        if keeper is not None:
            final[keeper] = base
        for server, tool, utility in rest:
            name = _free_name(server, tool, taken, utility, shown_as(server, tool, utility))
            taken.add(name)
            final[(server, tool, utility)] = name
        if len(members) > 1:
            collisions.append(
                NameCollision(
                    base_name=base,
                    members=tuple(
                        AssignedName(s, t, final[(s, t, u)], u, shown_as(s, t, u))
                        for s, t, u in members
                    ),
                )
            )

    entries = tuple(
        AssignedName(s, t, final[(s, t, u)], u, shown_as(s, t, u)) for s, t, u in origins
    )
    return NameAssignment(entries=entries, collisions=tuple(collisions))
