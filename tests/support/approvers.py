"""A scripted approver for untrusted servers' write-capable calls (the host's elicitor)."""

from __future__ import annotations

import asyncio

from hermes_core.offers.elicitation import ElicitationAnswer, ElicitationRequest


class Approver:
    """Answers every approval question with *action* (``None``: never answers), or raises
    when *fail*; keeps the questions it was asked in :attr:`seen`."""

    def __init__(self, action: str | None, *, fail: bool = False) -> None:
        self.action, self.fail = action, fail
        self.seen: list[ElicitationRequest] = []

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        self.seen.append(request)
        if self.fail:
            raise RuntimeError("the approval UI crashed")
        if self.action is None:
            await asyncio.Event().wait()  # never answers
        return ElicitationAnswer(self.action)  # type: ignore[arg-type]


class Answers:
    """An elicitor that records each question and answers every form from a table (field →
    value): the scripted user of the tests where a server asks."""

    def __init__(self, **values: object) -> None:
        self.values = values
        self.asked: list[str] = []

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        self.asked.append(request.message)
        fields = {f.name for f in request.fields}
        return ElicitationAnswer("accept", {k: v for k, v in self.values.items() if k in fields})
