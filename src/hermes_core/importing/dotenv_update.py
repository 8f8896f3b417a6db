"""Writing an import's secrets and input answers to ``$HERMES_HOME/.env``.

``.env`` is updated atomically with mode 0600: existing lines are kept byte for byte, a changed
variable is replaced on its own line, new ones are appended.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from hermes_core.config.dotenv_file import update_dotenv as write_dotenv
from hermes_core.config.interpolate import parse_dotenv

__all__ = ["update_dotenv"]


def update_dotenv(path: Path, values: Mapping[str, str]) -> list[str]:
    """Set *values* in the ``.env`` at *path*; returns the names whose value changed.

    The one ``.env`` writer of the project does the edit (atomic, mode 0600, other lines and
    comments kept, see :mod:`hermes_core.config.dotenv_file`); a variable that already has the
    value is not rewritten.
    """
    try:
        current = parse_dotenv(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        current = {}
    changes = {k: v for k, v in values.items() if current.get(k) != v}
    if changes:
        write_dotenv(changes, path)
    return list(changes)
