"""How deeply a tool call's arguments may nest: at most :data:`MAX_ARGUMENT_DEPTH` levels of
objects and arrays (the arguments object itself is the first).  Deeper arguments are one clear
error at every door, before anything parses or walks them recursively (Python's ``json`` and
``copy`` would end in a ``RecursionError``)."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["MAX_ARGUMENT_DEPTH", "depth_of", "json_text_depth", "nesting_problem"]

#: A JSON string (its end may be missing), a run of openers or a run of closers.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[{]+|[\]}]+')
#: Levels of objects and arrays a call's arguments may have (the arguments object is one).
MAX_ARGUMENT_DEPTH = 64


def nesting_problem(limit: int = MAX_ARGUMENT_DEPTH) -> str:
    """The words every door uses after its verb: ``more than 64 levels of objects and arrays
    deep (the limit)``."""
    return f"more than {limit} levels of objects and arrays deep (the limit)"


def depth_of(value: object, stop: int = MAX_ARGUMENT_DEPTH) -> int:
    """The levels of dicts and lists in *value* (a scalar: 0), without recursion; the walk
    stops at ``stop + 1`` (deep enough to refuse)."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Iterable[object] = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        if deepest > stop:
            return deepest
        stack.extend((child, level + 1) for child in children)
    return deepest


def json_text_depth(text: str) -> int:
    """The deepest nesting of ``{`` and ``[`` in JSON *text* (outside strings), without
    parsing it: read before ``json.loads`` so that deep text is refused, not a
    ``RecursionError``."""
    depth = deepest = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token[0] in "[{":
            depth += len(token)
            deepest = max(deepest, depth)
        elif token[0] in "]}":
            depth -= len(token)
    return deepest
