"""Moved to hermes_core.sanitize; kept for importers until the redesign's last step."""

from __future__ import annotations

from hermes_core.sanitize import (
    SHORT_ASCII,
    ascii_control,
    check_input_schema,
    clean_line,
    clean_meta,
    clean_text,
    is_reserved_meta_key,
    normalise_input_schema,
    prepare_input_schema,
    sanitize_value,
    strip_tags,
)

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
