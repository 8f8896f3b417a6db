"""A remembered decision about one tool of one server: ask, always run, never run."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Decision"]


class Decision(StrEnum):
    """What the user decided for a tool (``hermes mcp approvals set``, the prompt's answers)."""

    ASK = "ask"
    """Ask before every call, whatever the server's trust tier and the tool's hints."""
    ALWAYS = "always"
    """Run without asking (the approval an untrusted server's write-capable tool needs)."""
    NEVER = "never"
    """Never run it: the tool is hidden and every call is refused."""

    @classmethod
    def parse(cls, text: str) -> Decision:
        """The decision named *text*; ``ValueError`` naming the choices otherwise."""
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise ValueError(f"unknown decision {text!r} (choose ask, always or never)") from None
