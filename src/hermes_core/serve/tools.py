"""The ten tools of ``hermes mcp serve``, registered on an ``MCPServer``.

Numbers the client passes are clamped to their documented range rather than refused (a
``limit`` of 1000 reads 200).  Failures raise ``ToolError``: the client sees a tool result
with ``isError`` and one sentence.
"""

from __future__ import annotations

import asyncio
import base64
import inspect
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import anyio
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import (
    BlobResourceContents,
    CallToolResult,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    TextContent,
)
from pydantic import Field

from hermes_core.sanitize import sanitize_value
from hermes_core.serve.events import Event, EventQueue, Page
from hermes_core.serve.messaging import Messaging, SendError
from hermes_core.serve.results import (
    ApprovalInfo,
    ApprovalsList,
    AttachmentInfo,
    AttachmentsResult,
    ChannelInfo,
    ChannelsList,
    ConversationDetail,
    ConversationInfo,
    ConversationsList,
    EventInfo,
    EventsPage,
    EventWait,
    MessageInfo,
    MessagesPage,
    PermissionResult,
    SendResult,
)
from hermes_core.serve.sent import SendInProgressError, SentMessages
from hermes_core.sessions.models import Approval, Conversation, Message
from hermes_core.sessions.store import ApprovalError, SessionStore

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["MAX_ATTACHMENT_BYTES", "TOOL_NAMES", "Bridge", "register_tools"]

log = logging.getLogger(__name__)
TOOL_NAMES = (
    "conversations_list",
    "conversation_get",
    "messages_read",
    "attachments_fetch",
    "events_poll",
    "events_wait",
    "messages_send",
    "channels_list",
    "permissions_list_open",
    "permissions_respond",
)
MAX_ATTACHMENT_BYTES = 8 * 1024 * 1024
MAX_FETCH_BYTES = 16 * 1024 * 1024
MAX_SEND_CHARS = 40_000


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


_ROW_ID = 2**63 - 1  # SQLite's largest integer: a larger one raised OverflowError


def _row_id(value: int) -> int:
    """An id from a client, within SQLite's integers (no row has an id outside them)."""
    return _clamp(value, -_ROW_ID - 1, _ROW_ID)


def _text(value: str) -> str:
    return sanitize_value(value)


class Bridge:
    """What the tools work on: the store, the event queue and the messaging adapters."""

    def __init__(self, store: SessionStore, queue: EventQueue, messaging: Messaging) -> None:
        self.store = store
        self.queue = queue
        self.messaging = messaging

    # -- conversations and messages -------------------------------------------------------
    def conversation_info(self, c: Conversation) -> dict[str, Any]:
        return {
            "session_key": _text(c.session_key),
            "platform": _text(c.platform),
            "chat_id": _text(c.chat_id),
            "chat_type": _text(c.chat_type),
            "title": _text(c.title),
            "user_name": _text(c.user_name),
            "updated_at": c.updated_at,
            "message_count": c.message_count,
            "source": c.source,
        }

    def message_info(self, m: Message, max_chars: int) -> MessageInfo:
        return MessageInfo(
            id=m.id,
            role=m.role,
            author=_text(m.author),
            content=_text(m.text[:max_chars]),
            truncated=len(m.text) > max_chars,
            timestamp=m.created_at,
            attachments=m.attachment_count,
        )

    def conversation(self, session_key: str) -> Conversation:
        found = self.store.conversation(session_key)
        if found is None:
            raise _error(f"Conversation not found: {session_key}")
        return found

    # -- events -----------------------------------------------------------------------------
    @staticmethod
    def event_info(event: Event) -> EventInfo:
        return EventInfo(
            cursor=event.cursor,
            kind=event.kind,
            session_key=event.session_key,
            time=event.time,
            data=sanitize_value(event.data),
        )

    # -- approvals --------------------------------------------------------------------------
    @staticmethod
    def approval_info(a: Approval) -> ApprovalInfo:
        return ApprovalInfo(
            id=a.id,
            kind=a.kind,
            server=_text(a.server),
            summary=_text(a.summary),
            state=a.state,
            requested_at=a.requested_at,
            payload=sanitize_value(dict(a.payload)),
        )


_Tool = TypeVar("_Tool", bound=Callable[..., object])


def _error(message: str) -> Exception:
    return ToolError(message)


def _dedented_tool(server: MCPServer) -> Callable[[_Tool], _Tool]:
    """``server.tool()`` with the function's docstring dedented as its description (the SDK
    sends ``__doc__`` as written, with the source's indentation)."""

    def register(function: _Tool) -> _Tool:
        server.tool(description=inspect.cleandoc(function.__doc__ or ""))(function)
        return function

    return register


def register_tools(server: MCPServer, bridge: Bridge) -> None:
    """Add the ten tools to *server* (an ``mcp.server.mcpserver.MCPServer``)."""
    store = bridge.store
    sent: SentMessages[SendResult] = SentMessages()
    tool = _dedented_tool(server)

    @tool
    async def conversations_list(
        platform: Annotated[
            str | None, Field(description="Only this platform (telegram, slack, …)")
        ] = None,
        search: Annotated[
            str | None,
            Field(description="Case-insensitive text in the title, user name, chat id or key"),
        ] = None,
        limit: Annotated[int, Field(description="1-200 (clamped)")] = 50,
    ) -> ConversationsList:
        """List conversations, most recently active first; filter by platform or search by
        name."""
        found = store.conversations(platform=platform, search=search, limit=_clamp(limit, 1, 200))
        items = [ConversationInfo(**bridge.conversation_info(c)) for c in found]
        return ConversationsList(count=len(items), conversations=items)

    @tool
    async def conversation_get(
        session_key: Annotated[str, Field(description="From conversations_list")],
    ) -> ConversationDetail:
        """One conversation in detail: platform, chat, token counts, its last message."""
        found = bridge.conversation(session_key)
        last = store.messages(session_key, limit=1)
        return ConversationDetail(
            **bridge.conversation_info(found),
            created_at=found.created_at,
            input_tokens=found.input_tokens,
            output_tokens=found.output_tokens,
            last_message=bridge.message_info(last[0], 2000) if last else None,
        )

    @tool
    async def messages_read(
        session_key: Annotated[str, Field(description="From conversations_list")],
        limit: Annotated[int, Field(description="1-200 (clamped)")] = 50,
        before_id: Annotated[
            int | None, Field(description="Read the messages before this id (paging)")
        ] = None,
        max_chars: Annotated[
            int, Field(description="Cut each message at this many characters (100-100000)")
        ] = 2000,
    ) -> MessagesPage:
        """Read a conversation's recent messages (oldest first); page back with before_id."""
        found = bridge.conversation(session_key)
        if found.source == "sessions.json":
            return MessagesPage(
                session_key=session_key,
                count=0,
                total_in_session=0,
                messages=[],
                next_before_id=None,
            )
        limit = _clamp(limit, 1, 200)
        before_id = None if before_id is None else _row_id(before_id)
        page = store.messages(session_key, limit=limit, before_id=before_id)
        chars = _clamp(max_chars, 100, 100_000)
        total = store.message_count(session_key)
        earlier = bool(page) and bool(store.messages(session_key, limit=1, before_id=page[0].id))
        return MessagesPage(
            session_key=session_key,
            count=len(page),
            total_in_session=total,
            messages=[bridge.message_info(m, chars) for m in page],
            next_before_id=page[0].id if earlier else None,
        )

    @tool
    async def attachments_fetch(
        session_key: Annotated[str, Field(description="The message's conversation")],
        message_id: Annotated[int, Field(description="From messages_read")],
    ) -> Annotated[CallToolResult, AttachmentsResult]:
        """Fetch a message's attachments: images as image content, other files as embedded
        resources (each up to 8 MiB, 16 MiB in all; larger ones are listed, not sent)."""
        message_id = _row_id(message_id)
        message = store.message(message_id)
        if message is None or message.session_key != session_key:
            raise _error(f"Message not found: {message_id}")
        content: list[ContentBlock] = []
        infos: list[AttachmentInfo] = []
        budget = MAX_FETCH_BYTES
        for item in store.attachments(message_id):
            info = AttachmentInfo(
                id=item.id,
                kind=item.kind,
                mime=item.mime,
                name=_text(item.name),
                size=item.size,
                included=False,
            )
            bound = min(MAX_ATTACHMENT_BYTES, max(budget, 0))
            try:
                if item.stored_inline:
                    data = store.attachment_data(item, max_bytes=bound)
                else:  # a file, read in a worker thread: a slow disk never holds the loop
                    data = await asyncio.to_thread(store.attachment_data, item, max_bytes=bound)
            except ValueError as exc:
                info.note = f"not included: {exc}"
                infos.append(info)
                continue
            budget -= len(data)
            info.size = len(data)
            info.included = True
            encoded = base64.b64encode(data).decode("ascii")
            if item.kind == "image" and item.mime.startswith("image/"):
                content.append(ImageContent(type="image", data=encoded, mime_type=item.mime))
            else:
                content.append(
                    EmbeddedResource(
                        type="resource",
                        resource=BlobResourceContents(
                            uri=f"hermes://attachments/{item.id}", mime_type=item.mime, blob=encoded
                        ),
                    )
                )
            infos.append(info)
        result = AttachmentsResult(
            session_key=session_key, message_id=message_id, attachments=infos
        )
        if not infos:
            content.append(TextContent(type="text", text="This message has no attachments."))
        summary = TextContent(type="text", text=result.model_dump_json())
        return CallToolResult(
            content=[summary, *content], structured_content=result.model_dump(mode="json")
        )

    @tool
    async def events_poll(
        after_cursor: Annotated[int, Field(description="The next_cursor of the last call")] = 0,
        session_key: Annotated[str | None, Field(description="Only this conversation")] = None,
        limit: Annotated[int, Field(description="1-200 (clamped)")] = 20,
    ) -> EventsPage:
        """New events since after_cursor (non-blocking): message, approval_requested,
        approval_resolved. The queue starts when this server starts."""
        page = bridge.queue.page(after_cursor, session_key=session_key, limit=_clamp(limit, 1, 200))
        return EventsPage(
            events=[bridge.event_info(e) for e in page.events],
            next_cursor=page.next_cursor,
            fell_behind=page.fell_behind,
            missed=page.missed,
        )

    @tool
    async def events_wait(
        after_cursor: Annotated[int, Field(description="The next_cursor of the last call")] = 0,
        session_key: Annotated[str | None, Field(description="Only this conversation")] = None,
        timeout_ms: Annotated[int, Field(description="0-300000 (clamped)")] = 30000,
    ) -> EventWait:
        """Wait for the next event after after_cursor; returns as soon as one arrives, or
        with event null and reason "timeout"."""
        seconds = _clamp(timeout_ms, 0, 300_000) / 1000
        page: Page = await bridge.queue.wait(after_cursor, session_key=session_key, timeout=seconds)
        event = page.events[0] if page.events else None
        return EventWait(
            event=bridge.event_info(event) if event else None,
            reason="event" if event else "timeout",
            next_cursor=event.cursor if event else page.next_cursor,
            fell_behind=page.fell_behind,
            missed=page.missed,
        )

    @tool
    async def messages_send(
        target: Annotated[str, Field(description="platform:chat_id, e.g. slack:general")],
        message: Annotated[str, Field(description="Plain text")],
        send_key: Annotated[
            str | None,
            Field(
                description="Any key of yours: a retry with the same key returns the first "
                "answer (duplicate: true) and never sends twice",
                max_length=200,
            ),
        ] = None,
    ) -> SendResult:
        """Send a text message through a configured messaging adapter (see channels_list)."""
        if not target.strip() or not message.strip():
            raise _error("Both target and message are required")
        if len(message) > MAX_SEND_CHARS:
            raise _error(f"The message is longer than {MAX_SEND_CHARS} characters")
        if send_key is None:
            return await _send(target, message)
        try:
            earlier = sent.begin(send_key)
        except SendInProgressError:
            raise _error(f"A send with send_key {send_key!r} is still under way") from None
        if earlier is not None:
            return earlier.model_copy(update={"duplicate": True})
        answer: SendResult | None = None
        try:
            answer = await _send(target, message)
            return answer
        finally:
            sent.finish(send_key, answer)

    async def _send(target: str, message: str) -> SendResult:
        try:
            platform, chat_id, receipt = await anyio.to_thread.run_sync(
                bridge.messaging.send, target, message
            )
        except SendError as exc:
            raise _error(str(exc)) from None
        log.info("sent %d characters to %s:%s", len(message), platform, chat_id)
        detail = _text(receipt.detail)
        recorded_id: int | None = None
        try:  # delivered: whatever happens to the record, the answer says it was sent
            recorded = await anyio.to_thread.run_sync(
                lambda: store.record_message(
                    f"{platform}:{chat_id}",
                    "assistant",
                    message,
                    author="hermes mcp serve",
                    platform=platform,
                    chat_id=chat_id,
                )
            )
            recorded_id = recorded.id
        except Exception as exc:  # noqa: BLE001 - sqlite3 errors (locked, disk full), OSError
            log.warning("sent to %s:%s but not recorded in state.db: %s", platform, chat_id, exc)
            note = (
                f"sent, but not recorded in state.db ({type(exc).__name__}: {exc}); do not resend"
            )
            detail = f"{detail}; {note}" if detail else note
        return SendResult(
            sent=True,
            target=f"{platform}:{chat_id}",
            platform=platform,
            chat_id=chat_id,
            message_id=receipt.message_id,
            detail=_text(detail),
            recorded_message_id=recorded_id,
        )

    @tool
    async def channels_list(
        platform: Annotated[str | None, Field(description="Only this platform")] = None,
    ) -> ChannelsList:
        """Where messages_send can deliver: every chat of the configured messaging adapters,
        plus the chats of recorded conversations (sendable when their platform has one)."""
        channels: dict[str, ChannelInfo] = {}
        found = await anyio.to_thread.run_sync(bridge.messaging.channels, platform)
        for name, channel in found:
            target = f"{name}:{channel.chat_id}"
            channels[target] = ChannelInfo(
                target=target,
                platform=name,
                chat_id=channel.chat_id,
                name=_text(channel.name or channel.chat_id),
                description=_text(channel.description),
                sendable=True,
                source="adapter",
            )
        configured = {n.lower() for n in bridge.messaging.platforms}
        for c in store.conversations(platform=platform, limit=200):
            if not c.platform or not c.chat_id:
                continue
            target = f"{c.platform}:{c.chat_id}"
            channels.setdefault(
                target,
                ChannelInfo(
                    target=_text(target),
                    platform=_text(c.platform),
                    chat_id=_text(c.chat_id),
                    name=_text(c.title or c.chat_id),
                    description="",
                    sendable=c.platform.lower() in configured,
                    source="conversations",
                ),
            )
        note = ""
        if not bridge.messaging.platforms:
            note = "No messaging adapter is configured: reading works, sending does not."
        items = list(channels.values())
        return ChannelsList(count=len(items), channels=items, note=note)

    @tool
    async def permissions_list_open() -> ApprovalsList:
        """Approval requests waiting for an answer (e.g. an MCP server's question to the user
        that the host recorded in state.db)."""
        found = [bridge.approval_info(a) for a in store.open_approvals()]
        return ApprovalsList(count=len(found), approvals=found)

    @tool
    async def permissions_respond(
        id: Annotated[int, Field(description="From permissions_list_open")],
        decision: Annotated[str, Field(description="allow-once, allow-always or deny")],
        answer: Annotated[
            dict[str, Any] | None,
            Field(description="For an elicitation: the form's field values (defaults fill in)"),
        ] = None,
    ) -> PermissionResult:
        """Answer an open approval request; the waiting host receives the answer."""
        try:
            done = await anyio.to_thread.run_sync(
                lambda: store.resolve_approval(
                    _row_id(id), decision, answer=answer, by="hermes mcp serve"
                )
            )
        except (ValueError, ApprovalError) as exc:
            raise _error(str(exc)) from None
        return PermissionResult(
            id=done.id, kind=done.kind, state=done.state, decision=done.decision
        )
