"""The Hermes app declaration a registry ``server.json`` or a ``.mcpb`` ``manifest.json``
carries under ``_meta["dev.hermes/declaration"]``: ``{"app": …, "requires": …,
"display_name": …}``, the ``app``/``requires`` blocks exactly as in a ``plugin.yaml``.

Strict where it counts: a key of our namespace (``dev.hermes/…``) other than
:data:`DECLARATION_META`, a value that is not an object, a key of the object other than
:data:`DECLARATION_KEYS` and any block the declaration parser refuses are each a
:class:`~hermes_platform.declaration.DeclarationError` in the parser's words, so that an
install refuses it rather than installing a server its vendor meant to gate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hermes_platform.declaration import (
    Declaration,
    DeclarationError,
    parse_declaration,
    unknown_keys_reason,
)

__all__ = [
    "DECLARATION_KEYS",
    "DECLARATION_META",
    "MetaDeclaration",
    "hermes_meta",
    "read_declaration",
]

DECLARATION_META = "dev.hermes/declaration"
"""The ``_meta`` key holding an app declaration."""
DECLARATION_KEYS = ("app", "requires", "display_name")
"""The keys of the declaration object."""
_NAMESPACE = "dev.hermes/"
_PUBLISHER = "io.modelcontextprotocol.registry/publisher-provided"
_MAX_DISPLAY_NAME = 200


@dataclass(frozen=True)
class MetaDeclaration:
    """A declaration read from ``_meta``: parsed, and as written (what the install keeps)."""

    declaration: Declaration
    raw: Mapping[str, object]
    """``{"app": …, "requires": …, "display_name": …}`` as written (the keys present)."""

    @property
    def display_name(self) -> str | None:
        name = self.raw.get("display_name")
        return name if isinstance(name, str) else None


def hermes_meta(meta: object) -> dict[str, object]:
    """Every ``dev.hermes/…`` key of a ``_meta`` object (and of its registry
    ``publisher-provided`` block), unparsed; ``{}`` when there is none."""
    found: dict[str, object] = {}
    if not isinstance(meta, dict):
        return found
    publisher = meta.get(_PUBLISHER)
    for holder in (publisher, meta):  # the top level wins over the publisher's copy
        if isinstance(holder, dict):
            found.update({k: v for k, v in holder.items() if str(k).startswith(_NAMESPACE)})
    return found


def read_declaration(ours: Mapping[str, object], name: str, where: str) -> MetaDeclaration | None:
    """The declaration among *ours* (from :func:`hermes_meta`) for the server configured as
    *name*; ``None`` when there is none.  *where* labels every error (``<where>: <reason>``)."""
    unknown = [key for key in ours if key != DECLARATION_META]
    if unknown:
        reason = unknown_keys_reason("_meta", unknown, (DECLARATION_META,))
        raise DeclarationError(where, "_meta", reason)
    if DECLARATION_META not in ours:
        return None
    raw = ours[DECLARATION_META]
    label = f"_meta[{DECLARATION_META!r}]"
    if not isinstance(raw, dict):
        raise DeclarationError(where, label, f"{label} must be an object with {DECLARATION_KEYS}")
    extra = [key for key in raw if key not in DECLARATION_KEYS]
    if extra:
        raise DeclarationError(where, label, unknown_keys_reason(label, extra, DECLARATION_KEYS))
    display_name = raw.get("display_name")
    if display_name is not None and (
        not isinstance(display_name, str)
        or not display_name.strip()
        or len(display_name) > _MAX_DISPLAY_NAME
        or not display_name.isprintable()
    ):
        raise DeclarationError(
            where,
            "display_name",
            f"display_name must be a printable string of at most {_MAX_DISPLAY_NAME} characters",
        )
    parsed = parse_declaration(
        name, raw_app=raw.get("app"), raw_requires=raw.get("requires"), where=where
    )
    return MetaDeclaration(parsed, {k: raw[k] for k in DECLARATION_KEYS if k in raw})
