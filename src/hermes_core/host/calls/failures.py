"""What a failed tool call returns: the error payload and the breaker outcome of an exception."""

from __future__ import annotations

from hermes_core._sdk_compat import is_output_schema_violation
from hermes_core.host.calls.breaker import Outcome
from hermes_core.host.calls.refusals import CallError, CallState
from hermes_core.host.connection import ServerError
from hermes_core.host.tools.offer_gates import ServerGate
from hermes_core.host.tools.registry import ToolEntry
from hermes_core.json_types import JsonObject
from hermes_core.sanitize import clean_text

__all__ = ["call_failed", "server_error_words"]


def server_error_words(server: str, exc: Exception) -> str:
    """What a request to MCP server *server* raised, in words: the server's JSON-RPC error
    ("answered with an error: …"), else the exception's own message (its class name only when
    it has none)."""
    from mcp.shared.exceptions import MCPError

    text = str(exc).strip()
    if isinstance(exc, MCPError):
        return clean_text(f"MCP server '{server}' answered with an error: {text}")
    if isinstance(exc, TimeoutError):
        return clean_text(f"MCP server '{server}': timed out{f' ({text})' if text else ''}")
    return clean_text(f"MCP server '{server}': {text or type(exc).__name__}")


def call_failed(entry: ToolEntry, exc: Exception, gate: ServerGate) -> tuple[JsonObject, Outcome]:
    """The result and breaker outcome of a call that raised *exc* (a connection failure
    also clears *gate*'s cached answers)."""
    if isinstance(exc, ServerError):
        gate.invalidate()
        failed = CallError(str(exc), server=entry.server, retryable=exc.retryable)
        return failed.result(), "transport"
    if is_output_schema_violation(exc):
        # The SDK checks structuredContent against the tool's outputSchema (as the spec
        # asks of clients) and raises a bare RuntimeError when it does not match.
        return CallError(
            f"MCP server '{entry.server}': the result of {entry.tool!r} does "
            f"not match the tool's outputSchema, so it was discarded: "
            f"{str(exc).splitlines()[0]}",
            CallState.INVALID_OUTPUT,
            entry.server,
            retryable=False,
            tool=entry.tool,
        ).result(), "application"
    return CallError(server_error_words(entry.server, exc), server=entry.server).result(), (
        "application"
    )
