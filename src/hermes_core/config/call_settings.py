"""What ``config.yaml`` says about the calls themselves: ``interceptors:``,
``max_result_tokens`` (host-wide and per server), ``audit:`` and ``results:`` (host-wide).

The interceptor names are checked against the registered ones when a host is built
(:func:`check_interceptors`, file:line with a did-you-mean); here only their shape.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationInfo, field_validator, model_validator

from hermes_core.config.checks import fail, kind_of, known_keys
from hermes_core.config.model_base import ConfigModel
from hermes_core.config.values import boolish
from hermes_core.spelling import closest

__all__ = [
    "DEFAULT_MAX_RESULT_TOKENS",
    "AuditConfig",
    "ResultsConfig",
    "interceptor_names",
    "interceptor_problem",
    "result_tokens",
]

#: ``max_result_tokens`` when unset: Claude Code's ``MAX_MCP_OUTPUT_TOKENS`` default.
DEFAULT_MAX_RESULT_TOKENS = 25_000
#: The budget may be turned off with 0; otherwise at least this many tokens.
MIN_RESULT_TOKENS = 100
MAX_RESULT_TOKENS = 10_000_000
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")


def interceptor_names(value: object) -> list[str]:
    """``interceptors:``: a list of interceptor names, each once."""
    if value is None:
        return []
    if not isinstance(value, list | tuple):
        raise fail(f"must be a list of interceptor names (got {kind_of(value)})")
    names: list[str] = []
    for index, item in enumerate(value):
        if not isinstance(item, str) or _NAME.fullmatch(item) is None:
            raise fail(f"must be an interceptor name (got {kind_of(item)})", index)
        if item in names:
            raise fail(f"{item!r} is listed twice", index)
        names.append(item)
    return names


def result_tokens(value: object) -> int | None:
    """``max_result_tokens``: a whole number of tokens (0: no budget)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(f"must be a whole number of tokens (got {kind_of(value)})")
    if value != 0 and not MIN_RESULT_TOKENS <= value <= MAX_RESULT_TOKENS:
        raise fail(
            f"must be 0 (no budget) or between {MIN_RESULT_TOKENS} and {MAX_RESULT_TOKENS:,}"
        )
    return value


def interceptor_problem(
    placed: Iterable[tuple[str, int, str]], registered: Iterable[str]
) -> tuple[str, str] | None:
    """The first ``(key, reason)`` among *placed* ``(key path, index, name)`` naming no
    registered interceptor, with a did-you-mean or the registered names."""
    known = sorted(registered)
    for key, index, name in placed:
        if name in known:
            continue
        close = closest(name, known)
        hint = f"did you mean {close!r}?" if close else f"registered: {', '.join(known)}"
        return f"{key}[{index}]", f"no call interceptor named {name!r} ({hint})"
    return None


class _Block(ConfigModel):
    @model_validator(mode="before")
    @classmethod
    def _keys(cls, value: Any) -> Any:
        return known_keys(value, list(cls.model_fields))


class AuditConfig(_Block):
    """``audit:``: the log of every tool call, ``$HERMES_HOME/logs/audit.jsonl``."""

    enabled: bool = True
    values: bool = False
    """Write the arguments' values, not only their names and types."""
    max_bytes: int = 10 * 1024 * 1024
    """Rotate the log past this size (``audit.jsonl.1`` ... ``.<keep>``)."""
    keep: int = 5
    """Rotated files kept."""

    @field_validator("enabled", "values", mode="before")
    @classmethod
    def _flag(cls, value: object, info: ValidationInfo) -> bool:
        return boolish(value, info.field_name == "enabled")

    @field_validator("max_bytes", mode="before")
    @classmethod
    def _bytes(cls, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 4096:
            raise fail(f"must be a whole number of bytes, 4096 or more (got {kind_of(value)})")
        return value

    @field_validator("keep", mode="before")
    @classmethod
    def _keep(cls, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 100:
            raise fail(f"must be a whole number of files, 1 to 100 (got {kind_of(value)})")
        return value


class ResultsConfig(_Block):
    """``results:``: where results cut by the budget are kept whole, and for how long."""

    max_age_days: float = 7.0
    """Saved results older than this are removed (when a host starts)."""

    @field_validator("max_age_days", mode="before")
    @classmethod
    def _age(cls, value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise fail(f"must be a number of days above 0 (got {kind_of(value)})")
        return float(value)

    max_file_bytes: int = 50 * 1024 * 1024
    """One saved result holds at most this much (a bigger one: its beginning)."""
    max_folder_bytes: int = 500 * 1024 * 1024
    """All saved results together; past it the oldest are removed first."""

    @field_validator("max_file_bytes", "max_folder_bytes", mode="before")
    @classmethod
    def _size(cls, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 4096:
            raise fail(f"must be a whole number of bytes, 4096 or more (got {kind_of(value)})")
        return value

    @model_validator(mode="after")
    def _file_fits_folder(self) -> ResultsConfig:
        if self.max_file_bytes > self.max_folder_bytes:
            raise fail(
                f"max_file_bytes ({self.max_file_bytes}) must not be more than "
                f"max_folder_bytes ({self.max_folder_bytes})",
                "max_file_bytes",
            )
        return self
