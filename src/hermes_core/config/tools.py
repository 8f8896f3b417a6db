"""``tools:`` of a server entry: which of its tools register."""

from __future__ import annotations

from pydantic import Field, field_validator

from hermes_core.config.model_base import ConfigModel
from hermes_core.config.tool_overrides import ToolOverrideConfig, check_override_keys
from hermes_core.config.values import boolish, scalar_text, string_list

__all__ = ["ToolsConfig"]


class ToolsConfig(ConfigModel):
    """``tools:``: which server tools register, and whether the utility tools may."""

    include: list[str] | None = None
    """Allow-list (names or case-sensitive globs). Present, even empty, wins over ``exclude``."""
    exclude: list[str] | None = None
    resources: bool = True
    """``list_resources``/``read_resource`` may register (when the server has the capability)."""
    prompts: bool = True
    """``list_prompts``/``get_prompt`` may register (when the server has the capability)."""
    overrides: dict[str, ToolOverrideConfig] = Field(default_factory=dict)
    """Server tool name -> how it is shown and called (``hermes_core.config.tool_overrides``)."""

    @field_validator("include", "exclude", mode="before")
    @classmethod
    def _names(cls, value: object) -> list[str] | None:
        if value is None:
            return None
        text = scalar_text(value)
        if text is not None and not isinstance(value, bool):
            return [text]
        return string_list(value, "tool names or globs")

    @field_validator("overrides", mode="before")
    @classmethod
    def _overrides(cls, value: object) -> dict[str, object]:
        return check_override_keys(value)

    @field_validator("resources", "prompts", mode="before")
    @classmethod
    def _switch(cls, value: object) -> bool:
        return boolish(value, True)
