"""Server arguments for display: secrets in flags and URL-shaped values hidden.

``mcp list`` and ``repr(ServerConfig)`` show a stdio server's command line; a token there must
not be.  Hidden, each as ``***``:

* the value of a secret-looking flag: ``--api-key=…``, ``--token …`` (the next argument),
  ``PASSWORD=…`` (a flag name containing token, secret, key, password, passwd, auth or
  credential);
* the credentials and the query of anything URL-shaped, wherever it appears in an argument:
  ``--dsn=postgres://u:pw@h/db`` → ``--dsn=postgres://***@h/db``,
  ``https://h/x?api_key=…`` → ``https://h/x?***``.
"""

from __future__ import annotations

import re

__all__ = ["shown_args"]

_REDACTED = "***"
_SECRET_FLAG = re.compile(r"(?i)(token|secret|key|password|passwd|auth|credential)")
# scheme://userinfo@  and  ?query / #fragment of a URL inside an argument.
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/?#@\s]*@")
_URL_QUERY = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^\s?#]*)([?#])\S*")
# A value that is only a reference (``${VAR}``) holds no secret: shown as written, so that what
# is shown (the import's dry run, ``mcp list``) is what config.yaml holds.
_REFERENCE = re.compile(r"\$\{[^}]*\}")


def _hidden(value: str) -> str:
    return value if _REFERENCE.fullmatch(value) else _REDACTED


def _shown_urls(arg: str) -> str:
    if "://" not in arg:
        return arg
    arg = _URL_USERINFO.sub(rf"\1{_REDACTED}@", arg)
    return _URL_QUERY.sub(rf"\1\2{_REDACTED}", arg)


def shown_args(args: list[str]) -> list[str]:
    """*args* for display, with the secrets described in the module docstring hidden."""
    shown: list[str] = []
    hide_next = False
    for arg in args:
        if hide_next:
            shown.append(_hidden(arg))
            hide_next = False
            continue
        name, equals, value = arg.partition("=")
        if equals and "://" not in name and _SECRET_FLAG.search(name):
            shown.append(name + "=" + _hidden(value))
            continue
        shown.append(_shown_urls(arg))
        hide_next = arg.startswith("-") and not equals and bool(_SECRET_FLAG.search(arg))
    return shown
