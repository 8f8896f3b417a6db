"""What makes a ``tools/call`` request plain: what the proxy's hot paths (stdio and HTTP) answer
themselves, leaving anything else to the SDK's server."""

from __future__ import annotations

from hermes_core.json_types import JsonObject

__all__ = ["plain_params"]

_CALL_KEYS = frozenset({"name", "arguments", "_meta"})
#: ``_meta`` keys a plain call may carry (anything else, a progress token or a 2026-07-28
#: envelope key, is the SDK's to read).
_PLAIN_META = frozenset({"traceparent", "tracestate", "baggage"})


def plain_params(params: object) -> tuple[str, JsonObject] | None:
    """``(name, arguments)`` of a plain ``tools/call``'s *params*, else ``None``."""
    if not isinstance(params, dict) or not _CALL_KEYS.issuperset(params):
        return None
    name, arguments = params.get("name"), params.get("arguments", {})
    if not isinstance(name, str) or not isinstance(arguments, dict):
        return None
    meta = params.get("_meta")
    if meta is not None and (not isinstance(meta, dict) or not _PLAIN_META.issuperset(meta)):
        return None
    return name, arguments
