"""The changed definitions waiting for the user, each as it is shown for review: what changed
(against the pinned tool of the same name the agent sees) and the digest that accepting it
names (``hermes mcp trust … --digest``, the dashboard's Accept form).  One account for the CLI
and the dashboard, so both show, and accept, the same thing."""

from __future__ import annotations

from dataclasses import dataclass

from hermes_core.host.trust.definitions import SHOWN_DIGEST, Stored, changes
from hermes_core.host.trust.identity import PinnedNames
from hermes_core.host.trust.state import TrustState

__all__ = ["Review", "reviews"]


@dataclass(frozen=True)
class Review:
    """One changed definition waiting for the user."""

    server: str
    tool: str
    digest: str
    """The SHA-256 of the waiting definition: accepting it accepts this one and no other."""
    lines: tuple[str, ...]
    """What changed, one line per part."""
    replaces: str | None
    """The pinned tool of another name whose name (as the agent sees it) this one takes
    (``read_file`` for ``read-file``); ``None``: the same tool changed."""

    @property
    def short_digest(self) -> str:
        """The digest as shown (its first :data:`SHOWN_DIGEST` hex digits)."""
        return self.digest[:SHOWN_DIGEST]


def reviews(store: TrustState, server: str | None = None) -> dict[str, dict[str, Review]]:
    """Server -> tool -> its waiting change (one server's, or all); ``TrustStoreError`` when
    trust.db cannot be read."""
    found: dict[str, dict[str, Review]] = {}
    for name, waiting in store.changes(server).items():
        pins = store.pins(name)
        names = PinnedNames(pins)
        for tool, change in waiting.items():
            against = names.compared_with(tool)
            pin = pins.get(against) if against is not None else None
            # No pin (its pin was replaced by an accepted tool of another name since): shown
            # whole, as added.
            before = pin.stored if pin is not None else Stored({}, 0)
            found.setdefault(name, {})[tool] = Review(
                name,
                tool,
                change.digest,
                tuple(changes(before, change.stored)),
                against if against not in (None, tool) else None,
            )
    return found
