"""The rows of the session store, as frozen dataclasses."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "APPROVAL_DECISIONS",
    "Approval",
    "ApprovalState",
    "Attachment",
    "AttachmentKind",
    "Conversation",
    "Message",
    "NewAttachment",
]

AttachmentKind = Literal["image", "video", "audio", "file"]
ApprovalState = Literal["pending", "allowed", "denied", "expired"]
#: What a person may answer to an approval request.
APPROVAL_DECISIONS = ("allow-once", "allow-always", "deny")


@dataclass(frozen=True)
class Conversation:
    """One conversation (a chat on a platform, or an agent session)."""

    session_key: str
    platform: str = ""
    chat_id: str = ""
    chat_type: str = ""
    title: str = ""
    user_name: str = ""
    created_at: float = 0.0
    updated_at: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    message_count: int = 0
    source: Literal["state.db", "sessions.json"] = "state.db"


@dataclass(frozen=True)
class Message:
    id: int
    session_key: str
    role: str
    text: str
    author: str = ""
    created_at: float = 0.0
    attachment_count: int = 0


@dataclass(frozen=True)
class NewAttachment:
    """An attachment to record with a message: a file *path* or the *data* itself."""

    kind: AttachmentKind
    mime: str = "application/octet-stream"
    name: str = ""
    path: str | None = None
    data: bytes | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Attachment:
    id: int
    message_id: int
    kind: str
    mime: str
    name: str
    path: str | None
    size: int | None
    stored_inline: bool
    """``True`` when the bytes are in the database, ``False`` when ``path`` points at them."""


@dataclass(frozen=True)
class Approval:
    """A question the host asked a person (an elicitation form, a sampling request, …)."""

    id: int
    kind: str
    server: str
    summary: str
    payload: Mapping[str, object] = field(hash=False)
    state: ApprovalState
    decision: str | None
    answer: Mapping[str, object] | None = field(hash=False)
    requested_at: float
    resolved_at: float | None
    resolved_by: str | None
