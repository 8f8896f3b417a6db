"""The base of the ``mcp_servers`` models: frozen, inputs hidden from errors, extra keys kept
(each model checks them itself, so an unknown one gets our message)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["ConfigModel"]


class ConfigModel(BaseModel):
    model_config = ConfigDict(
        extra="allow", frozen=True, hide_input_in_errors=True, populate_by_name=True
    )
