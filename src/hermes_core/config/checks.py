"""What every block's config model shares: the error its validators raise, how a bad value's
kind is named, the unknown-key check with its did-you-mean, and ``${…}`` values left for later.

Kept apart from the models themselves so that a model the host needs at run time
(``elicitation:``) does not bring in the others (``oauth:``, the whole ``config.yaml``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationInfo
from pydantic_core import PydanticCustomError

__all__ = ["deferred", "fail", "kind", "unknown_keys"]


def fail(reason: str, *sub: str | int) -> PydanticCustomError:
    """The error a validator raises: *reason* at the key path *sub* below the field."""
    return PydanticCustomError("hermes_config", "{reason}", {"reason": reason, "sub": sub})


def kind(value: Any) -> str:
    """What *value* is, in the words of the config errors (``a list``, ``text``...)."""
    from hermes_core.config.models import kind_of

    return kind_of(value)


def deferred(value: Any, info: ValidationInfo) -> bool:
    """Whether *value* is text whose ``${…}`` is expanded later (checked only then)."""
    context = info.context if isinstance(info.context, dict) else {}
    return isinstance(value, str) and "${" in value and not context.get("expanded")


def unknown_keys(value: Any, known: list[str], what: str) -> dict[str, Any]:
    """*value* as a mapping whose keys are all in *known*; else an error with a did-you-mean."""
    if value is None:
        return {}
    if isinstance(value, BaseModel):
        return value.model_dump(exclude_unset=True)
    if not isinstance(value, Mapping):
        raise fail(f"must be a mapping of {what} settings (got {kind(value)})")
    for key in value:
        if str(key) not in known:
            import difflib

            close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.7)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise fail(f"unknown key ({hint}valid: {', '.join(sorted(known))})", str(key))
    return {str(key): item for key, item in value.items()}
