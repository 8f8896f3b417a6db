"""The three adapters: Slack and Discord incoming webhooks, and a generic JSON webhook.

Each POSTs JSON to the channel's URL with the standard library (no redirects followed; the
answer read up to 64 KiB).  Failures raise ``OSError`` naming the status or the network error,
never the URL (it is the credential).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from hermes_core.plugins.types import MessagingChannel, SendReceipt
from hermes_webhooks.settings import ChannelSettings, WebhookSettings, is_loopback_url

__all__ = ["DiscordWebhook", "JsonWebhook", "SlackWebhook", "WebhookAdapter"]

_MAX_ANSWER = 64 * 1024
DISCORD_LIMIT = 2000


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a 3xx is then an HTTPError: a webhook that moves is not followed


class WebhookAdapter:
    """Shared by the three: channels from settings, one POST per message."""

    kind = "webhook"

    def __init__(self, name: str, settings: Mapping[str, Any]) -> None:
        self.name = name
        self.settings = WebhookSettings.model_validate(dict(settings))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, channels={list(self.settings.channels)})"

    def channels(self) -> Sequence[MessagingChannel]:
        return [
            MessagingChannel(chat_id, name=chat_id, description=channel.description)
            for chat_id, channel in self.settings.channels.items()
        ]

    def send(self, chat_id: str, text: str) -> SendReceipt:
        channel = self.settings.channels.get(chat_id)
        if channel is None:
            known = ", ".join(self.settings.channels)
            raise ValueError(f"no channel {chat_id!r} (configured: {known})")
        status, answer = self._post(channel, self.payload(chat_id, text))
        return self.receipt(status, answer)

    # -- per platform ---------------------------------------------------------------------
    def payload(self, chat_id: str, text: str) -> dict[str, Any]:
        raise NotImplementedError

    def url(self, channel: ChannelSettings) -> str:
        return channel.url.get_secret_value()

    def receipt(self, status: int, answer: bytes) -> SendReceipt:
        return SendReceipt(detail=f"HTTP {status}")

    # -- HTTP -----------------------------------------------------------------------------
    def _post(self, channel: ChannelSettings, payload: dict[str, Any]) -> tuple[int, bytes]:
        url = self.url(channel)
        headers = {"Content-Type": "application/json", "User-Agent": "hermes-webhooks/0.1"}
        headers.update({k: v.get_secret_value() for k, v in channel.headers.items()})
        request = urllib.request.Request(
            url, data=json.dumps(payload).encode(), headers=headers, method="POST"
        )
        handlers: list[Any] = [_NoRedirects()]
        if is_loopback_url(url):
            handlers.append(urllib.request.ProxyHandler({}))
        opener = urllib.request.build_opener(*handlers)
        try:
            with opener.open(request, timeout=self.settings.timeout) as response:
                return int(response.status), response.read(_MAX_ANSWER)
        except urllib.error.HTTPError as exc:
            exc.close()  # it holds the response (and its socket)
            raise OSError(
                f"the {self.kind} webhook answered HTTP {exc.code} {str(exc.reason)[:100]}"
            ) from None
        except urllib.error.URLError as exc:
            raise OSError(
                f"could not reach the {self.kind} webhook: {str(exc.reason)[:200]}"
            ) from None
        except TimeoutError:
            raise OSError(
                f"the {self.kind} webhook did not answer within {self.settings.timeout:g} s"
            ) from None


class SlackWebhook(WebhookAdapter):
    """Slack incoming webhooks: ``{"text": …}``; Slack answers ``ok``."""

    kind = "Slack"

    def payload(self, chat_id: str, text: str) -> dict[str, Any]:
        body: dict[str, Any] = {"text": text}
        if self.settings.username:
            body["username"] = self.settings.username
        return body


class DiscordWebhook(WebhookAdapter):
    """Discord webhooks: ``{"content": …}`` with mentions disabled; ``?wait=true`` so
    Discord answers with the message (its id becomes the receipt's ``message_id``)."""

    kind = "Discord"

    def payload(self, chat_id: str, text: str) -> dict[str, Any]:
        if len(text) > DISCORD_LIMIT:
            raise ValueError(f"Discord messages are at most {DISCORD_LIMIT} characters")
        body: dict[str, Any] = {"content": text, "allowed_mentions": {"parse": []}}
        if self.settings.username:
            body["username"] = self.settings.username
        return body

    def url(self, channel: ChannelSettings) -> str:
        url = channel.url.get_secret_value()
        return url + ("&" if "?" in url else "?") + "wait=true"

    def receipt(self, status: int, answer: bytes) -> SendReceipt:
        return SendReceipt(message_id=_answer_id(answer, "id"), detail=f"HTTP {status}")


class JsonWebhook(WebhookAdapter):
    """Any endpoint taking JSON: ``{"target", "platform", "chat_id", "text", "sent_at"}``.
    An answer that is a JSON object with ``id`` or ``message_id`` gives the receipt its id."""

    kind = "JSON"

    def payload(self, chat_id: str, text: str) -> dict[str, Any]:
        return {
            "target": f"{self.name}:{chat_id}",
            "platform": self.name,
            "chat_id": chat_id,
            "text": text,
            "sent_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }

    def receipt(self, status: int, answer: bytes) -> SendReceipt:
        found = _answer_id(answer, "message_id") or _answer_id(answer, "id")
        return SendReceipt(message_id=found, detail=f"HTTP {status}")


def _answer_id(answer: bytes, key: str) -> str | None:
    try:
        data = json.loads(answer)
    except (ValueError, UnicodeDecodeError):
        return None
    value = data.get(key) if isinstance(data, dict) else None
    return (
        str(value)[:200] if isinstance(value, str | int) and not isinstance(value, bool) else None
    )
