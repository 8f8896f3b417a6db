"""An MCP server (``mcp`` SDK, stdio) whose tools ask the client's LLM through sampling.

Each tool reports what came back as JSON: ``{"ok": ..., "model": ..., "text": ...}`` or
``{"refused": <code>, "reason": <data.reason>, "message": ...}``.

* ``ask`` — one request (optional model hint, maxTokens, image, stop sequences).
* ``burst`` — *count* requests one after the other, one outcome each.
* ``tool_loop`` — tool-enabled sampling: the model is asked (the ``echo`` model's JSON
  protocol) to call ``add`` every round; the server runs it and sends the result back, up
  to *rounds* rounds; it reports every round's outcome.
"""

from __future__ import annotations

import gc

gc.disable()  # importing the SDK builds many objects: no collection until it is done

import json
import warnings
from typing import Any

from mcp import types
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError

gc.freeze()  # what the imports made stays: collections skip it from here on
gc.enable()

warnings.simplefilter("ignore")  # sampling is deprecated in the newest revision; still served
server = MCPServer("sampling")

_ADD = types.Tool(
    name="add",
    description="Add two numbers",
    input_schema={
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
    },
)
_PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)


def _text(content: Any) -> str:
    blocks = content if isinstance(content, list) else [content]
    return "".join(getattr(b, "text", "") for b in blocks)


async def _sample(ctx: Context, messages: list[types.SamplingMessage], **kw: Any) -> dict[str, Any]:
    try:
        result = await ctx.session.create_message(messages, **kw)
    except MCPError as exc:
        reason = exc.data.get("reason") if isinstance(exc.data, dict) else None
        return {"refused": exc.code, "reason": reason, "message": exc.message}
    return {
        "ok": True,
        "model": result.model,
        "stop_reason": result.stop_reason,
        "text": _text(result.content),
        "content": [b.model_dump(mode="json", exclude_none=True) for b in _blocks(result)],
    }


def _blocks(result: Any) -> list[Any]:
    return result.content if isinstance(result.content, list) else [result.content]


@server.tool()
async def ask(
    ctx: Context,
    prompt: str,
    hint: str | None = None,
    max_tokens: int = 100,
    image: bool = False,
    stop: list[str] | None = None,
) -> str:
    """Ask the client's LLM once."""
    content: list[Any] = [types.TextContent(text=prompt)]
    if image:
        content.append(types.ImageContent(data=_PIXEL, mime_type="image/png"))
    prefs = types.ModelPreferences(hints=[types.ModelHint(name=hint)]) if hint else None
    outcome = await _sample(
        ctx,
        [types.SamplingMessage(role="user", content=content if image else content[0])],
        max_tokens=max_tokens,
        system_prompt="You are terse.",
        temperature=0.2,
        stop_sequences=stop,
        model_preferences=prefs,
        include_context="thisServer",
    )
    return json.dumps(outcome)


@server.tool()
async def burst(ctx: Context, count: int) -> str:
    """Ask *count* times in a row."""
    outcomes = []
    for index in range(count):
        message = types.SamplingMessage(
            role="user", content=types.TextContent(text=f"request {index + 1}")
        )
        outcome = await _sample(ctx, [message], max_tokens=10)
        outcomes.append("ok" if outcome.get("ok") else outcome.get("reason"))
    return json.dumps(outcomes)


@server.tool()
async def tool_loop(ctx: Context, rounds: int) -> str:
    """Let the model call ``add`` every round, *rounds* times at most."""
    instruction = json.dumps(
        {"prompt": "add again", "tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]}
    )
    messages = [types.SamplingMessage(role="user", content=types.TextContent(text=instruction))]
    trace: list[Any] = []
    for _ in range(rounds + 1):
        outcome = await _sample(ctx, list(messages), max_tokens=50, tools=[_ADD])
        if not outcome.get("ok"):
            trace.append({"refused": outcome["reason"], "message": outcome["message"]})
            break
        uses = [b for b in outcome["content"] if b.get("type") == "tool_use"]
        if not uses:
            trace.append({"text": outcome["text"]})
            break
        trace.append({"tool_use": [u["name"] for u in uses], "stop": outcome["stop_reason"]})
        messages.append(
            types.SamplingMessage(
                role="assistant",
                content=[
                    types.ToolUseContent(id=u["id"], name=u["name"], input=u["input"]) for u in uses
                ],
            )
        )
        messages.append(
            types.SamplingMessage(
                role="user",
                content=[
                    types.ToolResultContent(
                        tool_use_id=u["id"],
                        content=[types.TextContent(text=str(u["input"]["a"] + u["input"]["b"]))],
                    )
                    for u in uses
                ],
            )
        )
        messages.append(
            types.SamplingMessage(role="user", content=types.TextContent(text=instruction))
        )
    return json.dumps(trace)


if __name__ == "__main__":
    server.run("stdio")
