"""What looks like a credential in a server entry: the key names ``hermes mcp import`` moves to
``.env`` (``…TOKEN``, ``…SECRET``, ``…KEY``, ``…PASSWORD``, ``Authorization`` …), an auth
scheme's token (``Bearer …``), a URL's password and secret-named query values, and the value of
a secret-named flag (``--api-key X``, ``--token=X``).

Standard library only: the built-in ``secrets_guard`` interceptor, which the plugin manager
loads on every command, uses it too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from urllib.parse import parse_qsl, urlsplit

__all__ = ["AUTH_SCHEME", "SECRET_KEY", "credentials_in", "is_secret_key"]

SECRET_KEY = re.compile(
    r"(?i)(token|secret|passw|passphrase|api[_-]?key|apikey|private[_-]?key|access[_-]?key|"
    r"credential|cookie|authorization|signature|(^|[_-])auth($|[_-])|[_-]key$|^key$|^pat$|^pwd$)"
)
"""A key, flag or parameter name that says its value is a credential (``…TOKEN``,
``X-Custom-Auth``, ``client_secret``): the one pattern of import, add, install, export
(:mod:`hermes_core.config.secret_lift`) and the ``secrets_guard`` interceptor."""
#: ``Bearer <token>``, ``token <token>``, ``Basic <credentials>``.
AUTH_SCHEME = re.compile(r"(?i)(bearer|token|basic)\s+(\S.*)")
_URL = re.compile(r"(?i)[a-z][a-z0-9+.-]*://\S+")
#: Shorter values are not treated as credentials (``true``, ``1``, a port).
MIN_CREDENTIAL_CHARS = 8


def is_secret_key(key: str) -> bool:
    return bool(SECRET_KEY.search(key))


def credentials_in(
    *,
    env: Mapping[str, str],
    headers: Mapping[str, str],
    url: str | None,
    args: Iterable[str],
) -> dict[str, str]:
    """The credential values of one resolved entry: where each sits (``env GITHUB_TOKEN``,
    ``header Authorization``, ``url password``, ``args --token``) -> its value."""
    found: dict[str, str] = {}

    def keep(where: str, value: object) -> None:
        if isinstance(value, str) and len(value.strip()) >= MIN_CREDENTIAL_CHARS:
            found[where] = value.strip()

    for key, value in env.items():
        if is_secret_key(key):
            keep(f"env {key}", value)
    for key, value in headers.items():
        if is_secret_key(key):
            keep(f"header {key}", value)
            scheme = AUTH_SCHEME.fullmatch(value.strip()) if isinstance(value, str) else None
            if scheme is not None:
                keep(f"header {key} ({scheme.group(1)} token)", scheme.group(2))
    if url:
        _url_credentials(url, keep, "url")
    hide_next = ""
    for arg in args:
        if hide_next:
            keep(f"args {hide_next}", arg)
            hide_next = ""
            continue
        name, equals, value = arg.partition("=")
        if equals and "://" not in name and is_secret_key(name.lstrip("-")):
            keep(f"args {name}", value)
        elif "://" in arg:
            for found_url in _URL.findall(arg):
                _url_credentials(found_url, keep, "args url")
        elif arg.startswith("-") and not equals and is_secret_key(arg.lstrip("-")):
            hide_next = arg
    return found


def _url_credentials(url: str, keep: Callable[[str, object], None], label: str) -> None:
    try:
        parts = urlsplit(url.strip())
        password = parts.password
    except ValueError:
        return
    if password:
        keep(f"{label} password", password)
    for key, value in parse_qsl(parts.query):
        if is_secret_key(key):
            keep(f"{label} query {key}", value)
