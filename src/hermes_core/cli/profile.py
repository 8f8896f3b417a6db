"""``hermes --profile NAME``: who this Hermes runs for, as ``HERMES_PROFILE``.

The profile is a name, nothing more: the value an HTTP server's ``identity_header`` with
``value_from: profile`` sends (``default`` when none is set), so one shared server can tell
its users apart (docs/authentication.md#profiles-hermes_profile).  It selects no other config: each
``HERMES_HOME`` keeps its one ``config.yaml``.  The warm host (``hermes mcp up``) sends the
profile it was started with, so a command given ``--profile`` starts its own servers, except
``hermes --profile NAME mcp up``, which starts the warm host with it.
"""

from __future__ import annotations

import os
import re
import sys

from hermes_core.cli.common import EXIT_USAGE

__all__ = ["PROFILE_NAME", "use_profile"]

#: A profile name: it travels as an HTTP header value, so plain characters only.
PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}")


def use_profile(name: str, words: tuple[str, ...]) -> None:
    """Run this command (and what it starts) as profile *name*; exit 2 on a bad name."""
    if PROFILE_NAME.fullmatch(name) is None:
        print(
            f"error: --profile {name!r}: a profile is 1-64 letters, digits, '_', '.', '@' "
            "or '-' (it is sent as an HTTP header value)",
            file=sys.stderr,
        )
        raise SystemExit(EXIT_USAGE)
    os.environ["HERMES_PROFILE"] = name
    if words != ("mcp", "up"):
        os.environ["HERMES_WARM"] = "0"  # the warm host sends the profile it started with
