"""What every block's config model shares: the error its validators raise, how a bad value's
kind is named, the one unknown-key check of every block (its words and did-you-mean are
:func:`hermes_core.spelling.unknown_name`'s), warnings noted while validating, and ``${…}``
values left for later.

The bottom of the config models: it imports none of them, so that a model the host needs at
run time (``elicitation:``) does not bring in the others (``oauth:``, the whole
``config.yaml``).  ``difflib`` is imported only when a key is unknown (the embedding host,
which reads the ``elicitation:`` model, never pays for it).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from datetime import date
from typing import Any

from pydantic import BaseModel, ValidationInfo
from pydantic_core import PydanticCustomError

from hermes_core.spelling import unknown_name

__all__ = [
    "check_keys",
    "deferred",
    "fail",
    "fail_plugin",
    "kind",
    "kind_of",
    "known_keys",
    "warn",
]


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


def check_keys(keys: Iterable[object], known: Collection[str], *, also: Iterable[str] = ()) -> None:
    """Refuse the first of *keys* not in *known*: an error at that key, with a did-you-mean
    (over *known* and *also*) or the keys there are."""
    for key in keys:
        if str(key) not in known:
            raise fail(unknown_name(str(key), known, also=also), str(key))


def known_keys(
    value: object, known: Collection[str], *, shape: str = "a mapping"
) -> dict[str, Any]:
    """A block's *value* as a mapping whose keys are all in *known* (nothing: empty); else an
    error: ``must be <shape>`` or the unknown key's (:func:`check_keys`)."""
    if value is None:
        return {}
    if isinstance(value, BaseModel):
        return value.model_dump(exclude_unset=True)
    if not isinstance(value, Mapping):
        raise fail(f"must be {shape} (got {kind(value)})")
    check_keys(value, known)
    return {str(key): item for key, item in value.items()}
