"""An MCP server (``mcp`` SDK, stdio) that speaks ONLY 2026-07-28 and whose tools ask the
client for input the 2026 way: by answering ``tools/call`` with an ``InputRequiredResult``
(SEP-2322) and reading the answers from the call sent again.

Usage: ``python modern_asking_server.py``.  Tools:

* ``book`` — asks the user (elicitation, form mode) which table to book; the state it hands
  out must come back unchanged with the answer.
* ``haiku`` — asks the client's LLM (sampling) to answer a prompt.
* ``two_steps`` — asks twice, one question per round, the second depending on the first.
* ``roots`` — asks for the client's roots.
* ``forever`` — asks again on every round (the client must give up).

The ``greeting`` prompt and the ``note://{topic}`` resource template ask too (elicitation).

Each tool reports what came back as text.
"""

from __future__ import annotations

import gc

gc.disable()  # importing the SDK builds many objects: no collection until it is done

import json
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.runner import _serve_modern_stream  # the SDK's modern-only stream loop
from mcp.server.stdio import stdio_server
from mcp_types import (
    CreateMessageRequest,
    CreateMessageRequestParams,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    ListRootsRequest,
    SamplingMessage,
    TextContent,
)

gc.freeze()  # what the imports made stays: collections skip it from here on
gc.enable()

server = MCPServer("modern-asking")

TABLE = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "Who the table is for"},
        "guests": {"type": "integer", "description": "How many people", "default": 2},
    },
    "required": ["name"],
}


def _ask(message: str, schema: dict[str, Any]) -> ElicitRequest:
    return ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema))


def _answer(ctx: Context, key: str) -> Any:  # type: ignore[type-arg]
    responses = ctx.input_responses or {}
    return responses.get(key)


@server.tool()
async def book(ctx: Context) -> str | InputRequiredResult:  # type: ignore[type-arg]
    """Book a table, asking the user for the details."""
    answer = _answer(ctx, "table")
    if answer is None:
        return InputRequiredResult(
            input_requests={"table": _ask("Which table should I book?", TABLE)},
            request_state="booking:opaque/state=1",
        )
    content = getattr(answer, "content", None)
    return f"{answer.action} {json.dumps(content, sort_keys=True)} state={ctx.request_state}"


@server.tool()
async def haiku(ctx: Context, prompt: str) -> str | InputRequiredResult:  # type: ignore[type-arg]
    """Ask the client's LLM to answer *prompt*."""
    answer = _answer(ctx, "llm")
    if answer is None:
        message = SamplingMessage(role="user", content=TextContent(text=prompt))
        params = CreateMessageRequestParams(messages=[message], max_tokens=60)
        return InputRequiredResult(input_requests={"llm": CreateMessageRequest(params=params)})
    content = answer.content
    blocks = content if isinstance(content, list) else [content]
    text = "".join(getattr(block, "text", "") for block in blocks)
    return f"model={answer.model} text={text}"


@server.tool()
async def two_steps(ctx: Context) -> str | InputRequiredResult:  # type: ignore[type-arg]
    """Ask for a city, then (in a second round) for a street in that city."""
    state = ctx.request_state
    if state is None:
        city = {"type": "object", "properties": {"city": {"type": "string", "default": "Oslo"}}}
        return InputRequiredResult(
            input_requests={"city": _ask("Which city?", city)}, request_state="step-1"
        )
    if state == "step-1":
        chosen = (_answer(ctx, "city").content or {}).get("city")
        street = {"type": "object", "properties": {"street": {"type": "string", "default": "Main"}}}
        return InputRequiredResult(
            input_requests={"street": _ask(f"Which street in {chosen}?", street)},
            request_state=f"step-2:{chosen}",
        )
    street_name = (_answer(ctx, "street").content or {}).get("street")
    return f"{state.removeprefix('step-2:')}/{street_name}"


@server.tool()
async def roots(ctx: Context) -> str | InputRequiredResult:  # type: ignore[type-arg]
    """Ask the client for its roots."""
    answer = _answer(ctx, "roots")
    if answer is None:
        return InputRequiredResult(input_requests={"roots": ListRootsRequest()})
    return json.dumps([str(root.uri) for root in answer.roots])


@server.tool()
async def forever(ctx: Context) -> str | InputRequiredResult:  # type: ignore[type-arg]
    """Never satisfied: asks again on every round."""
    rounds = int(ctx.request_state or "0") + 1
    again = {"type": "object", "properties": {"more": {"type": "boolean", "default": True}}}
    return InputRequiredResult(
        input_requests={"again": _ask(f"Round {rounds}: once more?", again)},
        request_state=str(rounds),
    )


WHO = {"type": "object", "properties": {"name": {"type": "string", "default": "World"}}}


@server.prompt()
async def greeting(ctx: Context) -> str | InputRequiredResult:  # type: ignore[type-arg]
    """A greeting for whoever the user names."""
    answer = _answer(ctx, "who")
    if answer is None:
        return InputRequiredResult(
            input_requests={"who": _ask("Greet whom?", WHO)}, request_state="greeting"
        )
    return f"Hello, {(answer.content or {}).get('name')}! state={ctx.request_state}"


@server.resource("note://{topic}")
async def note(topic: str, ctx: Context) -> str | InputRequiredResult:  # type: ignore[type-arg]
    """A note on *topic*, signed by whoever the user names."""
    answer = _answer(ctx, "who")
    if answer is None:
        return InputRequiredResult(
            input_requests={"who": _ask(f"Who signs the note on {topic}?", WHO)},
            request_state="note",
        )
    return f"{topic}, signed {(answer.content or {}).get('name')} state={ctx.request_state}"


async def main() -> None:
    lowlevel: Any = server._lowlevel_server
    async with stdio_server() as (read, write), lowlevel.lifespan(lowlevel) as state:
        await _serve_modern_stream(
            lowlevel, read, write, lifespan_state=state, raise_exceptions=False
        )


if __name__ == "__main__":
    anyio.run(main)
