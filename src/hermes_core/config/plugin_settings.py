"""A plugin's settings in ``config.yaml``, checked when the file is read.

A transport or auth provider may carry a pydantic model of its settings
(``TransportSpec.settings``, ``AuthProviderSpec.settings``).  The config loader checks the
entry's block against it as it checks the built-in keys: an unknown key is an error with a
did-you-mean, a missing required one or a value of the wrong kind is an error at its line,
and ``hermes mcp list`` masks only the fields the model marks secret.

What is checked is a :class:`SettingsShape`: made from the model when the plugins are loaded
(then the model itself validates, every error at its key), or read back from the record that
lets ``hermes mcp list`` check ``config.yaml`` without loading them
(:mod:`hermes_core.plugins.config_keys`): the field names, which are required, which secret,
and their JSON kinds.  A ``${VAR}`` value is checked when it is resolved, at connect.

A field is secret when its type is ``pydantic.SecretStr``/``SecretBytes`` or its ``Field``
says ``json_schema_extra={"secret": True}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hermes_core.spelling import unknown_name

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["SettingField", "SettingsShape"]

_KINDS = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (Mapping,),
    "null": (type(None),),
}
_KIND_WORDS = {
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping",
    "null": "nothing",
}


@dataclass(frozen=True)
class SettingField:
    """One field of a plugin's settings, as the loader checks it."""

    name: str
    required: bool = False
    secret: bool = False
    kinds: tuple[str, ...] = ()
    """JSON Schema types the value may have (empty: any)."""


@dataclass(frozen=True)
class SettingsShape:
    """The settings a transport or auth provider accepts (see the module docstring)."""

    fields: tuple[SettingField, ...]
    model: type[BaseModel] | None = field(default=None, compare=False, repr=False)
    """The pydantic model, when the plugin is loaded (``None``: read from the record)."""

    # ----------------------------------------------------------------- making one

    @classmethod
    def of_model(cls, model: type[BaseModel]) -> SettingsShape:
        """The shape of a pydantic model class (its JSON Schema, aliases as written)."""
        schema = model.model_json_schema()  # (by alias, for validation: as config.yaml holds it)
        required = set(schema.get("required", ()))
        made: list[SettingField] = []
        for name, prop in (schema.get("properties") or {}).items():
            made.append(
                SettingField(
                    name=str(name),
                    required=name in required,
                    secret=_secret(prop),
                    kinds=_kinds(prop),
                )
            )
        return cls(tuple(made), model)

    @classmethod
    def from_record(cls, data: object) -> SettingsShape:
        """A shape read back from :meth:`record` (``ValueError`` when it is not one)."""
        if not isinstance(data, list):
            raise ValueError("not a list of fields")
        made = []
        for item in data:
            if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
                raise ValueError("not a field")
            made.append(
                SettingField(
                    item["name"],
                    bool(item.get("required")),
                    bool(item.get("secret")),
                    tuple(str(k) for k in item.get("kinds") or ()),
                )
            )
        return cls(tuple(made))

    def record(self) -> list[dict[str, object]]:
        """The shape as plain JSON (kept in ``plugin-config-keys.json``)."""
        return [
            {"name": f.name, "required": f.required, "secret": f.secret, "kinds": list(f.kinds)}
            for f in self.fields
        ]

    # ----------------------------------------------------------------- using one

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.fields]

    @property
    def required(self) -> list[str]:
        return [f.name for f in self.fields if f.required]

    def shown(self) -> frozenset[str]:
        """The fields ``hermes mcp list`` may show (every field not marked secret)."""
        return frozenset(f.name for f in self.fields if not f.secret)

    def as_mapping(self, value: object) -> object:
        """A transport's scalar value (``socket: /run/x.sock``) as its first field's setting."""
        if isinstance(value, Mapping) or not self.fields:
            return value
        return {self.fields[0].name: value}

    def problem(self, value: Mapping[str, object]) -> tuple[tuple[str | int, ...], str] | None:
        """The first thing wrong with *value* (key path below the block, reason), or None."""
        names = self.names
        for key in value:
            if key not in names:
                return (str(key),), unknown_name(str(key), names, noun="setting")
        missing = [name for name in self.required if name not in value]
        if missing:
            return (
                (),
                f"missing required setting {missing[0]!r} (required: {', '.join(self.required)})",
            )
        deferred = {k for k, v in value.items() if _deferred(v)}
        if self.model is not None:
            return _model_problem(self.model, value, deferred)
        for item in self.fields:
            if item.name not in value or item.name in deferred or not item.kinds:
                continue
            got = value[item.name]
            if not any(_is_kind(got, kind) for kind in item.kinds):
                words = " or ".join(_KIND_WORDS.get(k, k) for k in item.kinds if k != "null")
                return (item.name,), f"must be {words or 'set'}"
        return None


def _model_problem(
    model: type[BaseModel], value: Mapping[str, object], deferred: set[str]
) -> tuple[tuple[str | int, ...], str] | None:
    from pydantic import ValidationError

    try:
        model.model_validate(dict(value))
    except ValidationError as exc:
        for error in exc.errors(include_input=False, include_url=False):
            loc = tuple(error.get("loc", ()))
            if loc and loc[0] in deferred:
                continue  # checked once ${VAR} is resolved
            return loc, str(error.get("msg", "invalid"))
    except (ValueError, TypeError) as exc:
        return (), str(exc) or type(exc).__name__
    return None


def _deferred(value: object) -> bool:
    return isinstance(value, str) and "${" in value


def _is_kind(value: object, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _KINDS.get(kind, (object,)))


def _secret(prop: Mapping[str, object]) -> bool:
    if prop.get("secret") is True or prop.get("writeOnly") is True:
        return True
    if prop.get("format") == "password":
        return True
    options = prop.get("anyOf", ())
    return isinstance(options, list | tuple) and any(
        _secret(p) for p in options if isinstance(p, Mapping)
    )


def _kinds(prop: Mapping[str, object]) -> tuple[str, ...]:
    """The JSON types *prop* allows; empty when it allows any (a reference, an open option)."""
    kind = prop.get("type")
    if isinstance(kind, str):
        return (kind,)
    if isinstance(kind, list):
        return tuple(str(k) for k in kind)
    options = prop.get("anyOf")
    if not isinstance(options, list):
        return ()
    found: list[str] = []
    for option in options:
        inner = _kinds(option) if isinstance(option, Mapping) else ()
        if not inner:
            return ()
        found.extend(inner)
    return tuple(found)
