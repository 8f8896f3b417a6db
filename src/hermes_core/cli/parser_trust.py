"""The parsers of ``hermes mcp trust`` and ``hermes mcp approvals`` (docs/trust.md)."""

from __future__ import annotations

from hermes_core.cli.parser_base import Commands, HermesParser

__all__ = ["add_trust_parsers"]


def add_trust_parsers(mcp_commands: Commands, parser_class: type[HermesParser]) -> None:
    """``hermes mcp trust`` and ``hermes mcp approvals`` (docs/trust.md)."""
    trust = mcp_commands.add_parser(
        "trust",
        help="accept tools whose definition changed since it was pinned (shows what changed)",
        description="A server's tools are pinned when first listed; a tool whose name, "
        "description, schemas or annotations change later is held back (not offered, calls "
        "refused) until accepted here. Each change is shown with its digest; what is accepted is "
        "exactly the definition shown (on a terminal you are asked), or the one --digest names. "
        "Without TOOL, every waiting change of SERVER.",
    )
    trust.add_argument("name", metavar="SERVER", help="the server whose tools changed")
    trust.add_argument(
        "tools",
        nargs="*",
        default=[],  # without a default, argparse names TOOL as required when SERVER is missing
        metavar="TOOL",
        help="only these tools (default: every waiting one)",
    )
    trust.add_argument(
        "--digest",
        metavar="HEX",
        help="accept the definition with this digest only (as shown, at least 12 hex digits; "
        "one TOOL); if the server changed it again, nothing is accepted",
    )
    trust.add_argument(
        "--yes", action="store_true", help="accept what is shown without asking on a terminal"
    )
    trust.add_argument("--json", action="store_true", help="machine-readable output")
    approvals = mcp_commands.add_parser(
        "approvals",
        help="remembered per-tool decisions: ask, always, never",
        description="ask: ask before every call; always: run without asking; never: hide the "
        "tool and refuse its calls. A tool without a decision follows its server's trust tier.",
    )
    approvals.set_defaults(command_parser=approvals)
    verbs = approvals.add_subparsers(
        dest="approvals_command", metavar="COMMAND", parser_class=parser_class
    )
    listing = verbs.add_parser("list", help="the remembered decisions")
    listing.add_argument("name", nargs="?", metavar="SERVER", help="only this server's")
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    setting = verbs.add_parser("set", help="remember a decision for one tool")
    setting.add_argument("name", metavar="SERVER", help="the server of the tool")
    setting.add_argument("tool", metavar="TOOL", help="the tool's name on its server")
    setting.add_argument("decision", metavar="DECISION", help="ask, always or never")
    reset = verbs.add_parser("reset", help="forget the decisions of a server (or of one tool)")
    reset.add_argument("name", metavar="SERVER", help="the server whose decisions to forget")
    reset.add_argument("tool", nargs="?", metavar="TOOL", help="only this tool's decision")
