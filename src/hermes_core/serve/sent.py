"""The answers of ``messages_send`` by the client's ``send_key``: a retry is never a resend.

A client that did not get an answer (a timeout, a dropped connection) cannot tell whether the
message went out; calling again with the same ``send_key`` returns the first call's answer
(``duplicate: true``) instead of delivering the message a second time.  The keys live as long
as the serve process, the last :data:`KEPT` of them; a key whose send is still under way is
refused rather than sent twice.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

__all__ = ["KEPT", "SendInProgressError", "SentMessages"]

KEPT = 1024
"""How many send keys (and their answers) a serve process remembers."""

Answer = TypeVar("Answer")


class SendInProgressError(Exception):
    """A send with this key has not finished yet."""


class SentMessages(Generic[Answer]):
    """The answers of finished sends by key, and the keys of sends under way."""

    def __init__(self, kept: int = KEPT) -> None:
        self._kept = kept
        self._answers: OrderedDict[str, Answer] = OrderedDict()
        self._under_way: set[str] = set()

    def begin(self, key: str) -> Answer | None:
        """The earlier answer for *key*, or ``None`` (the send may go on: it is now under
        way); ``SendInProgressError`` while another send with *key* runs."""
        if key in self._answers:
            self._answers.move_to_end(key)
            return self._answers[key]
        if key in self._under_way:
            raise SendInProgressError(key)
        self._under_way.add(key)
        return None

    def finish(self, key: str, answer: Answer | None) -> None:
        """The send with *key* ended: with its *answer* (delivered), or ``None`` (it failed
        before delivery, so a retry may send)."""
        self._under_way.discard(key)
        if answer is None:
            return
        self._answers[key] = answer
        while len(self._answers) > self._kept:
            self._answers.popitem(last=False)
