"""``roots:``: the folders a server is told it may work in (MCP roots).

A server entry's ``roots:`` is a list; each item is a folder (text) or a mapping
``{path: <folder>, name: <label>}``.  Validated when ``config.yaml`` is read (a bad value or
an unknown key is an error at file:line); the paths are ``${…}``-expanded, ``~``-expanded and
made absolute (against the workspace folder) at connect time, then offered to the server as
``file://`` URIs.  No ``roots:`` (the default) means the host offers no roots at all: the
``roots`` capability is not advertised and a roots request is refused.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict
from pydantic_core import PydanticCustomError

from hermes_core.config.checks import fail, kind, known_keys

__all__ = ["MAX_ROOTS", "RootConfig", "parse_roots"]

#: The most roots one server entry may list.
MAX_ROOTS = 64


class RootConfig(BaseModel):
    """One item of ``roots:``: a folder and an optional label shown to the server."""

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    path: str
    name: str | None = None


def _text(value: object, *where: str | int) -> str:
    if not isinstance(value, str):
        raise fail(f"must be text (got {kind(value)})", *where)
    if not value.strip():
        raise fail("must not be empty", *where)
    if "\0" in value or any(ord(c) < 32 for c in value):
        raise fail("contains a control character", *where)
    return value


def parse_roots(value: object) -> list[RootConfig] | None:
    """The ``roots:`` list, checked; ``None`` when the key is absent or null."""
    if value is None:
        return None
    if isinstance(value, str | Mapping) or not isinstance(value, list | tuple):
        raise fail(
            'must be a list of folders, e.g. roots: ["${workspaceFolder}", ~/notes] '
            f"(got {kind(value)})"
        )
    if len(value) > MAX_ROOTS:
        raise fail(f"lists {len(value)} folders; at most {MAX_ROOTS} are allowed")
    roots: list[RootConfig] = []
    for index, item in enumerate(value):
        if isinstance(item, RootConfig):
            roots.append(item)
            continue
        if isinstance(item, Mapping):
            try:
                fields = known_keys(item, ["path", "name"])
            except PydanticCustomError as exc:  # the unknown key's error, under roots[index]
                context = exc.context or {}
                raise fail(str(context.get("reason")), index, *context.get("sub", ())) from None
            if "path" not in fields:
                raise fail("needs a 'path' (the folder)", index)
            path = _text(fields["path"], index, "path")
            name = fields.get("name")
            if name is not None:
                name = _text(name, index, "name")
            roots.append(RootConfig(path=path, name=name))
        else:
            roots.append(RootConfig(path=_text(item, index)))
    return roots
