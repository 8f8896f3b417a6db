"""Read a vendor's ``plugin.yaml``: the declaration shipped next to an MCP server.

The file has a top-level ``name:`` (the MCP server name as configured under
``mcp_servers``), an optional ``display_name:`` and optional ``app:`` and
``requires:`` blocks exactly as ``hermes_platform.declaration`` parses them.
Another top-level key is an error with a did-you-mean (``require:`` for
``requires:`` must not silently drop every requirement).  It is read with
:mod:`hermes_core.yaml_input` so every error can name the file and the line of the offending key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ruamel.yaml.comments import CommentedMap

from hermes_core.yaml_input import YamlInputError, load_yaml
from hermes_core.yaml_lines import line_of, plain
from hermes_platform.declaration import (
    Declaration,
    DeclarationError,
    parse_declaration,
    unknown_keys_reason,
)

__all__ = [
    "PLUGIN_FILE_KEYS",
    "PluginFile",
    "PluginFileError",
    "load_plugin_file",
    "parse_plugin_text",
]

PLUGIN_FILE_KEYS = ("name", "display_name", "app", "requires")
"""The top-level keys a ``plugin.yaml`` may hold; any other is an error."""

_SERVER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_MAX_FILE_BYTES = 1024 * 1024


class PluginFileError(ValueError):
    """A ``plugin.yaml`` that cannot be used: ``file:line: key reason``."""

    def __init__(self, path: str, line: int | None, key: str, reason: str) -> None:
        location = f"{path}:{line}" if line else path
        super().__init__(f"{location}: {reason}")
        self.path = path
        self.line = line
        self.key = key
        self.reason = reason


@dataclass(frozen=True)
class PluginFile:
    """A loaded ``plugin.yaml``: the server name, its parsed declaration, the other keys."""

    path: str
    name: str
    declaration: Declaration | None
    display_name: str | None = None
    extra: dict[str, object] = field(default_factory=dict)
    raw_app: object = None
    raw_requires: object = None
    tree: object = field(default=None, compare=False, repr=False)

    def line_of(self, key_path: str) -> int | None:
        """The 1-based line of *key_path* (``app.linux.location[1].app_id``) in the file."""
        return line_of(self.tree, key_path) if self.tree is not None else None


def parse_plugin_text(text: str, path: str, *, validate: bool = True) -> PluginFile:
    """Parse the text of a ``plugin.yaml``; *path* labels every error.

    With ``validate=False`` the ``app``/``requires`` blocks are kept raw (for a
    plugin whose declaration may use location kinds registered later).
    """
    try:
        tree = load_yaml(text)
    except YamlInputError as exc:
        raise PluginFileError(path, exc.line, "", exc.problem) from None
    if not isinstance(tree, CommentedMap):
        raise PluginFileError(path, 1, "", "the file must be a mapping with a 'name' key")
    data = plain(tree)
    unknown = [key for key in data if key not in PLUGIN_FILE_KEYS]
    if unknown:
        first = unknown[0]
        raise PluginFileError(
            path,
            line_of(tree, first) if isinstance(first, str) else None,
            str(first),
            unknown_keys_reason("the file", unknown, PLUGIN_FILE_KEYS),
        )
    name = data.get("name")
    if name is None:
        raise PluginFileError(
            path,
            None,
            "name",
            "name is required (the MCP server name as configured under mcp_servers)",
        )
    if not isinstance(name, str) or not _SERVER_NAME.fullmatch(name):
        raise PluginFileError(
            path,
            line_of(tree, "name"),
            "name",
            "name must be the MCP server name (letters, digits, '_', '.', '-')",
        )
    display_name = data.get("display_name")
    if display_name is not None and not isinstance(display_name, str):
        raise PluginFileError(
            path, line_of(tree, "display_name"), "display_name", "display_name must be a string"
        )
    declaration: Declaration | None = None
    try:
        if validate:
            declaration = parse_declaration(
                name, raw_app=data.get("app"), raw_requires=data.get("requires"), where=path
            )
    except DeclarationError as exc:
        raise PluginFileError(path, line_of(tree, exc.key), exc.key, exc.reason) from None
    extra = {k: v for k, v in data.items() if k not in ("name", "display_name", "app", "requires")}
    return PluginFile(
        path, name, declaration, display_name, extra, data.get("app"), data.get("requires"), tree
    )


def load_plugin_file(path: str | Path) -> PluginFile:
    """Read and parse a ``plugin.yaml`` from disk."""
    label = str(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(_MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise PluginFileError(
            label, None, "", f"cannot read the file: {exc.strerror or exc}"
        ) from None
    if len(raw) > _MAX_FILE_BYTES:
        raise PluginFileError(label, None, "", f"the file is larger than {_MAX_FILE_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PluginFileError(label, None, "", f"the file is not UTF-8 ({exc.reason})") from None
    return parse_plugin_text(text, label)
