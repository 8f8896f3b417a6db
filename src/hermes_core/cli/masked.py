"""A server entry for display: secrets masked (``import --dry-run``, ``mcp get``)."""

from __future__ import annotations

from typing import Any

from hermes_core.config.models import display_url
from hermes_core.config.redact import shown_args
from hermes_core.importing.secrets import is_secret_key, mask

__all__ = ["masked_entry"]


def masked_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """*entry* with secret-looking ``env``/``headers`` values, URL credentials, secret
    arguments and an OAuth client secret replaced by ``***`` (references stay visible)."""
    shown = dict(entry)
    if "args" in shown and isinstance(shown["args"], list):
        shown["args"] = shown_args([str(a) for a in shown["args"]])
    if "url" in shown and isinstance(shown["url"], str):
        shown["url"] = display_url(shown["url"])
    for key in ("env", "headers"):
        if isinstance(shown.get(key), dict):
            shown[key] = {
                k: mask(str(v)) if is_secret_key(str(k)) else v for k, v in shown[key].items()
            }
    if isinstance(shown.get("oauth"), dict) and "client_secret" in shown["oauth"]:
        oauth = shown["oauth"]
        shown["oauth"] = {**oauth, "client_secret": mask(str(oauth["client_secret"]))}
    return shown
