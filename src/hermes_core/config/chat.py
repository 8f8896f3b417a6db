"""The top-level keys of ``hermes chat``: ``model:``, ``tool_search:`` and
``tool_search_budget:``.

::

    model: gpt-4o-mini          # any llm model ID or alias (`-m` wins)
    tool_search: auto           # auto (default) | on | off
    tool_search_budget: 10000   # auto: search once the tools' schemas pass this many tokens

A bad value is a :class:`ConfigError` naming the file, the line and the key.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from hermes_core.config.checks import kind_of
from hermes_core.config.errors import ConfigError
from hermes_core.config.loader import LoadedConfig
from hermes_core.spelling import closest

__all__ = ["DEFAULT_TOOL_SEARCH_BUDGET", "ChatSettings", "ToolSearchMode", "chat_settings"]

#: ``tool_search: auto`` turns search on past this many estimated tokens of tool schemas
#: (about 10 % of a 100k-token context window).
DEFAULT_TOOL_SEARCH_BUDGET = 10_000


class ToolSearchMode(enum.Enum):
    """Whether the model gets a ``tool_search`` tool instead of every schema."""

    AUTO = "auto"
    """Only when the offered schemas would pass the budget."""
    ON = "on"
    OFF = "off"


@dataclass(frozen=True)
class ChatSettings:
    """What ``hermes chat`` reads from ``config.yaml``."""

    model: str | None = None
    tool_search: ToolSearchMode = ToolSearchMode.AUTO
    tool_search_budget: int = DEFAULT_TOOL_SEARCH_BUDGET


def _error(loaded: LoadedConfig, key: str, reason: str) -> ConfigError:
    return ConfigError(reason, path=str(loaded.path), line=loaded.line_of(key), key=key)


def _mode(loaded: LoadedConfig, value: object) -> ToolSearchMode:
    if value is None:
        return ToolSearchMode.AUTO
    if isinstance(value, bool):  # YAML reads a bare on/off as true/false
        return ToolSearchMode.ON if value else ToolSearchMode.OFF
    words = [mode.value for mode in ToolSearchMode]
    text = value.strip().lower() if isinstance(value, str) else None
    if text in words:
        return ToolSearchMode(text)
    if isinstance(value, str):
        close = closest(text or "", words)
        hint = f" (did you mean {close!r}?)" if close else ""
        got = f"{value[:40]!r}{hint}"
    else:
        got = kind_of(value)
    raise _error(loaded, "tool_search", f"must be auto, on or off (got {got})")


def chat_settings(loaded: LoadedConfig) -> ChatSettings:
    """The chat keys of *loaded* (defaults for those not set)."""
    extra = loaded.config.model_extra or {}
    model = extra.get("model")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise _error(loaded, "model", f"must be an llm model ID or alias (got {kind_of(model)})")
    budget = extra.get("tool_search_budget", DEFAULT_TOOL_SEARCH_BUDGET)
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise _error(
            loaded,
            "tool_search_budget",
            f"must be a whole number of tokens, 0 or more (got {kind_of(budget)})",
        )
    return ChatSettings(
        model=model.strip() if isinstance(model, str) else None,
        tool_search=_mode(loaded, extra.get("tool_search")),
        tool_search_budget=budget,
    )
