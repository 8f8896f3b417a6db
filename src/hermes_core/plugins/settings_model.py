"""What Hermes uses of a plugin's settings model, in a module of its own: the hook types of
transports, auth providers and call interceptors all name it, and it names none of them."""

from __future__ import annotations

from typing import Protocol

__all__ = ["SettingsModel"]


class SettingsModel(Protocol):
    """What Hermes uses of a plugin's settings model: a ``pydantic.BaseModel`` subclass.

    Named as a protocol so this module does not import pydantic; any ``BaseModel`` subclass
    is one.  The loader reads its JSON Schema (field names, required, secret) and validates
    the settings with it when ``config.yaml`` is read (``docs/plugins/transport.md``).
    """

    @classmethod
    def model_validate(cls, obj: object) -> object: ...

    @classmethod
    def model_json_schema(cls) -> dict[str, object]: ...
