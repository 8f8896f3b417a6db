"""The parsers of ``hermes mcp resources``, ``read``, ``templates``, ``prompts`` and
``prompt``: what servers offer besides tools (docs/cli.md)."""

from __future__ import annotations

from pathlib import Path

from hermes_core.cli.parser_base import Commands

__all__ = ["add_browse_parsers"]


def add_browse_parsers(mcp_commands: Commands) -> None:
    """``hermes mcp resources|templates|prompts [SERVER]``, ``read URI``, ``prompt NAME``."""
    for verb, noun in (
        ("resources", "resources (URI, name, type)"),
        ("templates", "resource templates (URI patterns to fill in and read)"),
        ("prompts", "prompts and their arguments"),
    ):
        listing = mcp_commands.add_parser(
            verb,
            help=f"the servers' {noun}",
            description=f"Connect the servers (or SERVER) and list their {noun}, every page "
            "the server sends (at most 50 pages, 1000 items).",
        )
        listing.add_argument("server", nargs="?", metavar="SERVER", help="only this server")
        listing.add_argument("--json", action="store_true", help="machine-readable output")
    read = mcp_commands.add_parser(
        "read",
        help="read a resource by URI (text printed; binary saved with -o FILE)",
        description="Read one resource. Text is printed as text; binary contents (a blob) are "
        "written with -o FILE, or to stdout when it is not a terminal. The server is the one "
        "that lists URI (or a template it fits), unless --server names it.",
    )
    read.add_argument("uri", metavar="URI", help="the resource's URI, e.g. file:///notes.md")
    read.add_argument("--server", metavar="SERVER", help="the server to read it from")
    read.add_argument("-o", "--output", type=Path, metavar="FILE", help="save the contents here")
    read.add_argument("--json", action="store_true", help="the contents as JSON (base64 blobs)")
    prompt = mcp_commands.add_parser(
        "prompt",
        help="render a prompt: `hermes mcp prompt NAME key=value …`",
        description="Get one prompt with its arguments and print its messages. When several "
        "servers offer a prompt of that name, write SERVER/NAME (or --server SERVER).",
    )
    prompt.add_argument("name", metavar="NAME", help="the prompt's name, or SERVER/NAME")
    prompt.add_argument(
        "pairs",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="one argument (repeat it); values are text",
    )
    prompt.add_argument("--server", metavar="SERVER", help="the server that offers it")
    prompt.add_argument("--json", action="store_true", help="the prompt's messages as JSON")
