"""The top-level keys ``config.yaml`` may hold; any other is an error with a did-you-mean.

``config.yaml`` is shared with the Hermes agent, so its sections are known keys too (this
package does not read them, and keeps them as they are); a key that is neither Hermes core's
nor the agent's is a typo or a block pasted from another client, and silently ignoring it
would leave the user without what they asked for (``sampilng:`` read as no sampling settings,
``mcpServers:`` as no servers at all).
"""

from __future__ import annotations

import re

from hermes_core.spelling import closest

__all__ = ["AGENT_KEYS", "CORE_KEYS", "KNOWN_KEYS", "unknown_key_reason"]

#: What Hermes core reads: the servers, host-wide sampling defaults and the sampling backends'
#: settings, ``hermes mcp serve``'s messaging platforms, the agent's ``timeouts.mcp.tool_call``,
#: the call interceptors and their blocks (``audit``, ``results``, the result budget), the MCP
#: registries, ``hermes chat``'s model and tool search, ``hermes mcp proxy``'s profiles and the
#: durable state's database (``state:``) and the fleet's bus (``bus:``).
CORE_KEYS: tuple[str, ...] = (
    "mcp_servers",
    "sampling",
    "sampling_backends",
    "messaging",
    "timeouts",
    "interceptors",
    "max_result_tokens",
    "audit",
    "results",
    "registries",
    "model",
    "tool_search",
    "tool_search_budget",
    "proxy",
    "state",
    "bus",
)

#: The Hermes agent's sections of the same file (read by the agent, kept as they are here).
AGENT_KEYS: tuple[str, ...] = (
    "_config_version",
    "agent",
    "approvals",
    "attachments",
    "auth",
    "auxiliary",
    "browser",
    "checkpoints",
    "code_execution",
    "command_allowlist",
    "compression",
    "cron",
    "custom_providers",
    "dashboard",
    "database",
    "delegation",
    "discord",
    "display",
    "fallback_model",
    "fallback_providers",
    "gateway",
    "group_sessions_per_user",
    "honcho",
    "hooks",
    "hooks_auto_accept",
    "human_delay",
    "image_gen",
    "kanban",
    "lsp",
    "max_concurrent_sessions",
    "memory",
    "model",
    "model_aliases",
    "openrouter",
    "personalities",
    "platform_toolsets",
    "platforms",
    "plugins",
    "prefill_messages_file",
    "privacy",
    "prompt_caching",
    "provider_routing",
    "providers",
    "quick_commands",
    "runtime",
    "secrets",
    "security",
    "session_reset",
    "sessions",
    "skills",
    "smart_model_routing",
    "streaming",
    "stt",
    "telemetry",
    "terminal",
    "timezone",
    "tool_budget",
    "tool_loop_guardrails",
    "toolsets",
    "tts",
    "updates",
    "vision",
    "voice",
    "wake_word",
    "worktree",
    "worktree_sync",
)

KNOWN_KEYS: frozenset[str] = frozenset(CORE_KEYS + AGENT_KEYS)

# Other clients' names for the servers block (Claude Code, Cursor, VS Code, Codex, Zed …).
_SERVER_BLOCKS = {"mcpservers", "servers", "mcp", "mcpserver", "contextservers", "server"}


def unknown_key_reason(key: str) -> str | None:
    """Why top-level *key* is refused, with a did-you-mean; ``None`` for a known key."""
    if key in KNOWN_KEYS:
        return None
    folded = re.sub(r"[^a-z]", "", key.lower())
    if folded in _SERVER_BLOCKS:
        return (
            "unknown top-level key: Hermes reads MCP servers from mcp_servers: (did you mean "
            "'mcp_servers'?); to bring the servers of Claude Code, Cursor, VS Code and other "
            "clients over, run `hermes mcp import SOURCE`"
        )
    for known in sorted(KNOWN_KEYS):
        if re.sub(r"[^a-z]", "", known) == folded:
            return f"unknown top-level key (did you mean {known!r}?)"
    close = closest(key.lower(), sorted(KNOWN_KEYS))
    if close:
        return f"unknown top-level key (did you mean {close!r}?)"
    return f"unknown top-level key (Hermes reads {', '.join(CORE_KEYS)})"
