"""An MCP server (low-level ``mcp`` SDK, stdio) offering each kind of result once, for the
door-by-door matrix (``tests/hermes_core/test_every_door*.py``): the same call through every
way Hermes offers a tool must give the caller the same content.

Tools:
    ``say(text, n?, tags?)``  the arguments it got, as sorted JSON text (what ``k=v``,
                              ``k:=JSON`` and ``--args`` made of them).
    ``measure()``             structured content (with an ``outputSchema``) and its JSON as text.
    ``picture()``             a 1x1 PNG image and a caption.
    ``bundle()``              an embedded text resource and a resource link.
    ``broken()``              a tool error (``isError``) with its reason.
    ``huge()``                 ~60,000 characters of text (over a small ``max_result_tokens``).
    ``ask()``                 asks the user (elicitation): ``asked: accept, {...}`` or, for a
                              refusal or a client that cannot ask, ``asked: no answer``.
    ``write(path)``           write-capable (no ``readOnlyHint``): asked about when untrusted.
    ``blocked()``, ``forbidden()``  plain; a test decides ``never`` / a policy denies them.

Resources (5, two per page), resource templates (3, two per page) and prompts (3, two per page).
"""

from __future__ import annotations

import gc

gc.disable()  # importing the SDK builds many objects: no collection until it is done

import json
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

gc.freeze()  # what the imports made stays: collections skip it from here on
gc.enable()

PAGE = 2
#: A 1x1 transparent PNG.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
HUGE_LINE = "every door gets the same long answer, line {n:05d}\n"
RESOURCES = [f"door://note/{i}" for i in range(5)]
TEMPLATES = [f"door://shelf{i}/{{id}}" for i in range(3)]
PROMPTS = [f"greet-{i}" for i in range(3)]
READ_ONLY = types.ToolAnnotations(read_only_hint=True)
OBJECT: dict[str, Any] = {"type": "object", "properties": {}}
SAY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "n": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "deep": {},
    },
    "required": ["text"],
}
MEASURE_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"width": {"type": "integer"}, "unit": {"type": "string"}},
    "required": ["width", "unit"],
}


def _tool(name: str, description: str, **extra: Any) -> types.Tool:
    extra.setdefault("input_schema", OBJECT)
    extra.setdefault("annotations", READ_ONLY)
    return types.Tool(name=name, description=description, **extra)


TOOLS = [
    _tool("say", "Says back the arguments it got.", input_schema=SAY_SCHEMA),
    _tool("measure", "Measures a thing (structured).", output_schema=MEASURE_OUTPUT),
    _tool("picture", "Draws a tiny picture."),
    _tool("bundle", "Hands over a note and a link."),
    _tool("broken", "Always fails."),
    _tool("huge", "Answers at great length."),
    _tool("ask", "Asks the user a question."),
    _tool(
        "write",
        "Writes a file.",
        input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
        annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=True),
    ),
    _tool("blocked", "A tool the user decided never to run."),
    _tool("forbidden", "A tool the administrator's policy denies."),
]


def page_of(
    items: list[Any], params: types.PaginatedRequestParams | None
) -> tuple[list[Any], str | None]:
    start = int(params.cursor) if params is not None and params.cursor else 0
    end = start + PAGE
    return items[start:end], (str(end) if end < len(items) else None)


def text(value: str) -> types.TextContent:
    return types.TextContent(type="text", text=value)


async def on_list_tools(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def _ask(ctx: Any) -> types.CallToolResult:
    schema = {"type": "object", "properties": {"colour": {"type": "string"}}}
    try:
        answer = await ctx.session.elicit_form("Which colour?", schema)
    except MCPError:  # a client that cannot ask: the same as no answer
        return types.CallToolResult(content=[text("asked: no answer")])
    if answer.action != "accept":
        return types.CallToolResult(content=[text("asked: no answer")])
    said = json.dumps(answer.content, sort_keys=True)
    return types.CallToolResult(content=[text(f"asked: accept, {said}")])


async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    name, args = params.name, params.arguments or {}
    if name == "say":
        return types.CallToolResult(content=[text("said " + json.dumps(args, sort_keys=True))])
    if name == "measure":
        found = {"width": 42, "unit": "mm"}
        return types.CallToolResult(
            content=[text(json.dumps(found, sort_keys=True))], structured_content=found
        )
    if name == "picture":
        image = types.ImageContent(type="image", data=PNG, mime_type="image/png")
        return types.CallToolResult(content=[text("a tiny picture"), image])
    if name == "bundle":
        note = types.TextResourceContents(
            uri="door://note/0", mime_type="text/plain", text="the note's own words"
        )
        link = types.ResourceLink(
            type="resource_link", uri="door://note/1", name="second note", mime_type="text/plain"
        )
        return types.CallToolResult(
            content=[types.EmbeddedResource(type="resource", resource=note), link]
        )
    if name == "broken":
        return types.CallToolResult(content=[text("the gears are stuck")], is_error=True)
    if name == "huge":
        body = "".join(HUGE_LINE.format(n=n) for n in range(1200))
        return types.CallToolResult(content=[text(body)])
    if name == "ask":
        return await _ask(ctx)
    if name == "write":
        return types.CallToolResult(content=[text(f"wrote {args.get('path')}")])
    return types.CallToolResult(content=[text(f"{name} ran")])


async def on_list_resources(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    uris, cursor = page_of(RESOURCES, params)
    resources = [types.Resource(uri=u, name=f"note {u.rsplit('/', 1)[1]}") for u in uris]
    return types.ListResourcesResult(resources=resources, next_cursor=cursor)


async def on_list_resource_templates(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListResourceTemplatesResult:
    shown, cursor = page_of(TEMPLATES, params)
    templates = [types.ResourceTemplate(uri_template=t, name=t.split("/")[2]) for t in shown]
    return types.ListResourceTemplatesResult(resource_templates=templates, next_cursor=cursor)


async def on_read_resource(
    ctx: Any, params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    body = types.TextResourceContents(uri=params.uri, text=f"the words of {params.uri}")
    return types.ReadResourceResult(contents=[body])


async def on_list_prompts(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    names, cursor = page_of(PROMPTS, params)
    argument = types.PromptArgument(name="who", required=False)
    prompts = [types.Prompt(name=n, arguments=[argument]) for n in names]
    return types.ListPromptsResult(prompts=prompts, next_cursor=cursor)


async def on_get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    who = (params.arguments or {}).get("who", "everyone")
    message = types.PromptMessage(role="user", content=text(f"{params.name}: hello, {who}"))
    return types.GetPromptResult(messages=[message])


server = Server(
    "every-door",
    on_list_tools=on_list_tools,
    on_call_tool=on_call_tool,
    on_list_resources=on_list_resources,
    on_list_resource_templates=on_list_resource_templates,
    on_read_resource=on_read_resource,
    on_list_prompts=on_list_prompts,
    on_get_prompt=on_get_prompt,
)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
