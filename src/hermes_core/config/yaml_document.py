"""A ``config.yaml`` being edited: its text, lines and round-trip tree, where a block starts
and ends, new entries written by ruamel.yaml in the document's own indentation, and the
whole-document round trip used when a line edit is not possible (comments kept)."""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from typing import Final

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.util import load_yaml_guess_indent

from hermes_core.config.checks import kind_of
from hermes_core.config.errors import ConfigError
from hermes_core.config.loader import parse_yaml
from hermes_core.yaml_lines import plain

__all__ = [
    "MISSING",
    "Document",
    "block_end",
    "emit",
    "indent_of",
    "is_blank",
    "normal",
    "redump",
    "to_node",
]

MISSING: Final = object()
"""An entry or a document that is not there (or does not parse): unequal to any data."""


def normal(data: object) -> object:
    """A document's plain data, an empty file and an empty ``mcp_servers:`` as ``{}``."""
    if data is None:
        return {}
    if isinstance(data, dict) and "mcp_servers" in data and data["mcp_servers"] is None:
        return {**data, "mcp_servers": {}}
    return data


class Document:
    """The text being edited, its lines (with endings) and its round-trip tree."""

    def __init__(self, text: str, label: str) -> None:
        self.text = text
        self.label = label
        tree = parse_yaml(text, label)
        if tree is not None and not isinstance(tree, CommentedMap):
            raise ConfigError(
                f"the file must be a mapping of settings (got {kind_of(plain(tree))})",
                path=label,
                line=1,
            )
        self.tree: CommentedMap | None = tree
        self.lines = text.splitlines(keepends=True)
        self.newline = "\r\n" if "\r\n" in text else "\n"

    def data(self) -> dict[str, object]:
        """The document's plain data, normalized (:func:`normal`); the tree is a mapping or
        nothing, so this is a dict."""
        data = normal(plain(self.tree))
        return data if isinstance(data, dict) else {}

    def servers(self) -> CommentedMap | None:
        """``mcp_servers`` when it is a block mapping (line edits are possible)."""
        node = self.tree.get("mcp_servers") if self.tree is not None else None
        if isinstance(node, CommentedMap) and node and not node.fa.flow_style():
            return node
        return None

    def insert(self, at: int, text: str) -> str:
        lines = list(self.lines)
        if at > 0 and not lines[at - 1].endswith("\n"):
            lines[at - 1] += self.newline
        return "".join(lines[:at]) + text + "".join(lines[at:])

    def indent_step(self) -> int:
        """The document's mapping indentation (2 when it has no nested block mapping)."""
        if self.tree is not None:
            for key, value in self.tree.items():
                if isinstance(value, CommentedMap) and value and not value.fa.flow_style():
                    step = value.lc.key(next(iter(value)))[1] - self.tree.lc.key(key)[1]
                    if step > 0:
                        return int(step)
        return 2


def is_blank(line: str) -> bool:
    return not line.strip()


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def block_end(lines: list[str], start: int, column: int) -> int:
    """One past the last line of the block whose key is on line *start* at *column*.

    Deeper-indented lines (and comments) belong to the block; blank lines and
    comments at or left of *column* after its last line belong to what follows.
    """
    last = start
    for index in range(start + 1, len(lines)):
        line = lines[index]
        if is_blank(line):
            continue
        indent, body = indent_of(line), line.strip()
        if body.startswith("#"):
            if indent > column:
                last = index
            continue
        if indent > column or (indent == column and (body == "-" or body.startswith("- "))):
            last = index
            continue
        break
    return last + 1


def to_node(value: object) -> object:
    """Plain data as ruamel nodes: mappings in block style, lists of scalars in flow style."""
    if isinstance(value, dict):
        node = CommentedMap()
        for key, item in value.items():
            node[key] = to_node(item)
        return node
    if isinstance(value, list):
        seq = CommentedSeq(to_node(item) for item in value)
        if all(flow_safe(item) for item in value):
            seq.fa.set_flow_style()
        return seq
    return value


def flow_safe(item: object) -> bool:
    """A list item that ruamel.yaml writes so that it reads back the same in a flow list.

    Its emitter leaves a string that starts with ``?`` or ``:`` plain there (``[?0]``), where
    it reads back as a mapping (``[{0: null}]``); such a list is written in block style."""
    if isinstance(item, dict | list):
        return False
    return not (isinstance(item, str) and item.startswith(("?", ":")))


def emit(name: str, entry: Mapping[str, object], column: int, step: int, newline: str) -> str:
    yaml = YAML(typ="rt")
    yaml.width = 4096
    yaml.indent(mapping=step, sequence=step + 2, offset=step)
    buffer = io.StringIO()
    yaml.dump(CommentedMap([(name, to_node(entry))]), buffer)
    pad = " " * column
    return "".join(
        (pad + line if line.strip() else line) + newline for line in buffer.getvalue().splitlines()
    )


def redump(doc: Document, edit: Callable[[CommentedMap], None]) -> str:
    """The fallback: the whole document through ruamel.yaml's round trip."""
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    try:
        _, mapping, offset = load_yaml_guess_indent(doc.text)
    except Exception:  # noqa: BLE001 - only a formatting guess
        mapping, offset = None, None
    step = mapping if isinstance(mapping, int) and mapping > 0 else 2
    offset = offset if isinstance(offset, int) and offset >= 0 else 0
    yaml.indent(mapping=step, sequence=step + offset, offset=offset)
    tree = yaml.load(doc.text) if doc.text.strip() else None
    if tree is None:
        tree = CommentedMap()
    edit(tree)
    buffer = io.StringIO()
    yaml.dump(tree, buffer)
    return buffer.getvalue().replace("\n", doc.newline)
