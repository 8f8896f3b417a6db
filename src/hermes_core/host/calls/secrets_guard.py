"""The built-in ``secrets_guard`` interceptor: a credential configured for one server is never
sent to another in a tool call's arguments (docs/trust.md, "Secrets in traffic").

Opt in with ``interceptors: [secrets_guard]`` (host-wide, or per server).  The host hands it the
credential values of every configured server, found by the patterns ``hermes mcp import``
uses to move secrets to ``.env`` (:mod:`hermes_core.config.secret_keys`): secret-named env
variables and headers (and an ``Authorization`` scheme's token), a URL's password and
secret-named query values, secret-named flags in ``args``.  Before a call, every text in its
arguments (keys and values, however nested) is searched for them; one that belongs to another
server refuses the call, naming whose it is and where it sits in config — never the value.  A
server's own credentials pass (a tool that takes the token it was configured with).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from hermes_core.plugins.interceptors import Decision, InterceptedCall, InterceptorSetup

__all__ = ["SECRETS_GUARD", "GuardSetup", "SecretsGuard"]

SECRETS_GUARD = "secrets_guard"
#: The most texts of one call's arguments searched (beyond them the call is refused).
MAX_TEXTS = 10_000
#: The deepest nesting of arguments searched.
MAX_DEPTH = 64


@dataclass(frozen=True)
class GuardSetup(InterceptorSetup):
    """The guard's setup: the host's servers' credentials (given to this built-in only, never
    to a plugin's interceptor)."""

    credentials: Mapping[str, Mapping[str, str]] = field(default_factory=dict, repr=False)
    """Server -> where in its entry (``env GITHUB_TOKEN``) -> the value."""


class SecretsGuard:
    """Refuses a call whose arguments carry another server's credential."""

    after = None

    def __init__(self, credentials: Mapping[str, Mapping[str, str]]) -> None:
        # value -> {server: where}: one token configured for two servers belongs to both.
        self._owners: dict[str, dict[str, str]] = {}
        for server, found in credentials.items():
            for where, value in found.items():
                self._owners.setdefault(value, {}).setdefault(server, where)

    @classmethod
    def create(cls, setup: InterceptorSetup) -> SecretsGuard:
        credentials = setup.credentials if isinstance(setup, GuardSetup) else {}
        return cls(credentials)

    def before(self, call: InterceptedCall) -> Decision | None:
        if not self._owners:
            return None
        foreign = [(v, o) for v, o in self._owners.items() if call.server not in o]
        if not foreign:
            return None
        for count, text in enumerate(_texts(call.arguments, 0)):
            if count >= MAX_TEXTS or text is _TOO_DEEP:
                return Decision.refuse(
                    f"the arguments hold more than {MAX_TEXTS} texts or nest deeper than "
                    f"{MAX_DEPTH} levels: too much to check for other servers' credentials "
                    "(secrets_guard)"
                )
            for value, owners in foreign:
                if value in text:
                    owner = sorted(owners)[0]
                    return Decision.refuse(
                        f"the arguments carry a credential of MCP server '{owner}' "
                        f"({owners[owner]} in its config entry); Hermes sends a server's "
                        f"credentials to that server only, never to '{call.server}' "
                        "(secrets_guard). Do not retry with the credential."
                    )
        return None


_TOO_DEEP = "\0too deep\0"  # (compared by identity)


def _texts(value: object, depth: int) -> Iterator[str]:
    """Every string of a JSON-like value, keys included."""
    if isinstance(value, str):
        yield value
    elif depth >= MAX_DEPTH:
        yield _TOO_DEEP
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, str):
                yield key
            yield from _texts(item, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item, depth + 1)
