"""Two helpers over ruamel's round-trip trees: plain values, and the line of a key path.

Kept apart from :mod:`hermes_core.plugin_yaml` (which imports the declaration parser and the
resolver) so that reading ``config.yaml`` does not load the plugin stack.
"""

from __future__ import annotations

import re
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

__all__ = ["line_of", "plain"]

_PATH_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def plain(node: Any) -> Any:
    """ruamel's round-trip types to plain Python values (the parser wants plain dicts)."""
    if isinstance(node, dict):
        return {plain(k): plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    if isinstance(node, bool):
        return bool(node)
    if type(node).__name__ == "ScalarBoolean":
        return bool(node)
    if isinstance(node, str):
        return str(node)
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    return node


def line_of(tree: Any, key_path: str) -> int | None:
    """The 1-based line of the deepest part of *key_path* found in the YAML tree."""
    line: int | None = None
    node = tree
    for name, index in _PATH_TOKEN.findall(key_path.strip("'")):
        try:
            if index and isinstance(node, CommentedSeq):
                position = int(index)
                line = node.lc.item(position)[0] + 1
                node = node[position]
            elif name and isinstance(node, CommentedMap) and name in node:
                line = node.lc.key(name)[0] + 1
                node = node[name]
            else:
                break
        except (KeyError, IndexError, TypeError, AttributeError):
            break
    return line
