"""One rule for secrets in server entries: ``hermes mcp add``, ``import``, ``install`` and
``export`` all move them out of the entry the same way.

A value *looks secret* when it is written out literally (no ``${…}``) and

* its key says so: an ``env`` or ``headers`` key, a flag in ``args`` (``--api-key X``,
  ``--token=X``, ``PASSWORD=X``) or a URL query parameter (``?api_key=X``) named like a
  credential (``…TOKEN``, ``…SECRET``, ``…PASSWORD``, ``…API_KEY``, ``…_KEY``, ``Authorization``,
  ``Cookie``, ``X-Custom-Auth``, OAuth ``client_secret`` …); or
* it is the password of a URL (``https://user:pw@host``), in ``url`` or inside an argument; or
* its shape says so wherever it is: ``Bearer …``/``Basic …``/``Token …``, or a well-known token
  prefix (``ghp_``, ``github_pat_``, ``sk-``, ``xoxb-``, ``glpat-``, ``AKIA…`` …).

:func:`lift_secrets` replaces each such value in the entry by ``${VAR}`` (the scheme of an
``Authorization`` value is kept: ``Bearer ${SERVER_TOKEN}``) and returns the values by
variable; the caller stores them in ``$HERMES_HOME/.env`` (mode 0600, :func:`store_secrets`)
before ``config.yaml`` is written, so the file never holds the value, an export prints the
reference, and what a dry run shows is what is written.  The variable is the key itself when
it is a valid name (``GITHUB_TOKEN``), else ``<SERVER>_<KEY>``; a name that already holds a
different value in the environment or ``.env`` gets ``_2``, ``_3`` … (see :class:`VariableNames`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeGuard, TypeVar

from hermes_core.config.dotenv_file import update_dotenv
from hermes_core.config.interpolate import parse_dotenv
from hermes_core.config.secret_keys import SECRET_KEY, is_secret_key

__all__ = [
    "SECRET_NAME",
    "VariableNames",
    "is_literal_secret",
    "is_secret_name",
    "lift_args",
    "lift_secrets",
    "lift_urls",
    "looks_secret_value",
    "store_secrets",
]

SECRET_NAME = SECRET_KEY
_SECRET_VALUE = re.compile(
    r"^(?:(?i:bearer|basic|token)\s+\S"
    r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|sk-[A-Za-z0-9_-]{16,}|sk_(?:live|test)_\w{16,}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}|glpat-[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}$|AIza[\w-]{30,})"
)
_SCHEME = re.compile(r"(?i)^(bearer|basic|token)(\s+)(\S.*)$")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# scheme://user:password@  (the password part), and a URL's query string.
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^/?#@\s:]*:)([^/?#@\s]+)(@)")
_QUERY = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^\s?#]*\?)([^\s#]*)")

Claim = Callable[[list[str], str], str]
_Arg = TypeVar("_Arg")


def is_secret_name(name: str) -> bool:
    """Whether a key, flag or parameter *name* says its value is a credential."""
    return is_secret_key(name)


def looks_secret_value(value: str) -> bool:
    """Whether *value* is shaped like a credential whatever its key (``Bearer …``, ``ghp_…``)."""
    return bool(_SECRET_VALUE.match(value.strip()))


def _literal(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and bool(value.strip()) and "${" not in value


def is_literal_secret(key: str, value: object) -> bool:
    """Whether the env or header *value* under *key* is a literal credential: a non-blank string
    with no ``${VAR}`` whose key names a secret or whose shape is one.  Import lifts exactly these
    to ``.env`` and export writes exactly these as references, so a round trip keeps every other
    value (a blank ``" "`` included) as it was."""
    return _literal(value) and (is_secret_name(key) or looks_secret_value(value))


def _variable_base(server: str, key: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", f"{server}_{key}").strip("_").upper()


class VariableNames:
    """Variable names for secrets: the natural name unless it already holds something else
    (in the environment, in ``.env`` or earlier in this run); then ``_2``, ``_3`` …"""

    def __init__(self, environ: Mapping[str, str], dotenv: Mapping[str, str]) -> None:
        self.environ = environ
        self.dotenv = dotenv
        self.planned: dict[str, str] = {}

    def claim(self, candidates: list[str], value: str) -> str:
        for name in candidates:
            if self._free(name, value):
                self.planned[name] = value
                return name
        base = candidates[-1]
        for number in range(2, 10_000):
            name = f"{base}_{number}"
            if self._free(name, value):
                self.planned[name] = value
                return name
        raise RuntimeError("no free variable name")  # pragma: no cover - 10,000 clashes

    def _free(self, name: str, value: str) -> bool:
        return all(
            source.get(name, value) == value for source in (self.environ, self.dotenv, self.planned)
        )


def lift_secrets(server: str, entry: dict[str, object], names: VariableNames) -> dict[str, str]:
    """Replace every literal secret of *entry* (plain data, changed in place) by ``${VAR}``;
    returns ``{VAR: value}`` for ``.env``."""
    found: dict[str, str] = {}

    def claim(candidates: list[str], value: str) -> str:
        name = names.claim(candidates, value)
        found[name] = value
        return "${" + name + "}"

    env = entry.get("env")
    if isinstance(env, dict):
        for key, value in env.items():
            if is_literal_secret(key, value):
                candidates = [key] if _NAME.fullmatch(key) else []
                env[key] = claim([*candidates, _variable_base(server, key)], value)
    headers = entry.get("headers")
    if isinstance(headers, dict):
        for key, value in headers.items():
            if is_literal_secret(key, value):
                headers[key] = _header_value(server, key, value, claim)
    args = entry.get("args")
    if isinstance(args, list):
        entry["args"] = lift_args(server, args, claim)
    for key in ("url", "command"):
        text = entry.get(key)
        if _literal(text):
            entry[key] = lift_urls(server, text, claim)
    oauth = entry.get("oauth")
    if isinstance(oauth, dict):
        for key in ("client_secret", "id_token", "assertion"):
            secret = oauth.get(key)
            if _literal(secret):
                oauth[key] = claim([_variable_base(server, key)], secret)
    return found


def _header_value(server: str, key: str, value: str, claim: Claim) -> str:
    scheme = _SCHEME.match(value)
    if scheme is not None:
        token = claim([_variable_base(server, "token")], scheme.group(3))
        return f"{scheme.group(1)}{scheme.group(2)}{token}"
    return claim([_variable_base(server, key)], value)


def lift_args(server: str, args: Sequence[_Arg], claim: Claim) -> list[_Arg | str]:
    """*args* with the value of each secret-named flag, each URL password and secret query
    parameter, and each token-shaped argument replaced by a reference."""
    out: list[_Arg | str] = []
    flag: str | None = None  # a secret flag whose value is the next argument
    for arg in args:
        if not isinstance(arg, str):
            out.append(arg)
            flag = None
            continue
        if flag is not None and not arg.startswith("-") and _literal(arg):
            out.append(claim([_variable_base(server, flag)], arg))
            flag = None
            continue
        flag = None
        name, equals, value = arg.partition("=")
        bare = name.lstrip("-")
        if equals and "://" not in name and bare and is_secret_name(bare) and _literal(value):
            natural = [bare] if not name.startswith("-") and _NAME.fullmatch(bare) else []
            out.append(f"{name}={claim([*natural, _variable_base(server, bare)], value)}")
            continue
        if arg.startswith("-") and not equals and bare and is_secret_name(bare):
            flag = bare
            out.append(arg)
            continue
        if _literal(arg) and looks_secret_value(arg):
            out.append(claim([_variable_base(server, "secret")], arg))
            continue
        out.append(lift_urls(server, arg, claim) if _literal(arg) else arg)
    return out


def lift_urls(server: str, text: str, claim: Claim) -> str:
    """*text* with each URL's password and secret query parameters replaced by references."""
    if "://" not in text:
        return text

    def password(match: re.Match[str]) -> str:
        return match.group(1) + claim([_variable_base(server, "password")], match.group(2)) + "@"

    def query(match: re.Match[str]) -> str:
        parts = []
        for part in match.group(2).split("&"):
            key, equals, value = part.partition("=")
            if equals and is_secret_name(key) and _literal(value):
                value = claim([_variable_base(server, key)], value)
            parts.append(f"{key}{equals}{value}")
        return match.group(1) + "&".join(parts)

    return _QUERY.sub(query, _USERINFO.sub(password, text))


def store_secrets(path: Path, values: Mapping[str, str]) -> list[str]:
    """Set *values* in the ``.env`` at *path* (atomic, mode 0600, every other line kept);
    returns the names whose value changed (a variable that already has it is not rewritten)."""
    try:
        current = parse_dotenv(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        current = {}
    changes = {k: v for k, v in values.items() if current.get(k) != v}
    if changes:
        update_dotenv(changes, path)
    return list(changes)
