"""Clean every string of a JSON-like value: :func:`sanitize_value` applies
:func:`~hermes_core.sanitize.text.clean_text` to every string, keys included, of a JSON-like
value (``structuredContent``, ``_meta``, resource and prompt metadata), without recursion limits
and in linear time."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeAlias, TypeVar, cast

from hermes_core.sanitize.text import ASCII_CONTROL, LONG_ASCII, clean_text, has_ascii_control

__all__ = ["sanitize_value"]

_T = TypeVar("_T")

_Container: TypeAlias = dict[object, object] | list[object] | tuple[object, ...]


def _children(node: _Container) -> list[object]:
    if isinstance(node, dict):
        return [*node.keys(), *node.values()]
    return list(node)


def _contains_tags(root: _Container) -> bool:
    """Whether any string in *root* (keys included) loses characters to :func:`clean_text`.

    One walk over the containers, looking only at what can carry text: a pure-ASCII string
    (``str.isascii`` reads a flag the string keeps) is only searched for the ASCII controls,
    numbers and other values are never looked at, and nothing is serialised.  The plain JSON
    types are told apart by ``type`` (what ``model_dump`` and ``json.loads`` give) and walked
    recursively down to :data:`_NEST_LIMIT` levels (half the cost of a stack of pending items
    for the small results most calls return); anything deeper, and subclasses, take the
    iterative :func:`_scan`.  Each container is looked at once (shared and self-referencing
    values end).
    """
    seen = {id(root)}
    kind = type(root)
    if kind is dict or kind is list or kind is tuple:
        return _walk(root, seen, 0)
    seen.clear()
    return _scan(root, seen)


_NEST_LIMIT = 24


def _walk(node: object, seen: set[int], depth: int) -> bool:
    """The recursive walk of :func:`_contains_tags` over *node*, an exact dict, list or tuple."""
    if type(node) is dict:
        for key in node:
            if key in _CLEAN_WORDS:  # a field name of a result
                continue
            if type(key) is str:
                if key.isascii():
                    if ASCII_CONTROL.search(key) is not None:
                        return True
                elif clean_text(key) is not key:
                    return True
            elif _scan(key, seen):  # a number, a tuple, a str subclass...
                return True
        children: Iterable[object] = node.values()
    else:
        children = cast("list[object] | tuple[object, ...]", node)  # what _walk is given
    for item in children:
        if type(item) is str:
            if item in _CLEAN_WORDS:  # a content type, a role...
                continue
            if item.isascii():  # only C0 controls and DEL to look for
                if len(item) < LONG_ASCII:
                    if ASCII_CONTROL.search(item) is not None:
                        return True
                elif has_ascii_control(item):
                    return True
            elif clean_text(item) is not item:
                return True
            continue
        kind = type(item)
        if kind in _LEAVES:
            continue
        if kind is dict or kind is list or kind is tuple:
            if id(item) in seen:
                continue
            if depth < _NEST_LIMIT:
                seen.add(id(item))
                if _walk(item, seen, depth + 1):
                    return True
            elif _scan(item, seen):
                return True
        elif _scan(item, seen):  # a subclass of str, dict, list or tuple, or another value
            return True
    return False


def _scan(root: object, seen: set[int]) -> bool:
    """:func:`_contains_tags` without recursion (any depth), sharing *seen* with :func:`_walk`."""
    stack: list[object] = [root]
    pop, push = stack.pop, stack.extend
    while stack:
        item = pop()
        if type(item) is str:
            if item.isascii():  # only C0 controls and DEL to look for
                if len(item) < LONG_ASCII:
                    if ASCII_CONTROL.search(item) is not None:
                        return True
                elif has_ascii_control(item):
                    return True
            elif clean_text(item) is not item:
                return True
        elif type(item) in _LEAVES:
            continue
        elif type(item) is dict:
            if id(item) not in seen:
                seen.add(id(item))
                push(item)  # the keys
                push(item.values())
        elif type(item) is list or type(item) is tuple:
            if id(item) not in seen:
                seen.add(id(item))
                push(item)
        elif isinstance(item, str):
            if clean_text(item) is not item:
                return True
        elif isinstance(item, dict):
            if id(item) not in seen:
                seen.add(id(item))
                push(item)
                push(item.values())
        elif isinstance(item, list | tuple) and id(item) not in seen:
            seen.add(id(item))
            push(item)
    return False


_LEAVES = frozenset({int, float, bool, type(None)})
#: Strings that need no look (plain ASCII words): the field names and content types of MCP
#: results, which make up most strings of a small result.  A hash lookup, no call.
_CLEAN_WORDS = frozenset(
    {
        *("content", "isError", "structuredContent", "_meta", "type", "text", "annotations"),
        *("image", "audio", "resource", "resource_link", "data", "mimeType", "uri", "blob"),
        *("name", "title", "description", "size", "icons", "audience", "priority"),
        *("lastModified", "user", "assistant", "resultType", "complete"),
    }
)


def _rebuild(root: _Container) -> _Container:
    done: dict[int, _Container] = {}
    on_path: set[int] = set()
    stack: list[tuple[_Container, bool]] = [(root, False)]

    def resolve(value: object) -> object:
        if isinstance(value, str):
            return clean_text(value)
        if isinstance(value, dict | list | tuple):
            return done[id(value)]
        return value

    while stack:
        node, expanded = stack.pop()
        key = id(node)
        if key in done:
            continue
        if not expanded:
            if key in on_path:
                raise ValueError("cannot sanitise a self-referencing value")
            on_path.add(key)
            stack.append((node, True))
            stack.extend(
                (child, False)
                for child in _children(node)
                if isinstance(child, dict | list | tuple) and id(child) not in done
            )
            continue
        on_path.discard(key)
        if isinstance(node, dict):
            done[key] = _rebuild_dict(node, resolve)
        elif isinstance(node, tuple):
            done[key] = tuple(resolve(v) for v in node)
        else:
            done[key] = [resolve(v) for v in node]
    return done[id(root)]


def _rebuild_dict(
    node: dict[object, object], resolve: Callable[[object], object]
) -> dict[object, object]:
    # Stripping can make two keys equal ("role" and "role" + hidden tags).  The key that arrived
    # clean wins, so hidden text cannot override a visible field; among tagged ones the first wins.
    out: dict[object, object] = {}
    from_tagged: set[object] = set()
    for raw_key, raw_value in node.items():
        new_key = resolve(raw_key) if isinstance(raw_key, str) else raw_key
        value = resolve(raw_value)
        was_tagged = isinstance(raw_key, str) and new_key != raw_key
        if new_key in out:
            if not was_tagged and new_key in from_tagged:
                out[new_key] = value
                from_tagged.discard(new_key)
            continue
        out[new_key] = value
        if was_tagged:
            from_tagged.add(new_key)
    return out


def sanitize_value(obj: _T) -> _T:
    """*obj* with :func:`clean_text` applied to every string in it, dict keys included.

    Dicts, lists and tuples are walked (iteratively: depth is no limit); other values pass
    through.  When nothing needs stripping the same object comes back; otherwise a cleaned copy
    (plain ``dict``/``list``/``tuple``), leaving *obj* untouched.  A self-referencing value raises
    ``ValueError``.
    """
    kind = type(obj)
    if kind is not dict and kind is not list:
        if isinstance(obj, str):
            return cast(_T, clean_text(obj))
        if not isinstance(obj, dict | list | tuple):
            return obj
    if not _contains_tags(obj):  # type: ignore[arg-type]  # (no cast(): it is a call)
        return obj
    return cast(_T, _rebuild(obj))  # type: ignore[arg-type]
