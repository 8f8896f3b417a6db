"""A server entry for display: secrets masked (``import --dry-run``, ``mcp get``)."""

from __future__ import annotations

from collections.abc import Mapping

from hermes_core.config.models import display_url
from hermes_core.config.redact import shown_args
from hermes_core.importing.secrets import is_secret_key, mask

__all__ = ["masked_entry"]


def masked_entry(entry: Mapping[str, object]) -> dict[str, object]:
    """*entry* with secret-looking ``env``/``headers`` values, URL credentials, secret
    arguments and an OAuth client secret replaced by ``***`` (references stay visible)."""
    shown = dict(entry)
    args = shown.get("args")
    if isinstance(args, list):
        shown["args"] = shown_args([str(a) for a in args])
    url = shown.get("url")
    if isinstance(url, str):
        shown["url"] = display_url(url)
    for key in ("env", "headers"):
        values = shown.get(key)
        if isinstance(values, dict):
            shown[key] = {
                k: mask(str(v)) if is_secret_key(str(k)) else v for k, v in values.items()
            }
    oauth = shown.get("oauth")
    if isinstance(oauth, dict) and "client_secret" in oauth:
        shown["oauth"] = {**oauth, "client_secret": mask(str(oauth["client_secret"]))}
    return shown
