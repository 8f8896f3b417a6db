"""The typed results of the ten tools (their output schemas)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

__all__ = [
    "ApprovalInfo",
    "ApprovalsList",
    "AttachmentInfo",
    "AttachmentsResult",
    "ChannelInfo",
    "ChannelsList",
    "ConversationDetail",
    "ConversationInfo",
    "ConversationsList",
    "EventInfo",
    "EventWait",
    "EventsPage",
    "MessageInfo",
    "MessagesPage",
    "PermissionResult",
    "SendResult",
]


class ConversationInfo(BaseModel):
    session_key: str
    platform: str
    chat_id: str
    chat_type: str
    title: str = Field(description="The chat's display name")
    user_name: str
    updated_at: float = Field(description="Unix time of the last message")
    message_count: int
    source: Literal["state.db", "sessions.json"]


class ConversationsList(BaseModel):
    count: int
    conversations: list[ConversationInfo]


class MessageInfo(BaseModel):
    id: int
    role: str
    author: str
    content: str
    truncated: bool = Field(description="True when content was cut at max_chars")
    timestamp: float
    attachments: int = Field(description="How many attachments (see attachments_fetch)")


class ConversationDetail(ConversationInfo):
    created_at: float
    input_tokens: int
    output_tokens: int
    last_message: MessageInfo | None


class MessagesPage(BaseModel):
    session_key: str
    count: int
    total_in_session: int
    messages: list[MessageInfo] = Field(description="Oldest first")
    next_before_id: int | None = Field(
        description="Pass as before_id to read the page before this one (null: no more)"
    )


class AttachmentInfo(BaseModel):
    id: int
    kind: str
    mime: str
    name: str
    size: int | None
    included: bool = Field(description="Whether its content is in this result")
    note: str = ""


class AttachmentsResult(BaseModel):
    session_key: str
    message_id: int
    attachments: list[AttachmentInfo]


class EventInfo(BaseModel):
    cursor: int
    kind: Literal["message", "approval_requested", "approval_resolved"]
    session_key: str | None
    time: float
    data: dict[str, Any]


class EventsPage(BaseModel):
    events: list[EventInfo]
    next_cursor: int = Field(description="Pass as after_cursor next time")
    fell_behind: bool = Field(description="Events after after_cursor were dropped (queue full)")
    missed: int = Field(description="How many events were dropped")


class EventWait(BaseModel):
    event: EventInfo | None
    reason: Literal["event", "timeout"]
    next_cursor: int
    fell_behind: bool
    missed: int


class SendResult(BaseModel):
    sent: bool
    target: str
    platform: str
    chat_id: str
    message_id: str | None = Field(description="The platform's id for the message, if given")
    detail: str
    recorded_message_id: int | None = Field(
        description="The id of the sent message in state.db (messages_read shows it); null "
        "when it was sent but could not be recorded (detail says why)"
    )
    duplicate: bool = Field(
        default=False, description="A retry with an earlier send_key: nothing was sent again"
    )


class ChannelInfo(BaseModel):
    target: str = Field(description="Pass to messages_send")
    platform: str
    chat_id: str
    name: str
    description: str
    sendable: bool = Field(description="A configured messaging adapter can send here")
    source: Literal["adapter", "conversations"]


class ChannelsList(BaseModel):
    count: int
    channels: list[ChannelInfo]
    note: str = ""


class ApprovalInfo(BaseModel):
    id: int
    kind: str = Field(description="elicitation, sampling, …")
    server: str
    summary: str
    state: Literal["pending", "allowed", "denied", "expired"]
    requested_at: float
    payload: dict[str, Any] = Field(
        description="For elicitation: message and fields (name, type, required, default, choices)"
    )


class ApprovalsList(BaseModel):
    count: int
    approvals: list[ApprovalInfo]


class PermissionResult(BaseModel):
    id: int
    kind: str
    state: Literal["pending", "allowed", "denied", "expired"]
    decision: str | None
