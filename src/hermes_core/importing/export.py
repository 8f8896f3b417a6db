"""Hermes' servers in another client's dialect: ``hermes mcp export --format …``.

Values are never printed: a literal secret (by its key, as on import) becomes a
variable reference the reader must set; references stay references.  What a
client cannot express is left out and listed, per server, on stderr.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from hermes_core.config.models import ServerConfig
from hermes_core.config.secret_lift import is_literal_secret, lift_args, lift_urls
from hermes_core.importing.model import EXPORT_FORMATS
from hermes_core.importing.names import EXPORT_ALIASES
from hermes_core.importing.variables import Untranslatable, from_hermes, whole_reference

__all__ = ["FORMATS", "Exported", "export_servers"]

FORMATS = EXPORT_FORMATS
_BEARER = re.compile(r"(?i)bearer (\$\{[^}]*\})")
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.-]+")
#: Settings with no counterpart in any of the formats.
_NOT_EXPORTED = (
    "client_cert",
    "client_key",
    "identity_header",
    "idle_timeout_seconds",
    "max_lifetime_seconds",
    "supports_parallel_tool_calls",
    "sampling",
    "elicitation",
    "roots",
)


@dataclass
class Exported:
    text: str
    warnings: list[str] = field(default_factory=list)
    variables: list[str] = field(default_factory=list)
    """Variables the exported file refers to in place of a literal secret."""


class _Leave(Exception):
    pass


def export_servers(
    servers: Mapping[str, ServerConfig], fmt: str, *, home: str | None = None
) -> Exported:
    """*servers* written for client *fmt* (one of :data:`FORMATS`, or an old alias)."""
    fmt = EXPORT_ALIASES.get(fmt, fmt)
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    result = Exported("")
    inputs: list[dict[str, object]] = []
    out: dict[str, object] = {}
    for name, cfg in servers.items():
        writer = _Writer(name, cfg, fmt, result, home or os.path.expanduser("~"))
        try:
            entry = writer.entry()
        except _Leave:
            continue
        out[name] = entry
        inputs.extend(writer.inputs)
    if fmt == "codex":
        import tomli_w

        result.text = tomli_w.dumps({"mcp_servers": out}) if out else ""
    elif fmt == "vscode":
        document: dict[str, object] = {"servers": out}
        if inputs:
            document["inputs"] = inputs
        result.text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    else:
        result.text = json.dumps({"mcpServers": out}, indent=2, ensure_ascii=False) + "\n"
    return result


class _Writer:
    def __init__(self, name: str, cfg: ServerConfig, fmt: str, result: Exported, home: str) -> None:
        self.name = name
        self.cfg = cfg
        self.fmt = fmt
        self.result = result
        self.home = home
        self.inputs: list[dict[str, object]] = []
        self.set = cfg.model_fields_set
        self.claimed: dict[str, str] = {}

    def warn(self, key: str, reason: str) -> None:
        where = f"{self.name}.{key}" if key else self.name
        self.result.warnings.append(f"{where}: {reason}")

    def leave(self, key: str, reason: str) -> _Leave:
        self.warn(key, f"{reason}; the server is left out")
        return _Leave()

    def _secret(self, key: str, value: str) -> str:
        """A literal secret replaced by a reference (the value itself is never written)."""
        variable = key if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) else ""
        variable = (
            variable or re.sub(r"[^A-Za-z0-9]+", "_", f"{self.name}_{key}").strip("_").upper()
        )
        if variable not in self.result.variables:
            self.result.variables.append(variable)
        return "${" + variable + "}"

    def _claim(self, candidates: list[str], value: str) -> str:
        """A literal secret of ``args``/``url`` as a reference (the value is never written);
        two different values never share a variable."""
        base = candidates[-1]
        variable, number = base, 1
        while self.claimed.get(variable, value) != value:
            number += 1
            variable = f"{base}_{number}"
        self.claimed[variable] = value
        if variable not in self.result.variables:
            self.result.variables.append(variable)
        return "${" + variable + "}"

    def _hide(self, key: str, value: str, *, header: bool = False) -> str:
        if not is_literal_secret(key, value):
            return value
        if header and key.lower() == "authorization" and " " in value:
            scheme = value.split(" ", 1)[0]
            token_var = re.sub(r"[^A-Za-z0-9]+", "_", f"{self.name}_token").upper()
            return f"{scheme} {self._secret(token_var, value)}"
        return self._secret(key if not header else f"{self.name}_{key}", value)

    def text(self, value: str, key: str) -> str:
        if self.fmt not in ("cursor", "vscode"):
            # Machine constants the client has no variable for.
            value = value.replace("${userHome}", self.home)
            value = value.replace("${pathSeparator}", os.sep).replace("${/}", os.sep)
        try:
            text = from_hermes(value, self.fmt)
        except Untranslatable as exc:
            raise self.leave(key, str(exc)) from None
        if self.fmt == "vscode":
            text = self._as_inputs(text)
        return text

    def _as_inputs(self, text: str) -> str:
        def swap(match: re.Match[str]) -> str:
            variable = match.group(1)
            if variable not in self.result.variables:
                return match.group(0)
            input_id = variable.lower().replace("_", "-")
            if all(item["id"] != input_id for item in self.inputs):
                self.inputs.append(
                    {
                        "type": "promptString",
                        "id": input_id,
                        "description": f"{variable} for {self.name}",
                        "password": True,
                    }
                )
            return "${input:" + input_id + "}"

        return re.sub(r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}", swap, text)

    def soft(self, value: str, key: str) -> str | None:
        try:
            return self.text(value, key)
        except _Leave:
            self.result.warnings[-1] = self.result.warnings[-1].replace(
                "; the server is left out", "; left out"
            )
            return None

    # ----------------------------------------------------------------- the entry

    def entry(self) -> dict[str, object]:
        cfg = self.cfg
        entry: dict[str, object] = {}
        if not cfg.enabled and self.fmt != "codex":
            raise self.leave("enabled", f"disabled, and {self.fmt} has no switch for it")
        if cfg.transport not in ("stdio", "streamable_http", "sse"):
            raise self.leave(
                "transport", f"{cfg.transport} is a plugin's transport, which {self.fmt} cannot use"
            )
        stdio = cfg.transport == "stdio"
        if self.fmt == "claude-desktop" and not stdio:
            raise self.leave(
                "url",
                "Claude Desktop's file holds stdio servers only (add a remote server as a "
                "connector in its settings)",
            )
        if self.fmt == "windsurf" and cfg.transport == "sse":
            raise self.leave("transport", "Windsurf's serverUrl speaks streamable HTTP, not SSE")
        if self.fmt in ("claude-code", "vscode"):
            entry["type"] = "stdio" if stdio else ("sse" if cfg.transport == "sse" else "http")
        elif self.fmt == "cursor" and cfg.transport == "sse":
            entry["type"] = "sse"
        elif self.fmt == "codex" and cfg.transport == "sse":
            raise self.leave("transport", "Codex speaks streamable HTTP only, not SSE")
        if stdio:
            entry["command"] = self.text(cfg.command or "", "command")
            if cfg.args:
                args = lift_args(self.name, list(cfg.args), self._claim)
                entry["args"] = [self.text(a, f"args[{i}]") for i, a in enumerate(args)]
            self.env(entry)
            if cfg.cwd is not None:
                if self.fmt in ("codex", "vscode", "gemini"):
                    entry["cwd"] = self.text(cfg.cwd, "cwd")
                else:
                    raise self.leave("cwd", f"{self.fmt} has no working-folder setting")
        else:
            entry[self._url_key()] = self.text(
                lift_urls(self.name, cfg.url or "", self._claim), "url"
            )
            self.headers(entry)
        self.auth(entry)
        self.tools(entry)
        self.timeouts(entry)
        if self.fmt == "codex" and not cfg.enabled:
            entry["enabled"] = False
        for key in _NOT_EXPORTED:
            if key in self.set and getattr(cfg, key) not in (None, False, 0.0, {}, []):
                self.warn(key, f"{self.fmt} has no equivalent; left out")
        return entry

    def _url_key(self) -> str:
        if self.fmt == "gemini":  # its `url` is SSE, `httpUrl` streamable HTTP
            return "url" if self.cfg.transport == "sse" else "httpUrl"
        return "serverUrl" if self.fmt == "windsurf" else "url"

    def env(self, entry: dict[str, object]) -> None:
        env: dict[str, str] = {}
        passthrough: list[str] = []
        for key, raw in self.cfg.env.items():
            value = self._hide(key, raw)
            if self.fmt == "codex":
                reference = whole_reference(value)
                if reference is not None and reference.name == key and not reference.default:
                    passthrough.append(key)
                    continue
                if "${" in value.replace("$${", ""):
                    self.warn(
                        f"env.{key}",
                        "Codex env values are literal (only env_vars pass a "
                        "variable through, under its own name); left out",
                    )
                    continue
            text = self.soft(value, f"env.{key}")
            if text is not None:
                env[key] = text
        if env:
            entry["env"] = env
        if passthrough:
            entry["env_vars"] = passthrough

    def headers(self, entry: dict[str, object]) -> None:
        headers: dict[str, str] = {}
        from_env: dict[str, str] = {}
        for key, raw in self.cfg.headers.items():
            value = self._hide(key, raw, header=True)
            if self.fmt == "codex":
                bearer = _BEARER.fullmatch(value) if key.lower() == "authorization" else None
                reference = whole_reference(bearer.group(1) if bearer else value)
                if reference is not None and not reference.default:
                    if bearer:
                        entry["bearer_token_env_var"] = reference.name
                    else:
                        from_env[key] = reference.name
                    continue
                if "${" in value.replace("$${", ""):
                    self.warn(
                        f"headers.{key}",
                        "Codex takes a header from one variable or literally, not mixed; left out",
                    )
                    continue
            text = self.soft(value, f"headers.{key}")
            if text is not None:
                headers[key] = text
        if headers:
            entry["http_headers" if self.fmt == "codex" else "headers"] = headers
        if from_env:
            entry["env_http_headers"] = from_env

    def auth(self, entry: dict[str, object]) -> None:
        cfg = self.cfg
        if (cfg.auth or "").lower() != "oauth":
            if cfg.auth:
                self.warn("auth", f"the {cfg.auth!r} scheme is Hermes' own; left out")
            return
        oauth = cfg.oauth.written() if cfg.oauth is not None else {}
        scope = oauth.pop("scope", None) or oauth.pop("scopes", None)
        scopes = (
            scope.split() if isinstance(scope, str) else scope if isinstance(scope, list) else []
        )
        client_id = oauth.pop("client_id", None)
        secret = oauth.pop("client_secret", None)
        port = oauth.pop("redirect_port", None)
        if self.fmt == "claude-code":
            block: dict[str, object] = {}
            if client_id:
                block["clientId"] = self.text(str(client_id), "oauth.client_id")
            if port:
                block["callbackPort"] = port
            if block:
                entry["oauth"] = block
            if secret:
                self.warn("oauth.client_secret", "Claude Code asks for it at login; left out")
            if scopes:
                self.warn("oauth.scope", "Claude Code has no scope setting; left out")
        elif self.fmt == "cursor":
            block = {}
            if client_id:
                block["CLIENT_ID"] = self.text(str(client_id), "oauth.client_id")
            if secret:
                block["CLIENT_SECRET"] = self.text(
                    self._hide("client_secret", str(secret)), "oauth.client_secret"
                )
            if scopes:
                block["scopes"] = list(scopes)
            if block:
                entry["auth"] = block
        elif self.fmt == "codex":
            if scopes:
                entry["scopes"] = list(scopes)
            for key, value in (("client_id", client_id), ("client_secret", secret)):
                if value:
                    self.warn(f"oauth.{key}", "Codex registers its own client; left out")
        elif self.fmt == "gemini":
            block = {"enabled": True}
            if client_id:
                block["clientId"] = self.text(str(client_id), "oauth.client_id")
            if secret:
                block["clientSecret"] = self.text(
                    self._hide("client_secret", str(secret)), "oauth.client_secret"
                )
            if scopes:
                block["scopes"] = list(scopes)
            entry["oauth"] = block
        else:
            self.warn("oauth", f"{self.fmt} runs the OAuth login itself; settings left out")
        for key in oauth:
            self.warn(f"oauth.{key}", f"{self.fmt} has no equivalent; left out")

    def tools(self, entry: dict[str, object]) -> None:
        tools = self.cfg.tools
        if tools.include is None and not tools.exclude:
            return
        if self.fmt == "windsurf" and tools.include is None:
            self._names(entry, "exclude", "disabledTools", list(tools.exclude or []))
            return
        if self.fmt not in ("codex", "gemini"):
            self.warn(
                "tools",
                f"{self.fmt} has no per-server tool filter; left out: every tool of this "
                "server will be offered there",
            )
            return
        gemini = self.fmt == "gemini"
        for key, target, names in (
            ("include", "includeTools" if gemini else "enabled_tools", tools.include),
            ("exclude", "excludeTools" if gemini else "disabled_tools", tools.exclude),
        ):
            if names is None or (key == "exclude" and not names):
                continue
            if key == "exclude" and tools.include is not None:
                self.warn("tools.exclude", "include wins in Hermes; left out")
                continue
            self._names(entry, key, target, names)

    def _names(self, entry: dict[str, object], key: str, target: str, names: list[str]) -> None:
        plain = [n for n in names if _PLAIN_NAME.fullmatch(n)]
        if len(plain) != len(names):
            effect = (
                "fewer tools are allowed there"
                if key == "include"
                else "tools they match will be offered there"
            )
            self.warn(
                f"tools.{key}",
                f"{self.fmt} takes exact tool names, not globs; globs left out: {effect}",
            )
        entry[target] = plain

    def timeouts(self, entry: dict[str, object]) -> None:
        for key, target in (
            ("connect_timeout", "startup_timeout_sec"),
            ("timeout", "tool_timeout_sec"),
        ):
            if key not in self.set:
                continue
            value = getattr(self.cfg, key)
            if self.fmt == "codex":
                entry[target] = int(value) if float(value).is_integer() else value
            elif self.fmt == "gemini" and key == "timeout":  # milliseconds
                entry["timeout"] = round(float(value) * 1000)
            else:
                self.warn(key, f"{self.fmt} has no per-server {key}; left out")
