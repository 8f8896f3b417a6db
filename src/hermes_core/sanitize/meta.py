"""Which ``_meta`` keys to pass on to a model.

:func:`clean_meta` keeps vendor keys (``com.example/handoff``) and drops keys under a prefix the
MCP specification reserves.  Both revisions of the key-naming rule are honoured, since servers
in the wild follow either: 2025-06-18 reserves a prefix with a ``modelcontextprotocol`` or
``mcp`` label followed by at least one more label (``modelcontextprotocol.io/``,
``tools.mcp.com/``); 2025-11-25 reserves a prefix whose *second* label is one of them
(``io.modelcontextprotocol/``, ``dev.mcp/``).  ``com.example.mcp/`` is reserved by neither.
Labels compare case-insensitively.
"""

from __future__ import annotations

from collections.abc import Mapping

from hermes_core.sanitize.values import sanitize_value

__all__ = ["clean_meta", "is_reserved_meta_key"]

_RESERVED_LABELS = frozenset({"modelcontextprotocol", "mcp"})


def is_reserved_meta_key(key: str) -> bool:
    """Whether a ``_meta`` key sits under a prefix MCP reserves (see the module docstring)."""
    prefix, slash, _name = key.partition("/")
    if not slash:
        return False
    labels = [label.strip().lower() for label in prefix.split(".")]
    if len(labels) >= 2 and labels[1] in _RESERVED_LABELS:  # 2025-11-25: second label
        return True
    return any(label in _RESERVED_LABELS for label in labels[:-1])  # 2025-06-18


def clean_meta(meta: object) -> dict[str, object] | None:
    """The ``_meta`` to pass on to the model, or ``None`` to omit it.

    Non-string keys and reserved keys are dropped; TAG characters are stripped from keys and
    values first, so a key cannot hide its reserved prefix behind invisible characters.  Returns
    ``None`` for ``None``, a non-mapping, or when nothing is left.
    """
    if not isinstance(meta, Mapping):
        return None
    string_keyed = {key: value for key, value in meta.items() if isinstance(key, str)}
    cleaned = sanitize_value(string_keyed)
    kept = {key: value for key, value in cleaned.items() if not is_reserved_meta_key(key)}
    return kept or None
