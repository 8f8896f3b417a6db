"""An MCP server written with FastMCP 4 (a third-party framework on top of the SDK), run by
tests/hermes_core/test_third_party_servers.py with the pinned fastmcp from .cache/py-servers.

``python fastmcp_server.py`` speaks stdio; ``python fastmcp_server.py http PORT`` serves
Streamable HTTP at ``http://127.0.0.1:PORT/mcp``.  Its tools carry what a host must not drop:
titles, annotations, constrained input schemas, output schemas and structured results.
"""

from __future__ import annotations

import sys
from typing import Annotated

from fastmcp import FastMCP
from pydantic import BaseModel, Field

mcp = FastMCP("fast-inventory", instructions="Stock levels of the Acme warehouses.")


class Stock(BaseModel):
    sku: str
    count: int
    warehouses: list[str]


@mcp.tool(
    title="Look up stock",
    annotations={"readOnlyHint": True, "openWorldHint": False, "idempotentHint": True},
)
def stock(
    sku: Annotated[str, Field(description="The SKU, e.g. ABC-12", pattern=r"^[A-Z]{3}-\d+$")],
    include_empty: bool = False,
) -> Stock:
    """How many of an item are in stock, and in which warehouses."""
    places = ["north", "south"] + (["east (empty)"] if include_empty else [])
    return Stock(sku=sku, count=int(sku.split("-")[1]), warehouses=places)


@mcp.tool(annotations={"destructiveHint": True, "idempotentHint": False})
def reserve(sku: str, quantity: Annotated[int, Field(ge=1, le=100)]) -> dict[str, int]:
    """Reserve some items of one SKU."""
    return {"reserved": quantity}


@mcp.tool
def note(text: str) -> str:
    """Echo a note back, unstructured."""
    return f"noted: {text}"


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[2]), show_banner=False)
    else:
        mcp.run(show_banner=False)
