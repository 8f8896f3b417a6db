"""A registry's ``server.json``, read for what Hermes needs and nothing else.

The registry is untrusted: counts and string lengths are bounded, a wrong type is a
:class:`ServerJsonError` naming the key (``packages[0].identifier: must be text``), and fields
this Hermes does not know (a newer schema) are collected in :attr:`ServerJson.unknown` to be
shown, never fatal.  Keys are the registry's camelCase (``registryType``, ``isSecret``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, overload

from hermes_core.catalog.registry.app_meta import DECLARATION_META, hermes_meta

__all__ = [
    "DECLARATION_META",
    "Input",
    "Package",
    "Remote",
    "ServerJson",
    "ServerJsonError",
    "parse_server_json",
]


_MAX_ITEMS = 64
_MAX_TEXT = 4096

_SERVER_KEYS = {
    "$schema", "name", "title", "description", "version", "repository", "websiteUrl", "icons",
    "packages", "remotes", "_meta", "status",
}  # fmt: skip
_PACKAGE_KEYS = {
    "registryType", "registryBaseUrl", "identifier", "version", "fileSha256", "runtimeHint",
    "transport", "runtimeArguments", "packageArguments", "environmentVariables",
}  # fmt: skip
_INPUT_KEYS = {
    "description", "isRequired", "format", "value", "isSecret", "default", "placeholder",
    "choices", "variables",
}  # fmt: skip
_ARGUMENT_KEYS = _INPUT_KEYS | {"type", "name", "valueHint", "isRepeated"}
_KEY_VALUE_KEYS = _INPUT_KEYS | {"name"}
_TRANSPORT_KEYS = {"type", "url", "headers"}


class ServerJsonError(ValueError):
    """A ``server.json`` Hermes cannot use: ``<where>: <key>: <what is wrong>``."""


@dataclass(frozen=True)
class Input:
    """An argument, environment variable, header or ``{variable}``: fixed (``value``) or asked."""

    kind: str
    """``positional``, ``named``, ``env``, ``header`` or ``variable``."""
    name: str
    """The flag (named), the ``valueHint`` (positional), the variable or header name."""
    description: str = ""
    required: bool = False
    secret: bool = False
    default: str | None = None
    value: str | None = None
    choices: tuple[str, ...] = ()
    variables: Mapping[str, Input] = field(default_factory=dict)


@dataclass(frozen=True)
class Remote:
    """A ``remotes`` endpoint (or a package's own transport)."""

    type: str
    url: str | None = None
    headers: tuple[Input, ...] = ()


@dataclass(frozen=True)
class Package:
    registry_type: str
    identifier: str
    version: str | None = None
    registry_base_url: str | None = None
    file_sha256: str | None = None
    runtime_hint: str | None = None
    transport: Remote = Remote("stdio")
    runtime_arguments: tuple[Input, ...] = ()
    package_arguments: tuple[Input, ...] = ()
    environment_variables: tuple[Input, ...] = ()


@dataclass(frozen=True)
class ServerJson:
    name: str
    version: str
    description: str = ""
    title: str = ""
    website_url: str | None = None
    repository_url: str | None = None
    packages: tuple[Package, ...] = ()
    remotes: tuple[Remote, ...] = ()
    hermes_meta: Mapping[str, object] = field(default_factory=dict)
    """Our ``_meta`` keys (``dev.hermes/…``; the app declaration under
    :data:`DECLARATION_META`), unparsed: :mod:`.app_meta` reads them at install."""
    status: str | None = None
    """The registry's ``active``/``deprecated``/``deleted``, when it said."""
    unknown: tuple[str, ...] = ()
    """Fields this Hermes does not read (``packages[0].signature``): shown, not fatal."""


class _Reader:
    def __init__(self, where: str) -> None:
        self.where = where
        self.unknown: list[str] = []

    def fail(self, key: str, reason: str) -> ServerJsonError:
        return ServerJsonError(f"{self.where}: {key}: {reason}")

    def mapping(self, value: object, key: str) -> dict[str, object]:
        if not isinstance(value, dict):
            raise self.fail(key, "must be an object")
        return value

    def items(self, value: object, key: str) -> list[object]:
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(key, "must be a list")
        if len(value) > _MAX_ITEMS:
            raise self.fail(key, f"has more than {_MAX_ITEMS} items")
        return value

    @overload
    def text(
        self, data: Mapping[str, object], key: str, where: str, *, required: Literal[True]
    ) -> str: ...

    @overload
    def text(
        self, data: Mapping[str, object], key: str, where: str, *, required: bool = False
    ) -> str | None: ...

    def text(
        self, data: Mapping[str, object], key: str, where: str, *, required: bool = False
    ) -> str | None:
        value = data.get(key)
        if value is None:
            if required:
                raise self.fail(f"{where}{key}", "is required")
            return None
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise self.fail(f"{where}{key}", "must be text")
        text = str(value)
        if len(text) > _MAX_TEXT:
            raise self.fail(f"{where}{key}", f"is longer than {_MAX_TEXT} characters")
        return text

    def flag(self, data: Mapping[str, object], key: str, where: str) -> bool:
        value = data.get(key, False)
        if not isinstance(value, bool):
            raise self.fail(f"{where}{key}", "must be true or false")
        return value

    def note_unknown(self, data: Mapping[str, object], known: set[str], where: str) -> None:
        for key in data:
            if key not in known and not str(key).startswith("_"):
                self.unknown.append(f"{where}{key}")

    def input(self, raw: object, kind: str, where: str, *, depth: int = 0) -> Input:
        data = self.mapping(raw, where.rstrip("."))
        known = {"positional": _ARGUMENT_KEYS, "named": _ARGUMENT_KEYS}.get(kind, _KEY_VALUE_KEYS)
        self.note_unknown(data, known if kind != "variable" else _INPUT_KEYS, where)
        if kind in ("positional", "named"):
            name = self.text(data, "name" if kind == "named" else "valueHint", where) or ""
            if kind == "named" and not name:
                raise self.fail(f"{where}name", "is required for a named argument")
        elif kind == "variable":
            name = where.rstrip(".").rsplit(".", 1)[-1]
        else:
            name = self.text(data, "name", where, required=True)
        choices = tuple(
            str(c) for c in self.items(data.get("choices"), f"{where}choices") if _scalar(c)
        )
        variables: dict[str, Input] = {}
        if depth == 0:
            raw_vars = self.mapping(data.get("variables") or {}, f"{where}variables")
            if len(raw_vars) > _MAX_ITEMS:
                raise self.fail(f"{where}variables", f"has more than {_MAX_ITEMS} items")
            for var, spec in raw_vars.items():
                variables[str(var)] = self.input(
                    spec, "variable", f"{where}variables.{var}.", depth=1
                )
        return Input(
            kind=kind,
            name=name,
            description=self.text(data, "description", where) or "",
            required=self.flag(data, "isRequired", where),
            secret=self.flag(data, "isSecret", where),
            default=self.text(data, "default", where),
            value=self.text(data, "value", where),
            choices=choices,
            variables=variables,
        )

    def argument(self, raw: object, where: str) -> Input:
        data = self.mapping(raw, where.rstrip("."))
        kind = data.get("type")
        if kind not in ("positional", "named"):
            raise self.fail(f"{where}type", "must be 'positional' or 'named'")
        found = self.input(data, kind, where)
        if kind == "positional" and found.value is None and not found.name:
            raise self.fail(where.rstrip("."), "a positional argument needs value or valueHint")
        return found

    def transport(self, raw: object, where: str) -> Remote:
        data = self.mapping(raw, where.rstrip("."))
        self.note_unknown(data, _TRANSPORT_KEYS, where)
        kind = self.text(data, "type", where, required=True)
        headers = tuple(
            self.input(h, "header", f"{where}headers[{i}].")
            for i, h in enumerate(self.items(data.get("headers"), f"{where}headers"))
        )
        return Remote(kind, self.text(data, "url", where), headers)

    def package(self, raw: object, where: str) -> Package:
        data = self.mapping(raw, where.rstrip("."))
        self.note_unknown(data, _PACKAGE_KEYS, where)

        def args(key: str) -> tuple[Input, ...]:
            return tuple(
                self.argument(a, f"{where}{key}[{i}].")
                for i, a in enumerate(self.items(data.get(key), f"{where}{key}"))
            )

        transport = data.get("transport")
        return Package(
            registry_type=self.text(data, "registryType", where, required=True),
            identifier=self.text(data, "identifier", where, required=True),
            version=self.text(data, "version", where),
            registry_base_url=self.text(data, "registryBaseUrl", where),
            file_sha256=self.text(data, "fileSha256", where),
            runtime_hint=self.text(data, "runtimeHint", where),
            transport=(
                self.transport(transport, f"{where}transport.")
                if transport is not None
                else Remote("stdio")
            ),
            runtime_arguments=args("runtimeArguments"),
            package_arguments=args("packageArguments"),
            environment_variables=tuple(
                self.input(e, "env", f"{where}environmentVariables[{i}].")
                for i, e in enumerate(
                    self.items(data.get("environmentVariables"), f"{where}environmentVariables")
                )
            ),
        )


def _scalar(value: object) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def parse_server_json(raw: object, where: str) -> ServerJson:
    """The ``server`` object of a registry answer (or a ``server.json`` file's content)."""
    reader = _Reader(where)
    data = reader.mapping(raw, "server")
    reader.note_unknown(data, _SERVER_KEYS, "")
    repository = data.get("repository")
    repo_url = (
        reader.text(repository, "url", "repository.") if isinstance(repository, dict) else None
    )
    return ServerJson(
        name=reader.text(data, "name", "", required=True),
        version=reader.text(data, "version", "", required=True),
        description=reader.text(data, "description", "") or "",
        title=reader.text(data, "title", "") or "",
        website_url=reader.text(data, "websiteUrl", ""),
        repository_url=repo_url,
        packages=tuple(
            reader.package(p, f"packages[{i}].")
            for i, p in enumerate(reader.items(data.get("packages"), "packages"))
        ),
        remotes=tuple(
            reader.transport(r, f"remotes[{i}].")
            for i, r in enumerate(reader.items(data.get("remotes"), "remotes"))
        ),
        hermes_meta=hermes_meta(data.get("_meta")),
        status=reader.text(data, "status", ""),
        unknown=tuple(reader.unknown),
    )
