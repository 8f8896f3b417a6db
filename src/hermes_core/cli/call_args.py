"""``hermes mcp call TOOL key=value …``: the arguments of a call from ``key=value`` words
(as httpie reads them) or one ``--args`` JSON object.

``key=value``: the value is read as JSON where it parses (``n=3``, ``on=true``,
``tags='["a","b"]'``), else it is the text as written; a parameter the tool declares as a
string always takes the text as written (``id=007``, ``text=true``).  ``key:=value`` forces
JSON (an error when it does not parse).  JSON nested more than
:data:`~hermes_core.nesting.MAX_ARGUMENT_DEPTH` levels deep (the arguments object is one) is an
error for ``--args`` and ``key:=``, and text as written for ``key=``; it is found before the
JSON is parsed."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass

from hermes_core.nesting import MAX_ARGUMENT_DEPTH, json_text_depth, nesting_problem

__all__ = [
    "ArgumentError",
    "CallArguments",
    "Pair",
    "arguments",
    "command_arguments",
    "parse_pairs",
]


class ArgumentError(ValueError):
    """A call's arguments that cannot be read; the message says which and why."""


@dataclass(frozen=True)
class Pair:
    key: str
    text: str
    forced_json: bool


def _not_too_deep(text: str, what: str, *, inside: int) -> None:
    """An :class:`ArgumentError` when JSON *text*, *inside* levels down in the arguments,
    nests deeper than the arguments may."""
    if json_text_depth(text) + inside > MAX_ARGUMENT_DEPTH:
        raise ArgumentError(f"{what} nests {nesting_problem()}")


def _too_deep(text: str) -> bool:
    return json_text_depth(text) + 1 > MAX_ARGUMENT_DEPTH


def parse_pairs(words: list[str]) -> list[Pair]:
    """The ``key=value`` / ``key:=json`` words, checked (no key twice, none empty)."""
    pairs: list[Pair] = []
    seen: set[str] = set()
    for word in words:
        if "=" not in word:
            raise ArgumentError(
                f"{word!r} is not an argument: write key=value (or key:=JSON, or --args JSON)"
            )
        key, text = word.split("=", 1)
        forced = key.endswith(":")
        key = key.removesuffix(":")
        if not key:
            raise ArgumentError(f"{word!r} has no name before '='")
        if key in seen:
            raise ArgumentError(f"argument {key!r} is given twice")
        seen.add(key)
        if forced:
            _not_too_deep(text, f"argument {key!r}", inside=1)
            try:
                json.loads(text)
            except json.JSONDecodeError as exc:
                raise ArgumentError(f"{key}:= needs a JSON value: {exc}") from None
        pairs.append(Pair(key, text, forced))
    return pairs


def _declares_string(schema: object, key: str) -> bool:
    props = schema.get("properties") if isinstance(schema, dict) else None
    prop = props.get(key) if isinstance(props, dict) else None
    if not isinstance(prop, dict):
        return False
    kind = prop.get("type")
    return kind == "string" or (isinstance(kind, list) and bool(kind) and set(kind) <= {"string"})


def arguments(raw_json: str | None, pairs: list[Pair], schema: object) -> dict[str, object]:
    """The call's arguments: ``--args`` *raw_json*, or *pairs* read against the tool's input
    *schema*; both at once is an error."""
    if raw_json is not None and pairs:
        raise ArgumentError("give the arguments one way: key=value words or --args JSON")
    if raw_json is not None:
        _not_too_deep(raw_json, "--args", inside=0)
        try:
            value = json.loads(raw_json) if raw_json.strip() else {}
        except json.JSONDecodeError as exc:
            raise ArgumentError(f"--args is not valid JSON: {exc}") from None
        if not isinstance(value, dict):
            raise ArgumentError("--args must be a JSON object")
        return value
    result: dict[str, object] = {}
    for pair in pairs:
        if pair.forced_json:
            result[pair.key] = json.loads(pair.text)
        elif _declares_string(schema, pair.key) or _too_deep(pair.text):
            result[pair.key] = pair.text  # (JSON too deep to read is text, as written)
        else:
            try:
                result[pair.key] = json.loads(pair.text)
            except json.JSONDecodeError:
                result[pair.key] = pair.text
    return result


@dataclass(frozen=True)
class CallArguments:
    """A call's arguments as the command line gave them, checked: the ``--args`` object, or
    the ``key=value`` words, which are read on the tool's schema once it is known."""

    given: dict[str, object] | None
    """The ``--args`` object (``{}`` for none); ``None`` when the words are to be read."""
    words: tuple[Pair, ...]

    def on(self, schema: object) -> dict[str, object]:
        """The arguments to send to a tool whose input schema is *schema*."""
        if self.given is not None:
            return self.given
        return arguments(None, list(self.words), schema)


#: Where :func:`command_arguments` keeps what it read on the command's namespace.
_READ = "_call_arguments"


def command_arguments(args: argparse.Namespace) -> CallArguments:
    """The arguments of ``hermes mcp call`` (``--args`` and the words), read and checked once
    per command: both of its handlers (warm, then cold) ask; an :class:`ArgumentError` says
    what is wrong, the same each time."""
    read = getattr(args, _READ, None)
    if not isinstance(read, CallArguments | ArgumentError):
        try:
            words = parse_pairs(getattr(args, "pairs", None) or [])
            checked = arguments(args.args, words, None)  # the words are read on the schema
            read = CallArguments(None if words else checked, tuple(words))
        except ArgumentError as exc:
            read = exc
        setattr(args, _READ, read)
    if isinstance(read, ArgumentError):
        raise read
    return read
