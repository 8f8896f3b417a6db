"""The names ``hermes mcp import --from`` and ``hermes mcp export --format`` accept.

Plain constants with no imports, so the CLI can build its parser (and answer ``hermes --help``)
without loading the readers of every client's files.  :mod:`.sources` checks that its table
matches :data:`SOURCE_NAMES`.
"""

from __future__ import annotations

__all__ = ["EXPORT_ALIASES", "EXPORT_FORMATS", "SOURCE_NAMES"]

#: The clients ``hermes mcp import --from`` reads (the keys of ``sources.SOURCES``).
SOURCE_NAMES = (
    "claude-code",
    "claude-desktop",
    "codex",
    "cursor",
    "gemini",
    "vscode",
    "windsurf",
)

#: The clients ``hermes mcp export --format`` writes for: the same names as import's.
EXPORT_FORMATS = SOURCE_NAMES

#: Names ``hermes mcp export --format`` still accepts for backward compatibility.
EXPORT_ALIASES = {"claude": "claude-code"}
