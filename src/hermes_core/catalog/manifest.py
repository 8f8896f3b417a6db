"""Catalog manifests: the versioned schema of one vetted MCP server, and its parser.

A manifest is a YAML mapping (reference: ``docs/catalog.md``).  It is read with
ruamel.yaml so every problem names the file and line of the offending key:
``memory.yaml:7: transport.args: must be a list``.  Unknown keys are errors (a
typo must never change what gets installed).  A ``manifest_version`` newer
than :data:`MANIFEST_VERSION` is not an error: :func:`parse_manifest` returns a
:class:`FutureManifest` so the catalog can show it with a warning instead of
hiding it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails
from ruamel.yaml.comments import CommentedMap

from hermes_core.yaml_input import YamlInputError, load_yaml
from hermes_core.yaml_lines import line_of, plain
from hermes_platform.declaration import Declaration, DeclarationError, parse_declaration

__all__ = [
    "MANIFEST_VERSION",
    "FutureManifest",
    "Manifest",
    "ManifestError",
    "parse_manifest",
]

MANIFEST_VERSION = 1
"""The newest ``manifest_version`` this Hermes reads."""

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PLUGIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
INSTALL_DIR = "${INSTALL_DIR}"
_MAX_BYTES = 256 * 1024


class ManifestError(ValueError):
    """A manifest that cannot be used: ``<file>:<line>: <key>: <what is wrong>``."""

    def __init__(self, path: str, line: int | None, key: str, reason: str) -> None:
        location = f"{path}:{line}" if line else path
        super().__init__(": ".join(part for part in (location, key, reason) if part))
        self.path, self.line, self.key, self.reason = path, line, key, reason


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)


def _texts(value: object, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"must be a list of non-empty {what}")
    return [v.strip() for v in value]


class Source(_Strict):
    """Where the server's code comes from: cloned into ``$HERMES_HOME/mcp-installs/<name>``."""

    git: str
    ref: str | None = None
    """A tag, a branch or a full commit SHA; the remote's default branch when absent."""

    @field_validator("git")
    @classmethod
    def _url(cls, value: str) -> str:
        if not re.match(r"(https|http|ssh|git|file)://", value) and not re.match(
            r"[\w.-]+@[\w.-]+:", value
        ):
            raise ValueError("must be a git URL (https://, ssh://, git@host:path or file://)")
        return value

    @field_validator("ref")
    @classmethod
    def _ref(cls, value: str | None) -> str | None:
        if value is not None and (value.startswith("-") or not value.strip()):
            raise ValueError("must be a tag, branch or commit")
        return value


class Install(_Strict):
    bootstrap: list[str] = Field(default_factory=list)
    """Shell commands run one after the other in ``${INSTALL_DIR}``."""

    @field_validator("bootstrap", mode="before")
    @classmethod
    def _commands(cls, value: object) -> list[str]:
        return _texts(value, "commands")


class Transport(_Strict):
    """``command``/``args``/``env`` (stdio), ``url``/``headers`` (HTTP), or ``plugin`` (a
    plugin's transport, by its registered name) with its ``settings``."""

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    plugin: str | None = None
    settings: dict[str, object] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_kind(self) -> Transport:
        chosen = [k for k in ("command", "url", "plugin") if getattr(self, k) is not None]
        if len(chosen) != 1:
            raise ValueError(
                "needs one of command (stdio), url (HTTP) or plugin (a plugin's transport)"
            )
        if self.plugin is not None:
            if self.args or self.env or self.headers:
                raise ValueError("a plugin transport takes settings, not args, env or headers")
            if _PLUGIN_NAME.fullmatch(self.plugin) is None:
                raise ValueError("plugin must be a transport's name (letters, digits, '_' or '-')")
            return self
        if self.settings:
            raise ValueError("settings are for a plugin transport (plugin)")
        if self.url is not None and (self.args or self.env):
            raise ValueError("args and env are for stdio servers (command)")
        if self.command is not None and self.headers:
            raise ValueError("headers are for HTTP servers (url)")
        if self.url is not None and not self.url.startswith(("https://", "http://", "${")):
            raise ValueError("url must start with https:// or http://")
        return self

    @property
    def kind(self) -> Literal["stdio", "http", "plugin"]:
        if self.plugin is not None:
            return "plugin"
        return "stdio" if self.command is not None else "http"

    def texts(self) -> list[str]:
        """Every string ``${…}`` may appear in."""
        return [
            self.command or "",
            self.url or "",
            *self.args,
            *self.env.values(),
            *self.headers.values(),
            *(v for v in self.settings.values() if isinstance(v, str)),
        ]


class AuthKey(_Strict):
    """A value asked for at install time and saved to ``$HERMES_HOME/.env``."""

    name: str
    prompt: str | None = None
    secret: bool = True
    required: bool = True
    default: str | None = None

    @field_validator("name")
    @classmethod
    def _env_name(cls, value: str) -> str:
        if not _ENV_NAME.fullmatch(value):
            raise ValueError("must be an environment variable name (letters, digits, '_')")
        return value


class SignIn(_Strict):
    """A third-party provider's sign-in, done outside Hermes: install prints the hint."""

    provider: str
    run: str
    """The command the user runs to sign in (shown, never run by Hermes)."""


class Auth(_Strict):
    keys: list[AuthKey] = Field(default_factory=list)
    oauth: dict[str, object] | None = None
    """Remote MCP OAuth: written as ``auth: oauth`` plus these ``oauth:`` settings."""
    sign_in: SignIn | None = None
    provider: str | None = None
    """A plugin's auth provider: written as ``auth: <provider>`` in the server entry."""
    settings: dict[str, object] | None = None
    """The provider's settings: written under ``<provider>:`` (``${KEY}`` for asked keys)."""

    @field_validator("provider")
    @classmethod
    def _provider(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not NAME.fullmatch(value):
            raise ValueError("must be an auth provider's name (letters, digits, '_' or '-')")
        if value in ("oauth", "headers"):
            raise ValueError(f"{value} is built in: use auth.oauth (or transport.headers)")
        return value

    @model_validator(mode="after")
    def _one_scheme(self) -> Auth:
        if self.provider is not None and self.oauth is not None:
            raise ValueError("give auth.provider or auth.oauth, not both")
        if self.settings is not None and self.provider is None:
            raise ValueError("auth.settings are the settings of auth.provider, which is not given")
        return self

    def texts(self) -> list[str]:
        """Every string of the provider's settings (where ``${KEY}`` may appear)."""
        found: list[str] = []

        def walk(value: object) -> None:
            if isinstance(value, str):
                found.append(value)
            elif isinstance(value, dict):
                for item in value.values():
                    walk(item)
            elif isinstance(value, list):
                for item in value:
                    walk(item)

        walk(self.settings or {})
        return found


class Tools(_Strict):
    default_enabled: list[str] | None = None
    default_excluded: list[str] | None = None

    @field_validator("default_enabled", "default_excluded", mode="before")
    @classmethod
    def _names(cls, value: object) -> list[str] | None:
        return None if value is None else _texts(value, "tool names or globs")

    @model_validator(mode="after")
    def _exclusive(self) -> Tools:
        if self.default_enabled is not None and self.default_excluded is not None:
            raise ValueError("give default_enabled or default_excluded, not both")
        return self


class Suggest(_Strict):
    keywords: list[str] = Field(default_factory=list)
    hosts: list[str] = Field(default_factory=list)

    @field_validator("keywords", mode="before")
    @classmethod
    def _keywords(cls, value: object) -> list[str]:
        return [v.lower() for v in _texts(value, "words")]

    @field_validator("hosts", mode="before")
    @classmethod
    def _hosts(cls, value: object) -> list[str]:
        return [v.lower().lstrip(".") for v in _texts(value, "host names")]


class Manifest(_Strict):
    """One catalog entry (``manifest_version: 1``)."""

    manifest_version: Literal[1]
    name: str
    description: str
    homepage: str | None = None
    source: Source | None = None
    install: Install = Field(default_factory=Install)
    transport: Transport
    auth: Auth = Field(default_factory=Auth)
    tools: Tools = Field(default_factory=Tools)
    suggest: Suggest = Field(default_factory=Suggest)
    notes: str | None = None
    app: dict[str, object] | None = None
    requires: dict[str, object] | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not NAME.fullmatch(value):
            raise ValueError("must be letters, digits, '_' or '-' (at most 64), starting with one")
        return value

    @field_validator("description")
    @classmethod
    def _description(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value.strip()

    @field_validator("auth", mode="before")
    @classmethod
    def _auth_shorthand(cls, value: object) -> object:
        if value == "oauth":
            return {"oauth": {}}
        if isinstance(value, dict) and value.get("oauth") is True:
            return {**value, "oauth": {}}
        return value

    @model_validator(mode="after")
    def _install_dir(self) -> Manifest:
        if any(INSTALL_DIR in text for text in self.transport.texts()) and not self.installs:
            raise ValueError(
                "transport uses ${INSTALL_DIR} but the entry has no source or install.bootstrap"
            )
        used = " ".join([*self.transport.texts(), *self.auth.texts()])
        for key in self.auth.keys:
            if "${" + key.name + "}" not in used:
                raise ValueError(
                    f"auth key {key.name} is not used by the transport (a stdio server sees "
                    f"only its env: reference it as ${{{key.name}}} in transport.env, args or "
                    "url, or in auth.settings)"
                )
        return self

    @property
    def installs(self) -> bool:
        """Whether installing creates ``$HERMES_HOME/mcp-installs/<name>``."""
        return self.source is not None or bool(self.install.bootstrap)


@dataclass(frozen=True)
class FutureManifest:
    """A manifest written for a newer Hermes: shown with a warning, never installed."""

    name: str
    manifest_version: int
    description: str = ""


@dataclass(frozen=True)
class ParsedManifest:
    """A valid manifest, its app declaration (parsed) and where each key stands."""

    manifest: Manifest
    declaration: Declaration | None
    path: str


def _load_tree(text: str, path: str) -> object:
    try:
        return load_yaml(text)
    except YamlInputError as exc:
        raise ManifestError(path, exc.line, "", exc.problem) from None


def _key_path(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part not in ("function-after[_one_kind()]",):
            text += f".{part}" if text else str(part)
    return text


def _valid_keys(loc: tuple[int | str, ...]) -> str:
    models: dict[tuple[str, ...], type[BaseModel]] = {
        (): Manifest,
        ("source",): Source,
        ("install",): Install,
        ("transport",): Transport,
        ("auth",): Auth,
        ("auth", "keys"): AuthKey,
        ("auth", "sign_in"): SignIn,
        ("tools",): Tools,
        ("suggest",): Suggest,
    }
    parent = tuple(str(p) for p in loc[:-1] if isinstance(p, str))
    model = models.get(parent)
    return ", ".join(model.model_fields) if model is not None else ""


def _reason(error: ErrorDetails, model: type[BaseModel]) -> str:
    kind = error.get("type", "")
    if kind == "extra_forbidden":
        valid = _valid_keys(tuple(error.get("loc", ())))
        return "is not a manifest key" + (f" (valid here: {valid})" if valid else "")
    if kind == "missing":
        return "is required"
    if kind == "value_error":
        return str(error.get("ctx", {}).get("error", error.get("msg", "is not valid")))
    if kind.startswith("string"):
        return "must be text"
    if kind.startswith("bool"):
        return "must be true or false"
    if kind.startswith(("dict", "model")):
        return "must be a mapping"
    if kind.startswith("list"):
        return "must be a list"
    if kind == "literal_error":
        return f"must be one of {error.get('ctx', {}).get('expected', '')}"
    return str(error.get("msg", "is not valid"))


def parse_manifest(text: str, path: str) -> ParsedManifest | FutureManifest:
    """Parse a manifest's text; *path* labels every error (:class:`ManifestError`)."""
    if len(text) > _MAX_BYTES:
        raise ManifestError(path, None, "", f"the manifest is larger than {_MAX_BYTES} bytes")
    tree = _load_tree(text, path)
    if not isinstance(tree, CommentedMap):
        raise ManifestError(path, 1, "", "a manifest is a mapping (manifest_version, name, …)")
    data = plain(tree)
    version = data.get("manifest_version")
    if version is None:
        raise ManifestError(path, None, "manifest_version", "is required")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ManifestError(
            path,
            line_of(tree, "manifest_version"),
            "manifest_version",
            f"must be a whole number (this Hermes reads {MANIFEST_VERSION})",
        )
    if version > MANIFEST_VERSION:
        name = data.get("name")
        if not isinstance(name, str) or not NAME.fullmatch(name):
            raise ManifestError(path, line_of(tree, "name"), "name", "is required")
        description = data.get("description")
        return FutureManifest(
            name, version, description.strip() if isinstance(description, str) else ""
        )
    try:
        manifest = Manifest.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = _key_path(tuple(first["loc"]))
        line = line_of(tree, key) if key else None
        raise ManifestError(path, line, key, _reason(first, Manifest)) from None
    decl: Declaration | None = None
    if manifest.app is not None or manifest.requires is not None:
        try:
            decl = parse_declaration(
                manifest.name, raw_app=manifest.app, raw_requires=manifest.requires, where=path
            )
        except DeclarationError as exc:
            raise ManifestError(path, line_of(tree, exc.key), exc.key, exc.reason) from None
    return ParsedManifest(manifest, decl, path)
