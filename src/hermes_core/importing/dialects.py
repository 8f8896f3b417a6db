"""One foreign server entry → a Hermes ``mcp_servers`` entry, and what could not be kept.

Every key of the foreign entry is either translated or listed in
:attr:`Translated.skipped` with the reason; nothing is dropped silently.  A
value that cannot be translated in ``command``, ``args``, ``url`` or ``cwd``
leaves the whole server out (running it half-translated would run something
else); in ``env``, ``headers`` or a setting only that key is left out.
The tables in ``docs/import.md`` describe the same rules per client.
"""

from __future__ import annotations

import math
import os
import re

from hermes_core.config.models import SERVER_NAME, kind_of
from hermes_core.importing.model import ForeignServer, InputSpec, Skip, Translated
from hermes_core.importing.variables import (
    DIALECTS,
    Untranslatable,
    VariableDialect,
    input_variable,
    to_hermes,
)

__all__ = ["hermes_name", "translate"]

_HTTP_TYPES = {"http", "streamable-http", "streamable_http", "streamablehttp"}
_NO_AUTO_APPROVE = "Hermes has no per-tool auto-approval; tools are offered as configured"
#: Keys each JSON client knows that Hermes deliberately does not carry over, and why.
_IGNORED: dict[str, dict[str, str]] = {
    "*": {
        "autoApprove": _NO_AUTO_APPROVE,
        "alwaysAllow": _NO_AUTO_APPROVE,
        "description": "Hermes keeps no description for a server",
    },
    "claude-code": {
        "headersHelper": "Hermes does not run a helper command to make headers; "
        "put the header in headers: with a ${VAR} reference",
    },
    "cursor": {
        "envFile": "Hermes reads variables from $HERMES_HOME/.env; copy them there",
    },
    "vscode": {
        "envFile": "Hermes reads variables from $HERMES_HOME/.env; copy them there",
        "dev": "VS Code's watch/debug mode has no Hermes equivalent",
        "sandboxEnabled": "Hermes does not sandbox stdio servers",
        "sandbox": "Hermes does not sandbox stdio servers",
        "gallery": "VS Code gallery metadata",
        "version": "VS Code gallery metadata",
    },
    "gemini": {
        "trust": "Hermes has no confirmation bypass for a server's tools",
        "audiences": "Hermes does not request Google ID tokens",
        "targetAudience": "Hermes does not request Google ID tokens",
        "targetServiceAccount": "Hermes does not impersonate service accounts",
        "extensionName": "Gemini extension metadata",
    },
}


class _Drop(Exception):
    """The whole server cannot be imported."""


def hermes_name(name: str) -> str:
    """*name* as a Hermes server name: characters outside ``[A-Za-z0-9_.-]`` become ``-``."""
    if SERVER_NAME.fullmatch(name):
        return name
    cleaned = re.sub(r"[^A-Za-z0-9_.-]", "-", name).strip("-._")
    cleaned = re.sub(r"-{2,}", "-", cleaned)[:64] or "server"
    return cleaned if SERVER_NAME.fullmatch(cleaned) else f"s{cleaned}"[:64]


def translate(server: ForeignServer) -> Translated:
    """*server* in Hermes' form, with everything left out listed."""
    result = Translated(source=server, name=hermes_name(server.name), entry=None)
    if result.name != server.name:
        result.notes.append(
            f"renamed from {server.name!r} (Hermes server names use A-Z a-z 0-9 _ . -)"
        )
    if not isinstance(server.raw, dict):
        result.skipped.append(
            Skip("", f"must be an object of settings (got {kind_of(server.raw)})")
        )
        return result
    builder = _Builder(server, result)
    try:
        if server.dialect == "codex":
            builder.codex()
        else:
            builder.json()
    except _Drop:
        result.entry = None
        return result
    if server.disabled_reason is not None and builder.entry.get("enabled") is not False:
        builder.entry["enabled"] = False
        result.notes.append(f"imported disabled: {server.disabled_reason}")
    result.entry = builder.entry
    return result


class _Builder:
    def __init__(self, server: ForeignServer, result: Translated) -> None:
        self.server = server
        raw = server.raw
        self.raw: dict[str, object] = raw if isinstance(raw, dict) else {}  # translate checks
        self.result = result
        self.variables: VariableDialect = DIALECTS[server.dialect]
        self.entry: dict[str, object] = {}
        self.inputs = {spec.id: spec for spec in server.inputs}
        self.done: set[str] = set()

    # ----------------------------------------------------------------- helpers

    def skip(self, key: str, reason: str) -> None:
        self.result.skipped.append(Skip(key, reason))

    def drop(self, key: str, reason: str) -> _Drop:
        self.skip(key, f"{reason}; the server is not imported")
        return _Drop()

    def _on_input(self, input_id: str) -> str:
        variable = input_variable(input_id)
        self.result.inputs[variable] = self.inputs.get(input_id, InputSpec(input_id))
        return variable

    def text(self, value: object, key: str) -> str:
        """A string setting in Hermes' form; raises :class:`Untranslatable`."""
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise Untranslatable(f"must be text (got {kind_of(value)})")
        return to_hermes(str(value), self.variables, self._on_input)

    def block(self, key: str) -> dict[str, str]:
        """The entry's ``env`` or ``headers`` table, added (empty) where it is not there yet."""
        found = self.entry.get(key)
        if isinstance(found, dict):
            return found
        block: dict[str, str] = {}
        self.entry[key] = block
        return block

    def take(self, key: str) -> object:
        self.done.add(key)
        return self.raw.get(key)

    def required_text(self, key: str) -> str | None:
        value = self.take(key)
        if value is None:
            return None
        try:
            return self.text(value, key)
        except Untranslatable as exc:
            raise self.drop(key, str(exc)) from None

    def mapping(self, key: str, target: str, *, stdio: bool = False) -> None:
        value = self.take(key)
        if value is None:
            return
        if not isinstance(value, dict):
            self.skip(key, f"must be an object (got {kind_of(value)})")
            return
        out: dict[str, str] = {}
        for name, item in value.items():
            if item is None:
                self.skip(f"{key}.{name}", "null (unset a variable) has no Hermes equivalent")
                continue
            try:
                out[str(name)] = self.text(item, f"{key}.{name}")
            except Untranslatable as exc:
                self.skip(f"{key}.{name}", str(exc))
        if out:
            self.block(target).update(out)

    def seconds(self, key: str, target: str, *, scale: float = 1.0) -> None:
        value = self.take(key)
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.skip(key, f"must be a number (got {kind_of(value)})")
            return
        seconds = float(value) * scale
        if not math.isfinite(seconds) or seconds <= 0:
            self.skip(key, "must be a positive number")
            return
        self.entry[target] = int(seconds) if seconds.is_integer() else seconds

    def names(self, key: str) -> list[str] | None:
        value = self.take(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.skip(key, f"must be a list of tool names (got {kind_of(value)})")
            return None
        return list(value)

    def tools(self, include: list[str] | None, exclude: list[str] | None, exclude_key: str) -> None:
        """Allow and deny lists where the deny list wins (Codex, Gemini), in Hermes' terms
        (where ``include`` wins): the denied names are taken out of ``include``."""
        tools: dict[str, object] = {}
        if include is not None:
            tools["include"] = [name for name in include if name not in (exclude or [])]
            if exclude:
                self.result.notes.append(
                    f"{exclude_key} applied to the allow list (Hermes' include wins over exclude)"
                )
        elif exclude:
            tools["exclude"] = exclude
        if tools:
            self.entry["tools"] = tools

    def cwd(self, key: str = "cwd") -> None:
        value = self.required_text(key)
        if value is None:
            return
        if not (value.startswith(("/", "~", "${")) or os.path.isabs(value)):
            value = os.path.normpath(os.path.join(self.server.base_dir, value))
            self.result.notes.append(f"{key}: relative folder taken from {self.server.base_dir}")
        self.entry["cwd"] = value

    def oauth(self, settings: dict[str, object]) -> None:
        self.entry["auth"] = "oauth"
        if settings:
            self.entry["oauth"] = settings
        self.result.notes.append(
            f"uses OAuth: log in once with `hermes mcp login {self.result.name}`"
        )

    def oauth_text(self, raw: dict[str, object], key: str, where: str) -> str | None:
        value = raw.get(key)
        if value is None:
            return None
        try:
            return self.text(value, f"{where}.{key}")
        except Untranslatable as exc:
            self.skip(f"{where}.{key}", str(exc))
            return None

    def leftovers(self) -> None:
        ignored = {**_IGNORED["*"], **_IGNORED.get(self.server.dialect, {})}
        for key in self.raw:
            if key in self.done:
                continue
            self.skip(key, ignored.get(key, "not a setting Hermes knows"))

    def login_hint(self) -> None:
        if "url" in self.entry and "auth" not in self.entry and not self.entry.get("headers"):
            self.result.notes.append(
                "remote server without credentials: if it asks for a login, add "
                f"`auth: oauth` and run `hermes mcp login {self.result.name}`"
            )

    # ----------------------------------------------------------------- JSON clients

    def json(self) -> None:
        dialect = self.server.dialect
        kind = self.take("type")
        if kind is not None and not isinstance(kind, str):
            raise self.drop("type", f"must be text (got {kind_of(kind)})")
        kind = kind.lower() if isinstance(kind, str) else None
        url_key = "url"
        if dialect == "gemini" and self.raw.get("httpUrl") is not None:
            url_key = "httpUrl"
        elif dialect == "windsurf" and self.raw.get("serverUrl") is not None:
            url_key = "serverUrl"
        url = self.required_text(url_key)
        for other in ("url", "httpUrl", "serverUrl"):
            if other != url_key and self.raw.get(other) is not None and other not in self.done:
                self.done.add(other)
                self.skip(other, f"ignored: {url_key} is the one used")
        command = self.required_text("command")
        if kind is not None and kind not in ("stdio", "sse", *_HTTP_TYPES):
            raise self.drop("type", f"the {kind!r} transport is not one Hermes supports")
        if kind == "stdio" or (kind is None and url is None):
            if command is None:
                raise self.drop("command", "a stdio server needs a command")
            self.entry["command"] = command
            if url is not None:
                self.skip(url_key, "ignored: the entry is a stdio server")
        else:
            if url is None:
                raise self.drop("url", "a remote server needs a url")
            self.entry["url"] = url
            sse = kind == "sse" or (dialect == "gemini" and url_key == "url" and kind is None)
            if sse:
                self.entry["transport"] = "sse"
            if command is not None:
                self.skip("command", "ignored: the entry is a remote server")
        self.args()
        self.mapping("env", "env")
        if "cwd" in self.raw:
            self.cwd()
        self.mapping("headers", "headers")
        disabled = self.take("disabled")
        if disabled is True:
            self.entry["enabled"] = False
        elif disabled not in (None, False):
            self.skip("disabled", f"must be true or false (got {kind_of(disabled)})")
        if dialect == "gemini":
            self.gemini()
        elif dialect == "windsurf":
            exclude = self.names("disabledTools")
            self.tools(None, exclude, "disabledTools")
        elif dialect == "claude-code":
            self.claude_oauth()
        elif dialect == "cursor":
            self.cursor_auth()
        self.leftovers()
        self.login_hint()

    def args(self) -> None:
        value = self.take("args")
        if value is None:
            return
        if not isinstance(value, list):
            raise self.drop("args", f"must be a list (got {kind_of(value)})")
        items = []
        for index, item in enumerate(value):
            try:
                items.append(self.text(item, f"args[{index}]"))
            except Untranslatable as exc:
                raise self.drop(f"args[{index}]", str(exc)) from None
        if items:
            self.entry["args"] = items

    def claude_oauth(self) -> None:
        raw = self.take("oauth")
        if raw is None:
            return
        if not isinstance(raw, dict):
            self.skip("oauth", f"must be an object (got {kind_of(raw)})")
            return
        settings: dict[str, object] = {}
        client_id = self.oauth_text(raw, "clientId", "oauth")
        if client_id is not None:
            settings["client_id"] = client_id
        port = raw.get("callbackPort")
        if isinstance(port, int) and not isinstance(port, bool):
            settings["redirect_port"] = port
        elif port is not None:
            self.skip("oauth.callbackPort", f"must be a port number (got {kind_of(port)})")
        for key in raw:
            if key not in ("clientId", "callbackPort"):
                self.skip(f"oauth.{key}", "not an OAuth setting Hermes knows")
        self.oauth(settings)

    def cursor_auth(self) -> None:
        raw = self.take("auth")
        if raw is None:
            return
        if not isinstance(raw, dict):
            self.skip("auth", f"must be an object (got {kind_of(raw)})")
            return
        settings: dict[str, object] = {}
        for key, target in (("CLIENT_ID", "client_id"), ("CLIENT_SECRET", "client_secret")):
            value = self.oauth_text(raw, key, "auth")
            if value is not None:
                settings[target] = value
        self._scopes(raw.get("scopes"), "auth.scopes", settings)
        for key in raw:
            if key not in ("CLIENT_ID", "CLIENT_SECRET", "scopes"):
                self.skip(f"auth.{key}", "not an OAuth setting Hermes knows")
        self.oauth(settings)

    def _scopes(self, scopes: object, key: str, settings: dict[str, object]) -> None:
        if scopes is None:
            return
        if isinstance(scopes, list) and all(isinstance(s, str) for s in scopes):
            if scopes:
                settings["scope"] = " ".join(scopes)
        else:
            self.skip(key, f"must be a list of scopes (got {kind_of(scopes)})")

    def gemini(self) -> None:
        self.seconds("timeout", "timeout", scale=0.001)
        include = self.names("includeTools")
        exclude = self.names("excludeTools")
        self.tools(include, exclude, "excludeTools")
        provider = self.take("authProviderType")
        raw = self.take("oauth")
        wants_oauth = provider == "dynamic_discovery"
        if provider not in (None, "dynamic_discovery"):
            self.skip(
                "authProviderType", f"{provider!r} (Google credentials) has no Hermes equivalent"
            )
        if raw is not None and not isinstance(raw, dict):
            self.skip("oauth", f"must be an object (got {kind_of(raw)})")
            raw = None
        settings: dict[str, object] = {}
        if raw is not None and provider not in (None, "dynamic_discovery"):
            self.skip("oauth", f"belongs to authProviderType {provider!r}")
            raw = None
        if raw is not None and raw.get("enabled", True) is not False:
            wants_oauth = True
            for key, target in (
                ("clientId", "client_id"),
                ("clientSecret", "client_secret"),
                ("redirectUri", "redirect_uri"),
            ):
                value = self.oauth_text(raw, key, "oauth")
                if value is not None:
                    settings[target] = value
            self._scopes(raw.get("scopes"), "oauth.scopes", settings)
            for key in raw:
                if key in ("authorizationUrl", "tokenUrl"):
                    self.skip(
                        f"oauth.{key}",
                        "Hermes discovers the authorization server from the MCP server",
                    )
                elif key not in ("enabled", "clientId", "clientSecret", "redirectUri", "scopes"):
                    self.skip(f"oauth.{key}", "not an OAuth setting Hermes knows")
        if wants_oauth:
            self.oauth(settings)

    # ----------------------------------------------------------------- Codex (TOML)

    def codex(self) -> None:
        url = self.required_text("url")
        command = self.required_text("command")
        if url is not None:
            self.entry["url"] = url
            if command is not None:
                self.skip("command", "ignored: the entry is a remote server")
        elif command is not None:
            self.entry["command"] = command
        else:
            raise self.drop("command", "needs a command (stdio) or a url (streamable HTTP)")
        self.args()
        self.mapping("env", "env")
        env_vars = self.take("env_vars")
        if env_vars is not None:
            self._env_vars(env_vars)
        if "cwd" in self.raw:
            self.cwd()
        self.mapping("http_headers", "headers")
        self._env_headers()
        bearer = self.take("bearer_token_env_var")
        if isinstance(bearer, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", bearer):
            self.block("headers")["Authorization"] = "Bearer ${" + bearer + "}"
        elif bearer is not None:
            self.skip("bearer_token_env_var", "must be the name of an environment variable")
        self.seconds("startup_timeout_sec", "connect_timeout")
        self.seconds("startup_timeout_ms", "connect_timeout", scale=0.001)
        self.seconds("tool_timeout_sec", "timeout")
        enabled = self.take("enabled")
        if enabled is False:
            self.entry["enabled"] = False
        elif enabled not in (None, True):
            self.skip("enabled", f"must be true or false (got {kind_of(enabled)})")
        required = self.take("required")
        if required is True:
            self.skip(
                "required",
                "Hermes never refuses to start because one server failed; "
                "`hermes mcp status` exits 1 when an enabled server is down",
            )
        include = self.names("enabled_tools")
        exclude = self.names("disabled_tools")
        self.tools(include, exclude, "disabled_tools")
        scopes = self.take("scopes")
        if scopes is not None:
            settings: dict[str, object] = {}
            self._scopes(scopes, "scopes", settings)
            self.oauth(settings)
        if self.take("oauth_resource") is not None:
            self.skip("oauth_resource", "Hermes sends the server's URL as the resource indicator")
        self.leftovers()
        self.login_hint()

    def _env_vars(self, value: object) -> None:
        if not isinstance(value, list):
            self.skip("env_vars", f"must be a list of variable names (got {kind_of(value)})")
            return
        env = self.block("env")
        for index, item in enumerate(value):
            name = item.get("name") if isinstance(item, dict) else item
            if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                self.skip(f"env_vars[{index}]", "must be the name of an environment variable")
                continue
            # Passed through when set, empty when not (Codex leaves it out then).
            env.setdefault(name, "${" + name + ":-}")
        if not env:
            del self.entry["env"]

    def _env_headers(self) -> None:
        value = self.take("env_http_headers")
        if value is None:
            return
        if not isinstance(value, dict):
            self.skip("env_http_headers", f"must be a table (got {kind_of(value)})")
            return
        headers = self.block("headers")
        for header, variable in value.items():
            if isinstance(variable, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", variable):
                headers[str(header)] = "${" + variable + "}"
            else:
                self.skip(f"env_http_headers.{header}", "must name an environment variable")
        if not headers:
            del self.entry["headers"]
