"""A warm host's question, put to the CLI command's own elicitor.

A call on the warm host may ask (an approval, a server's elicitation): the host sends the
question as ``{"ask": {...}}`` and the client answers with ``{"answer": {...}}``
(:mod:`.wire`).  :class:`~hermes_core.serve.warm.client.RemoteHost` takes an :data:`Asker`,
a function from the question to the answer, so that the client itself never loads the
elicitation forms (``hermes mcp call``'s fast path loads them only when a question comes).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from hermes_core.json_types import JsonObject, JsonValue, json_object
from hermes_core.offers.elicitation import ElicitationField, ElicitationRequest, Elicitor
from hermes_core.serve.warm.wire import rebuilt

__all__ = ["Asker", "answer_question", "asker_for"]

#: The warm host's question (the ``ask`` object) -> the answer to send back.
Asker = Callable[[JsonValue], Awaitable[JsonObject]]


async def answer_question(elicitor: Elicitor | None, question: JsonValue) -> JsonObject:
    """The warm host's question (an ``{"ask": ...}``) put to *elicitor*; the reply to send."""
    if elicitor is None or not isinstance(question, dict):
        return {"action": "decline"}
    try:
        given = question.get("fields")
        listed = given if isinstance(given, list) else []
        fields = tuple(rebuilt(ElicitationField, f) for f in listed if isinstance(f, dict))
    except TypeError:
        return {"action": "decline"}
    request = ElicitationRequest(
        server=str(question.get("server", "")),
        message=str(question.get("message", "")),
        fields=fields,
        schema=schema if isinstance(schema := question.get("schema"), dict) else {},
        kind="approval" if question.get("kind") == "approval" else "form",
    )
    answer = await elicitor(request)
    return {"action": answer.action, "content": json_object(answer.content or {})}


def asker_for(elicitor: Elicitor | None) -> Asker | None:
    """The :data:`Asker` that puts the warm host's questions to *elicitor* (none: declined)."""
    if elicitor is None:
        return None

    async def ask(question: JsonValue) -> JsonObject:
        return await answer_question(elicitor, question)

    return ask
