"""An install's app declaration decides it: a malformed one is refused in the declaration
parser's words, and one whose app is not offerable here refuses the install as the catalog
does (:func:`hermes_core.catalog.catalog.refusal`)."""

from __future__ import annotations

from collections.abc import Mapping

from hermes_core.catalog.catalog import Entry, refusal
from hermes_core.catalog.command_line import one_line
from hermes_core.catalog.install_plan import InstallRefused
from hermes_core.catalog.registry.app_meta import MetaDeclaration, read_declaration
from hermes_platform.declaration import DeclarationError

__all__ = ["declared_lines", "declared_refusal", "own_declaration"]


def own_declaration(ours: Mapping[str, object], name: str, where: str) -> MetaDeclaration | None:
    """The app declaration under *ours* (``dev.hermes/…`` keys of ``_meta``) for the entry
    *name*; a malformed or unknown one is refused with the declaration parser's words."""
    try:
        return read_declaration(ours, name, where)
    except DeclarationError as exc:
        raise InstallRefused(f"{exc}; refused, nothing was installed") from None


def declared_refusal(
    name: str, origin: str, own: MetaDeclaration | None, display_names: dict[str, str]
) -> str | None:
    """Why *name* may not be installed here: its own declaration (else a plugin's)."""
    entry = Entry(name, origin, "registry", own_declaration=own.declaration if own else None)
    shown = (own.display_name if own else None) or display_names.get(name)
    return refusal(entry, shown)


def declared_lines(name: str, own: MetaDeclaration | None) -> list[str]:
    """The install screen's line for a declaration that comes with the install."""
    if own is None:
        return []
    shown = one_line(own.display_name or name)
    return [f"  app:       {shown} (declared: its tools are offered only where it can run)"]
