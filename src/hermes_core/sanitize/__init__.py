"""Clean what MCP servers send before a model sees it: TAG characters, controls and invisible
characters (:mod:`.text`), every string of a JSON-like value (:mod:`.values`), ``_meta``
(:mod:`.meta`), input schemas (:mod:`.schema`).  Standard library only: no project imports."""

from __future__ import annotations

from hermes_core.sanitize.meta import clean_meta, is_reserved_meta_key
from hermes_core.sanitize.schema import (
    check_input_schema,
    normalise_input_schema,
    prepare_input_schema,
)
from hermes_core.sanitize.text import SHORT_ASCII, ascii_control, clean_line, clean_text, strip_tags
from hermes_core.sanitize.values import sanitize_value

__all__ = [
    "SHORT_ASCII",
    "ascii_control",
    "check_input_schema",
    "clean_line",
    "clean_meta",
    "clean_text",
    "is_reserved_meta_key",
    "normalise_input_schema",
    "prepare_input_schema",
    "sanitize_value",
    "strip_tags",
]
