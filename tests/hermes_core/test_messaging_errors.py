"""What a messaging adapter's errors become: named once by the platform, never twice."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from hermes_core.plugins.types import MessagingChannel, SendReceipt
from hermes_core.serve.messaging import ConfiguredPlatform, Messaging, SendError


class _Refusing:
    def __init__(self, error: Exception) -> None:
        self.error = error

    def channels(self) -> Sequence[MessagingChannel]:
        return [MessagingChannel("general")]

    def send(self, chat_id: str, text: str) -> SendReceipt:
        raise self.error


@pytest.mark.parametrize(
    ("error", "says"),
    [
        (ValueError("no chat named 'x'"), "acme: no chat named 'x'"),
        (ValueError("acme: no chat named 'x'"), "acme: no chat named 'x'"),
        (
            ConnectionError("acme: the hook answered 500"),
            "Send failed: acme: the hook answered 500",
        ),
        (OSError("timed out"), "Send failed: acme: timed out"),
    ],
)
def test_the_platform_name_is_said_once(error: Exception, says: str) -> None:
    messaging = Messaging({"acme": ConfiguredPlatform("acme", "acme_chat", _Refusing(error))})
    with pytest.raises(SendError) as raised:
        messaging.send("acme:x", "hello")
    assert str(raised.value) == says
