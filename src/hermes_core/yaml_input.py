"""Load YAML written by someone else: bounded, tag-free, and every problem at a line.

Every YAML file Hermes reads (``config.yaml``, a vendor's ``plugin.yaml``, the
frontmatter of a ``SKILL.md``) goes through :func:`load_yaml`.  Before
ruamel.yaml builds anything, the event stream (produced without recursion) is
checked, so hostile input is refused in time and memory linear in its size:

* **Explicit tags** (``!!int abc``, ``!!timestamp``, ``!!set``, ``!custom``, even
  ``!!str``) are refused: quote a value to make it a string.
* **Nesting** deeper than :data:`MAX_DEPTH` levels, counted after aliases are
  expanded, is refused (the constructors and our own walkers are recursive).
* **Aliases** may not expand to more than :data:`MAX_ALIAS_NODES` nodes in all
  (a few hundred bytes of nested ``*a`` references otherwise become gigabytes).
* **An alias** may not refer to a collection that contains it (a cycle).
* **Anchors** may be defined once (ruamel would otherwise print a warning
  quoting the surrounding text, secrets included).
* **Mapping keys** are plain scalars, never collections or aliases.

A value the constructor cannot build (``2024-13-45`` resolves as a date, an
integer of 5000 digits) is reported at its line too.  Problems never quote a
value.  The caller turns :class:`YamlInputError` into its own ``file:line`` error.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Literal

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    CollectionEndEvent,
    CollectionStartEvent,
    Event,
    MappingStartEvent,
    NodeEvent,
    ScalarEvent,
)

__all__ = ["MAX_ALIAS_NODES", "MAX_DEPTH", "YamlInputError", "load_yaml"]

MAX_DEPTH = 64
"""Deepest nesting of mappings and sequences accepted (after alias expansion)."""
MAX_ALIAS_NODES = 100_000
"""Most nodes that all alias references together may stand for."""


class YamlInputError(ValueError):
    """YAML that is refused: *problem* at the 1-based *line* of the text (when known)."""

    def __init__(self, problem: str, line: int | None) -> None:
        super().__init__(f"{line}: {problem}" if line else problem)
        self.problem = problem
        self.line = line


@dataclass
class _Frame:
    is_mapping: bool
    anchor: str | None
    size: int = 1
    depth: int = 0
    """How many levels the deepest child adds below this collection."""
    children: int = 0


def _tag_name(tag: str) -> str:
    return "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:yaml.org") else tag


def _check_events(events: Any) -> None:
    """Walk the event stream once; raise on what :mod:`hermes_core.yaml_input` refuses."""
    stack: list[_Frame] = []
    anchors: dict[str, tuple[int, int]] = {}  # name -> (expanded size, depth)
    expanded = 0
    event: Event
    for event in events:
        line = event.start_mark.line + 1 if event.start_mark is not None else None
        if isinstance(event, NodeEvent):
            parent = stack[-1] if stack else None
            is_key = parent is not None and parent.is_mapping and parent.children % 2 == 0
            anchor = event.anchor
            if anchor is not None and not isinstance(event, AliasEvent) and anchor in anchors:
                raise YamlInputError(
                    f"the anchor '&{anchor}' is defined a second time here; give it another name",
                    line,
                )
            tag = getattr(event, "tag", None)
            if tag is not None:
                raise YamlInputError(
                    f"explicit YAML tags such as '{_tag_name(str(tag))}' are not supported "
                    "(quote the value to make it a string)",
                    line,
                )
            if is_key and not isinstance(event, ScalarEvent):
                raise YamlInputError("a mapping key must be a plain value, not a collection", line)
            if isinstance(event, CollectionStartEvent):
                if len(stack) + 1 > MAX_DEPTH:
                    raise YamlInputError(f"nesting deeper than {MAX_DEPTH} levels", line)
                if anchor is not None:
                    anchors[anchor] = (1, 0)  # completed at its end event
                stack.append(_Frame(isinstance(event, MappingStartEvent), anchor))
                expanded += 1
                continue
            if isinstance(event, AliasEvent):
                if any(frame.anchor == anchor for frame in stack):
                    raise YamlInputError(
                        f"the alias '*{anchor}' refers to a collection that contains it", line
                    )
                size, depth = anchors.get(str(anchor), (1, 0))
                expanded += size
                if expanded > MAX_ALIAS_NODES:
                    raise YamlInputError(
                        f"aliases expand to more than {MAX_ALIAS_NODES} values", line
                    )
                if len(stack) + depth > MAX_DEPTH:
                    raise YamlInputError(
                        f"nesting deeper than {MAX_DEPTH} levels (through the alias '*{anchor}')",
                        line,
                    )
            else:
                size, depth = 1, 0
                if anchor is not None:
                    anchors[anchor] = (1, 0)
            if parent is not None:
                parent.size += size
                parent.depth = max(parent.depth, depth)
                parent.children += 1
        elif isinstance(event, CollectionEndEvent) and stack:
            done = stack.pop()
            if done.anchor is not None:
                anchors[done.anchor] = (done.size, done.depth + 1)
            if stack:
                stack[-1].size += done.size
                stack[-1].depth = max(stack[-1].depth, done.depth + 1)
                stack[-1].children += 1


def _bad_scalar_line(events: Any) -> int | None:
    """The line of the first plain scalar that cannot be built on its own (error path only)."""
    for event in events:
        if isinstance(event, ScalarEvent) and event.style is None:
            try:
                YAML(typ="safe", pure=True).load(event.value)
            except (ValueError, OverflowError):
                return event.start_mark.line + 1 if event.start_mark is not None else None
            except YAMLError:
                continue
    return None


def load_yaml(text: str, *, typ: Literal["rt", "safe"] = "rt") -> Any:
    """The YAML *text* loaded with ruamel's *typ* loader, after the checks above.

    Raises :class:`YamlInputError`; never any other exception for any *text*.
    """
    try:
        _check_events(YAML(typ=typ, pure=True).parse(text))
        with warnings.catch_warnings():
            # ruamel's warnings quote the text around them (values may be secrets).
            warnings.simplefilter("ignore")
            return YAML(typ=typ, pure=True).load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        # ruamel quotes both values of a duplicate key; values may be secrets.
        problem = problem.split(" with value ", 1)[0]
        raise YamlInputError(
            f"YAML syntax error: {problem}", mark.line + 1 if mark is not None else None
        ) from None
    except YAMLError as exc:
        raise YamlInputError(f"YAML error: {type(exc).__name__}", None) from None
    except (ValueError, OverflowError) as exc:
        if isinstance(exc, YamlInputError):
            raise
        try:
            line = _bad_scalar_line(YAML(typ=typ, pure=True).parse(text))
        except YAMLError:
            line = None
        raise YamlInputError("a value cannot be read (an invalid date or number)", line) from None
    except RecursionError:
        raise YamlInputError(f"nesting deeper than {MAX_DEPTH} levels", None) from None
