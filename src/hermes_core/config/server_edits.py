"""The edits of ``mcp_servers``: each says what the file's data becomes and how to make the
change by touching only the lines of its entry (else on the round-trip tree)."""

from __future__ import annotations

import re
from typing import Any

from ruamel.yaml.comments import CommentedMap

from hermes_core.config.checks import kind_of
from hermes_core.config.errors import ConfigError
from hermes_core.config.yaml_document import (
    MISSING,
    Document,
    block_end,
    emit,
    indent_of,
    is_blank,
    normal,
    to_node,
)
from hermes_core.yaml_lines import plain

__all__ = ["ALREADY_EXISTS", "AddServer", "AddServers", "EditOp", "RemoveServer", "SetEnabled"]

_VALUE_TOKEN = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^']|'')*'|[^\s#,}\]]+")
_BOOL_WORDS = {"true": True, "yes": True, "on": True, "1": True}
_BOOL_WORDS.update({"false": False, "no": False, "off": False, "0": False})


class EditOp:
    server: str

    def expected(self, data: dict[str, Any], label: str) -> dict[str, Any] | None:
        """The file's data after the edit; ``None`` when there is nothing to do."""
        raise NotImplementedError

    def splice(self, doc: Document) -> str | None:
        """The edited text changing only the entry's lines, or ``None``."""
        raise NotImplementedError

    def edit_tree(self, tree: CommentedMap) -> None:
        raise NotImplementedError

    def _servers(self, data: dict[str, Any], label: str) -> dict[str, Any]:
        servers = data.get("mcp_servers")
        if servers is None:
            return {}
        if not isinstance(servers, dict):
            raise ConfigError(
                f"must be a mapping of server names to their settings (got {kind_of(servers)}); "
                "fix it before editing servers",
                path=label,
                key="mcp_servers",
            )
        return servers

    def _entry(self, data: dict[str, Any], label: str) -> dict[str, Any]:
        servers = self._servers(data, label)
        if self.server not in servers:
            raise ConfigError("is not configured", path=label, key=f"mcp_servers.{self.server}")
        entry = servers[self.server]
        if not isinstance(entry, dict):
            raise ConfigError(
                f"must be a mapping of settings (got {kind_of(entry)}); fix it first",
                path=label,
                key=f"mcp_servers.{self.server}",
            )
        return entry


#: The reason an added server is refused when its name is taken.
ALREADY_EXISTS = "already exists (remove it first, or replace it)"


class AddServer(EditOp):
    def __init__(self, server: str, entry: dict[str, Any], replace: bool) -> None:
        self.server = server
        self.entry = entry
        self.replace = replace

    def expected(self, data: dict[str, Any], label: str) -> dict[str, Any] | None:
        servers = self._servers(data, label)
        if self.server in servers:
            if not self.replace:
                raise ConfigError(
                    ALREADY_EXISTS,
                    path=label,
                    key=f"mcp_servers.{self.server}",
                )
            if servers[self.server] == self.entry:
                return None
        servers[self.server] = self.entry
        data["mcp_servers"] = servers
        return data

    def splice(self, doc: Document) -> str | None:
        nl = doc.newline
        tree = doc.tree
        if tree is None or "mcp_servers" not in tree:
            step = doc.indent_step()
            head = doc.text
            if head and not head.endswith("\n"):
                head += nl
            gap = nl if head.strip() and not head.endswith(nl + nl) else ""
            return head + gap + "mcp_servers:" + nl + emit(self.server, self.entry, step, step, nl)
        key_line, key_column = tree.lc.key("mcp_servers")
        if tree["mcp_servers"] is None:
            written = doc.lines[key_line].rstrip("\r\n")
            if key_column != 0 or not re.fullmatch(r"mcp_servers[ \t]*:[ \t]*(#.*)?", written):
                return None
            step = doc.indent_step()
            end = block_end(doc.lines, key_line, 0)
            return doc.insert(end, emit(self.server, self.entry, step, step, nl))
        servers = doc.servers()
        if servers is None:
            return None
        names = list(servers)
        step = servers.lc.key(names[0])[1] - key_column
        if self.server in servers:
            line, column = servers.lc.key(self.server)
            end = block_end(doc.lines, line, column)
            text = emit(self.server, self.entry, column, step, nl)
            return "".join(doc.lines[:line]) + text + "".join(doc.lines[end:])
        line, column = servers.lc.key(names[-1])
        end = block_end(doc.lines, line, column)
        spaced = any(is_blank(doc.lines[servers.lc.key(n)[0] - 1]) for n in names[1:])
        text = emit(self.server, self.entry, column, step, nl)
        return doc.insert(end, (nl if spaced else "") + text)

    def edit_tree(self, tree: CommentedMap) -> None:
        servers = tree.get("mcp_servers")
        if not isinstance(servers, CommentedMap):
            servers = tree["mcp_servers"] = CommentedMap()
        servers[self.server] = to_node(self.entry)


class AddServers(EditOp):
    """Several :class:`AddServer` edits applied one after another, written once."""

    def __init__(self, entries: list[tuple[str, dict[str, Any]]], replace: bool) -> None:
        self.adds = [AddServer(name, entry, replace) for name, entry in entries]
        self.servers = tuple(name for name, _ in entries)
        self.server = self.servers[0]

    def expected(self, data: dict[str, Any], label: str) -> dict[str, Any] | None:
        changed = False
        for add in self.adds:
            result = add.expected(data, label)
            if result is not None:
                data, changed = result, True
        return data if changed else None

    def splice(self, doc: Document) -> str | None:
        for add in self.adds:
            servers = normal(plain(doc.tree)).get("mcp_servers") or {}
            if isinstance(servers, dict) and servers.get(add.server, MISSING) == add.entry:
                continue  # unchanged: keep its lines (and comments) as they are
            text = add.splice(doc)
            if text is None:
                return None
            doc = Document(text, doc.label)
        return doc.text

    def edit_tree(self, tree: CommentedMap) -> None:
        for add in self.adds:
            add.edit_tree(tree)


class RemoveServer(EditOp):
    def __init__(self, server: str) -> None:
        self.server = server

    def expected(self, data: dict[str, Any], label: str) -> dict[str, Any] | None:
        servers = self._servers(data, label)
        if self.server not in servers:
            raise ConfigError("is not configured", path=label, key=f"mcp_servers.{self.server}")
        del servers[self.server]
        data["mcp_servers"] = servers
        return data

    def splice(self, doc: Document) -> str | None:
        servers = doc.servers()
        if servers is None or doc.tree is None:
            return None
        lines = doc.lines
        start, column = servers.lc.key(self.server)
        end = block_end(lines, start, column)
        # Comment lines right above the name, at its column, describe this entry.
        while (
            start > 0
            and lines[start - 1].lstrip(" ").startswith("#")
            and indent_of(lines[start - 1]) == column
        ):
            start -= 1
        parent_line = doc.tree.lc.key("mcp_servers")[0]
        after = end
        while after < len(lines) and is_blank(lines[after]):
            after += 1
        sibling_follows = after < len(lines) and indent_of(lines[after]) == column
        blank_before = start > 0 and is_blank(lines[start - 1])
        if blank_before or (start == parent_line + 1 and sibling_follows):
            end = after
            if after == len(lines):
                while start > 0 and is_blank(lines[start - 1]):
                    start -= 1
        return "".join(lines[:start] + lines[end:])

    def edit_tree(self, tree: CommentedMap) -> None:
        del tree["mcp_servers"][self.server]


class SetEnabled(EditOp):
    def __init__(self, server: str, enabled: bool) -> None:
        self.server = server
        self.enabled = enabled

    def expected(self, data: dict[str, Any], label: str) -> dict[str, Any] | None:
        entry = self._entry(data, label)
        current = entry.get("enabled")
        if current is None:
            effective: bool | None = True
        elif isinstance(current, bool):
            effective = current
        else:
            effective = _BOOL_WORDS.get(str(current).strip().lower())
        if effective is self.enabled:
            return None
        entry["enabled"] = self.enabled
        return data

    def splice(self, doc: Document) -> str | None:
        servers = doc.servers()
        if servers is None:
            return None
        entry = servers[self.server]
        if not isinstance(entry, CommentedMap) or not entry or entry.fa.flow_style():
            return None
        word = "true" if self.enabled else "false"
        lines = list(doc.lines)
        if "enabled" in entry:
            line, column = entry.lc.value("enabled")
            match = _VALUE_TOKEN.match(lines[line], column)
            if match is None:
                return None
            lines[line] = lines[line][: match.start()] + word + lines[line][match.end() :]
            return "".join(lines)
        first_line, first_column = entry.lc.key(next(iter(entry)))
        start, column = servers.lc.key(self.server)
        if first_line <= start:
            return None
        end = block_end(lines, start, column)
        return doc.insert(end, " " * first_column + f"enabled: {word}" + doc.newline)

    def edit_tree(self, tree: CommentedMap) -> None:
        tree["mcp_servers"][self.server]["enabled"] = self.enabled
