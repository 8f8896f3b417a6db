"""The utility tools: a server's resources and prompts offered as read-only tools
(``list_resources``, ``read_resource``, ``list_prompts``, ``get_prompt``...), their schemas,
the check of their arguments and their calls.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING

from hermes_core.host.connection import ServerConnection
from hermes_core.host.connection.session_requests import SessionWork
from hermes_core.host.server_spec import HostServer
from hermes_core.host.tools.utility_results import listing_result, prompt_result, resource_result
from hermes_core.json_types import JsonObject, JsonValue
from hermes_core.sanitize import clean_line, sanitize_value

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.types import (
        GetPromptResult,
        InputRequiredResult,
        InputResponses,
        ListPromptsResult,
        ListResourcesResult,
        ListResourceTemplatesResult,
        ReadResourceResult,
    )

__all__ = [
    "LISTINGS",
    "LIST_MAX_ITEMS",
    "LIST_MAX_PAGES",
    "METHOD_NOT_FOUND",
    "UTILITY_DESCRIPTIONS",
    "UTILITY_SCHEMAS",
    "call_utility",
    "list_all",
    "utility_argument_problem",
]

#: JSON-RPC "method not found".
METHOD_NOT_FOUND = -32601
#: Bounds on what one list_* utility call gathers by following ``nextCursor``.
LIST_MAX_PAGES = 50
LIST_MAX_ITEMS = 1000

_LISTING: JsonObject = {
    "type": "object",
    "properties": {
        "cursor": {
            "type": "string",
            "minLength": 1,
            "description": "Go on from here: the nextCursor of a listing that stopped early.",
        }
    },
    "additionalProperties": False,
}
UTILITY_SCHEMAS: dict[str, JsonObject] = {
    "list_resources": _LISTING,
    "list_resource_templates": _LISTING,
    "read_resource": {
        "type": "object",
        "properties": {
            "uri": {"type": "string", "minLength": 1, "description": "The resource URI."}
        },
        "required": ["uri"],
        "additionalProperties": False,
    },
    "list_prompts": _LISTING,
    "get_prompt": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "description": "The prompt name."},
            "arguments": {
                "type": "object",
                "description": "Prompt arguments (strings; numbers and booleans are sent as text).",
                "additionalProperties": {"type": ["string", "number", "boolean"]},
            },
        },
        "required": ["name"],
        "additionalProperties": False,
    },
}
UTILITY_DESCRIPTIONS = {
    "list_resources": "List the resources the MCP server '{s}' offers.",
    "list_resource_templates": (
        "List the resource templates (URI patterns such as file:///{{path}}) the MCP server "
        "'{s}' offers; fill one in and read it with read_resource."
    ),
    "read_resource": "Read one resource of the MCP server '{s}' by URI.",
    "list_prompts": "List the prompts the MCP server '{s}' offers.",
    "get_prompt": "Get one prompt of the MCP server '{s}' by name, with its arguments.",
}
#: list_* utility -> (the SDK method, the result's list key).
LISTINGS = {
    "list_resources": ("list_resources", "resources"),
    "list_resource_templates": ("list_resource_templates", "resourceTemplates"),
    "list_prompts": ("list_prompts", "prompts"),
}


def utility_argument_problem(tool: str, args: Mapping[str, object]) -> str | None:
    """What is wrong with *args* for utility *tool* (its schema in ``UTILITY_SCHEMAS``)."""
    schema = UTILITY_SCHEMAS[tool]
    properties = schema["properties"]
    assert isinstance(properties, dict)  # our own schemas above
    unknown = sorted(set(args) - set(properties))
    if unknown:
        valid = ", ".join(properties) or "none"
        return f"unknown argument(s) {', '.join(map(repr, unknown))} (valid: {valid})"
    required = schema.get("required", [])
    for key in required if isinstance(required, list) else ():
        if key not in args:
            return f"missing required argument {key!r}"
    for key, value in args.items():
        spec = properties[key]
        kind = spec.get("type") if isinstance(spec, dict) else None
        if kind == "string":
            if not isinstance(value, str):
                return f"{key!r} must be a string, not {type(value).__name__}"
            if not value.strip():
                return f"{key!r} must not be empty"
        elif kind == "object":
            if not isinstance(value, dict):
                return f"{key!r} must be an object, not {type(value).__name__}"
            for name, item in value.items():
                if isinstance(item, dict | list) or item is None:
                    shown = "null" if item is None else type(item).__name__
                    return f"{key}.{name} must be a string, number or boolean, not {shown}"
    return None


async def call_utility(
    connection: ServerConnection, config: HostServer, tool: str, args: Mapping[str, object]
) -> JsonObject:
    """Utility *tool*'s call, answered as a ``CallToolResult`` (:mod:`.utility_results`);
    *args* are checked already (:func:`utility_argument_problem`)."""
    if tool in LISTINGS:
        cursor = args.get("cursor")
        return await list_all(connection, config, tool, cursor if isinstance(cursor, str) else None)

    given = args.get("arguments")
    prompt_args = {
        str(k): v if isinstance(v, str) else json.dumps(v)
        for k, v in (given.items() if isinstance(given, dict) else ())
    }

    async def run(session: ClientSession) -> ReadResourceResult | GetPromptResult:
        # Either request may be answered with InputRequiredResult (2026-07-28).
        async def send(
            responses: InputResponses | None, state: str | None
        ) -> ReadResourceResult | GetPromptResult | InputRequiredResult:
            if tool == "read_resource":
                return await session.read_resource(
                    str(args["uri"]),
                    input_responses=responses,
                    request_state=state,
                    allow_input_required=True,
                )
            return await session.get_prompt(
                str(args["name"]),
                prompt_args,
                input_responses=responses,
                request_state=state,
                allow_input_required=True,
            )

        answered: ReadResourceResult | GetPromptResult = await connection.requests.until_answered(
            session, tool, send
        )
        return answered

    result: ReadResourceResult | GetPromptResult = await connection.request(
        tool, SessionWork(run), config.timeout
    )
    data: JsonObject = sanitize_value(
        result.model_dump(mode="json", by_alias=True, exclude_none=True)
    )
    return resource_result(data) if tool == "read_resource" else prompt_result(data)


#: One listing: its items, the pages read, where to go on (when it stopped early) and why.
_Listing = tuple[list[JsonValue], int, str | None, str | None]


async def list_all(
    connection: ServerConnection, config: HostServer, tool: str, start: str | None = None
) -> JsonObject:
    """Every page of a listing from cursor *start* (``None``: the first page), up to
    :data:`LIST_MAX_PAGES` pages and :data:`LIST_MAX_ITEMS` items; a cut-short listing says
    so (``truncated``) and where to go on (``nextCursor``)."""
    from mcp import types
    from mcp.shared.exceptions import MCPError

    method, key = LISTINGS[tool]

    async def run(session: ClientSession) -> _Listing:
        items: list[JsonValue] = []
        cursor: str | None = start
        seen: set[str] = set() if start is None else {start}
        pages = 0
        while True:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            try:
                page: (
                    ListResourcesResult | ListResourceTemplatesResult | ListPromptsResult
                ) = await getattr(session, method)(params=params)
            except MCPError as exc:
                if exc.code != METHOD_NOT_FOUND or pages or tool != "list_resource_templates":
                    raise
                # Templates are optional within the resources capability.
                return [], 1, None, None
            dumped = page.model_dump(mode="json", by_alias=True, exclude_none=True)
            got = dumped.get(key, [])
            if pages and len(items) + len(got) > LIST_MAX_ITEMS:  # the next call reads it
                return items, pages, cursor, f"more than {LIST_MAX_ITEMS} items"
            pages += 1
            items.extend(got)
            cursor = page.next_cursor
            if len(items) > LIST_MAX_ITEMS:  # one first page too long: its rest is lost
                return items[:LIST_MAX_ITEMS], pages, cursor, f"more than {LIST_MAX_ITEMS} items"
            if not cursor:
                return items, pages, None, None
            if len(items) >= LIST_MAX_ITEMS:
                return items, pages, cursor, f"more than {LIST_MAX_ITEMS} items"
            if pages >= LIST_MAX_PAGES:
                return items, pages, cursor, f"more than {LIST_MAX_PAGES} pages"
            if cursor in seen:
                return items, pages, None, "the server sent a cursor it had sent before"
            seen.add(cursor)

    listing: _Listing = await connection.request(tool, SessionWork(run), config.timeout)
    items, pages, next_cursor, cut = listing
    cursor = clean_line(next_cursor)[:1000] if next_cursor is not None else None
    return listing_result(config.name, key, sanitize_value(items), pages, cursor or None, cut)
