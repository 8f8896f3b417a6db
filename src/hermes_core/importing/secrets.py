"""Literal secrets out of imported entries, into ``$HERMES_HOME/.env``.

The rule is the one ``hermes mcp add``, ``install`` and ``export`` use
(:mod:`hermes_core.config.secret_lift`): a value that looks secret (by its key, a flag in
``args``, a URL's password or query, or its shape) is stored in ``.env`` under a variable and
the entry refers to it (``${GITHUB_TOKEN}``), so ``config.yaml`` never holds the value and an
export prints the reference.  :mod:`.dotenv_update` writes them to ``.env``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from hermes_core.config.secret_keys import SECRET_KEY, is_secret_key
from hermes_core.config.secret_lift import VariableNames
from hermes_core.config.secret_lift import lift_secrets as lift_entry
from hermes_core.importing.model import Translated

__all__ = ["SECRET_KEY", "is_secret_key", "lift_secrets", "mask"]


def mask(value: str) -> str:
    """A value for display: references and an auth scheme shown, anything else hidden."""
    if not value:
        return value
    scheme = re.match(r"(?i)(bearer|basic|token)\s+", value)
    head = scheme.group(0) if scheme else ""
    parts = re.split(r"(\$\{[^}]*\})", value[len(head) :])
    return head + "".join(
        part if part.startswith("${") else ("***" if part.strip() else part) for part in parts
    )


def lift_secrets(
    items: list[Translated], *, environ: Mapping[str, str], dotenv: Mapping[str, str]
) -> None:
    """Move literal secrets of every entry into :attr:`Translated.secrets` (in place)."""
    names = VariableNames(environ, dotenv)
    for item in items:
        if item.entry is not None:
            item.secrets.update(lift_entry(item.name, item.entry, names))
