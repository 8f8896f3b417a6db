"""An MCP server (low-level ``mcp`` SDK, stdio) for what a host must pass on faithfully.

Environment:
    PAGE_SIZE   items per page of resources/list, resources/templates/list and prompts/list (5).
    RESOURCES   how many resources (23); PROMPTS how many prompts (12); TEMPLATES how many
                resource templates (7).
    ENDLESS     ``1``: resources/list always answers with a next cursor (a server paging forever).
    NO_TEMPLATES ``1``: no resources/templates/list handler (the server answers -32601).

Tools:
    ``shaped``      title, all four annotation hints, an ``outputSchema`` and a matching result.
    ``misshapen``   the same ``outputSchema``, but its ``structuredContent`` breaks it.
    ``slow``        three progress reports and two log messages, then ``done``.
    ``researcher``  ``execution.taskSupport: required``; a plain call is refused (-32601).
"""

from __future__ import annotations

import gc

gc.disable()  # importing the SDK builds many objects: no collection until it is done

import os
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

gc.freeze()  # what the imports made stays: collections skip it from here on
gc.enable()

OBJECT: dict[str, Any] = {"type": "object", "properties": {}}
OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"total": {"type": "integer"}},
    "required": ["total"],
}
PAGE = int(os.environ.get("PAGE_SIZE", "5"))
RESOURCES = [f"fidelity://item/{i}" for i in range(int(os.environ.get("RESOURCES", "23")))]
PROMPTS = [f"prompt-{i}" for i in range(int(os.environ.get("PROMPTS", "12")))]
TEMPLATES = [f"fidelity://tpl{i}/{{id}}" for i in range(int(os.environ.get("TEMPLATES", "7")))]
ENDLESS = os.environ.get("ENDLESS") == "1"
TAG_A = "\U000e0041"  # an invisible TAG character: must not reach the user


def page_of(
    items: list[Any], params: types.PaginatedRequestParams | None
) -> tuple[list[Any], str | None]:
    start = int(params.cursor) if params is not None and params.cursor else 0
    end = start + PAGE
    return items[start:end], (str(end) if end < len(items) else None)


async def on_list_tools(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    hints = types.ToolAnnotations(
        title="Shaped (annotation title)",
        read_only_hint=True,
        destructive_hint=False,
        idempotent_hint=True,
        open_world_hint=False,
    )
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name="shaped",
                title=f"Shaped{TAG_A} Result",
                description="Returns a total.",
                input_schema=OBJECT,
                output_schema=OUTPUT,
                annotations=hints,
            ),
            types.Tool(
                name="misshapen",
                description="Returns a total of the wrong type.",
                input_schema=OBJECT,
                output_schema=OUTPUT,
            ),
            types.Tool(name="slow", description="Reports progress and logs.", input_schema=OBJECT),
            types.Tool(
                name="researcher",
                description="Runs only as a task.",
                input_schema=OBJECT,
                execution=types.ToolExecution(task_support="required"),
            ),
        ]
    )


async def log(ctx: Any, level: str, data: Any, logger: str | None = None) -> None:
    params = types.LoggingMessageNotificationParams(level=level, data=data, logger=logger)  # type: ignore[arg-type]
    await ctx.session.send_notification(types.LoggingMessageNotification(params=params))


async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    if params.name == "researcher":
        raise MCPError(-32601, "this tool must be called as a task")
    if params.name in ("shaped", "misshapen"):
        total: Any = 3 if params.name == "shaped" else "three"
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=str(total))],
            structured_content={"total": total},
        )
    await log(ctx, "info", "starting the slow work", "worker")
    for step in (1, 2, 3):
        await ctx.session.report_progress(step, 3, f"step {step}\x1b[31m{TAG_A}")
    await log(ctx, "warning", {"disk": "nearly full"})
    return types.CallToolResult(content=[types.TextContent(type="text", text="done")])


async def on_list_resources(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    if ENDLESS:
        n = int(params.cursor) if params is not None and params.cursor else 0
        shown = [types.Resource(uri=f"fidelity://endless/{n}", name=f"endless {n}")]
        return types.ListResourcesResult(resources=shown, next_cursor=str(n + 1))
    uris, cursor = page_of(RESOURCES, params)
    resources = [types.Resource(uri=u, name=u.rsplit("/", 1)[1]) for u in uris]
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
    text = types.TextResourceContents(uri=params.uri, text=f"content of {params.uri}")
    return types.ReadResourceResult(contents=[text])


async def on_list_prompts(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    names, cursor = page_of(PROMPTS, params)
    return types.ListPromptsResult(
        prompts=[types.Prompt(name=n) for n in names], next_cursor=cursor
    )


async def on_get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    text = f"{params.name} with {sorted((params.arguments or {}).items())}"
    message = types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
    return types.GetPromptResult(messages=[message])


server = Server(
    "fidelity",
    on_list_tools=on_list_tools,
    on_call_tool=on_call_tool,
    on_list_resources=on_list_resources,
    on_list_resource_templates=None
    if os.environ.get("NO_TEMPLATES") == "1"
    else on_list_resource_templates,
    on_read_resource=on_read_resource,
    on_list_prompts=on_list_prompts,
    on_get_prompt=on_get_prompt,
)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
