"""The user-facing words for an unavailable server.

``guidance(decl, availability)`` turns an :class:`Availability` into the
state a user sees, one sentence ("<reason> <action>") and when a retry can
help.  The words are the contract vendors and users rely on; tests pin them.
"""

from __future__ import annotations

from dataclasses import dataclass

from hermes_platform.declaration import Declaration, gpu_label
from hermes_platform.resolver.availability import Availability

__all__ = ["Guidance", "guidance"]


@dataclass(frozen=True)
class Guidance:
    """What to tell the user: ``state``, ``reason``, ``action`` and ``retry``."""

    state: str
    reason: str
    action: str
    retry: str

    @property
    def sentence(self) -> str:
        return f"{self.reason} {self.action}"


def guidance(
    decl: Declaration, result: Availability, *, display_name: str | None = None
) -> Guidance | None:
    """The guidance for an unavailable *result*; ``None`` when it is offerable."""
    app = display_name or decl.name
    state = result.state
    if state in ("missing_app", "unsupported_os"):
        return Guidance(
            "missing_app",
            f"{app} is not installed.",
            f"Install {app}, then try again.",
            "after_user_action",
        )
    if state == "unsupported_gpu":
        label = gpu_label(decl.required_gpu)
        return Guidance(
            "unsupported_gpu",
            f"{app} needs {label}; none was found on this machine.",
            f"Use {app} on a machine with {label}.",
            "never_here",
        )
    if state == "version_too_old":
        found = f" version {result.version}" if result.version else ""
        needed = (
            f"; version {result.min_version} or newer is required" if result.min_version else ""
        )
        return Guidance(
            "version_too_old",
            f"{app}{found} is too old{needed}.",
            f"Update {app}, then try again.",
            "after_user_action",
        )
    return None
