"""What every block's config model shares: the error its validators raise, how a bad value's
kind is named, the unknown-key check with its did-you-mean, warnings noted while validating,
and ``${…}`` values left for later.

The bottom of the config models: it imports none of them, so that a model the host needs at
run time (``elicitation:``) does not bring in the others (``oauth:``, the whole
``config.yaml``).  ``difflib`` is imported only when a key is unknown (the embedding host,
which reads the ``elicitation:`` model, never pays for it).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from pydantic import BaseModel, ValidationInfo
from pydantic_core import PydanticCustomError

from hermes_core.spelling import close_matches

__all__ = ["deferred", "fail", "fail_plugin", "kind", "kind_of", "unknown_keys", "warn"]


def fail(reason: str, *sub: str | int) -> PydanticCustomError:
    """The error a validator raises: *reason* at the key path *sub* below the field."""
    return PydanticCustomError("hermes_config", "{reason}", {"reason": reason, "sub": sub})


def fail_plugin(reason: str, *sub: str | int) -> PydanticCustomError:
    """An error a plugin that is not loaded could explain (an unknown transport, auth
    provider or key): with plugins off, only that server is left out."""
    return PydanticCustomError(
        "hermes_config", "{reason}", {"reason": reason, "sub": sub, "plugin": True}
    )


def kind_of(value: object) -> str:
    """What a YAML value is, in words, without showing it."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple | set):
        return "a list"
    if isinstance(value, date):
        return "a date"
    return type(value).__name__


kind = kind_of
"""What *value* is, in the words of the config errors (``a list``, ``text``...)."""


def warn(info: ValidationInfo, message: str, *sub: str | int) -> None:
    """Note a warning at the key path *sub* in the validation context's ``warnings`` list."""
    context = info.context
    if isinstance(context, dict):
        sink = context.get("warnings")
        if isinstance(sink, list):
            sink.append((sub, message))


def deferred(value: object, info: ValidationInfo) -> bool:
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
            close = close_matches(str(key), known, n=1, cutoff=0.7)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise fail(f"unknown key ({hint}valid: {', '.join(sorted(known))})", str(key))
    return {str(key): item for key, item in value.items()}
