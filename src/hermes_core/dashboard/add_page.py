"""*Add a server* (``/servers/add``): the form of ``hermes mcp add`` — a name, the server's
command line or URL, env or header lines, *probe* and *replace* — handed to the CLI's own add
(probed, secrets lifted to ``.env``, saved disabled when the probe fails), which the CLI gives
the dashboard when it starts it (:data:`Adder`)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from hermes_core.dashboard.html import esc

__all__ = ["AddForm", "Adder", "add_form", "parse_add"]

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_MAX_FIELD = 16 * 1024


@dataclass(frozen=True)
class AddForm:
    """What the form asked for, in ``hermes mcp add``'s terms."""

    name: str
    command: str | None
    args: list[str]
    url: str | None
    env: list[str]
    headers: list[str]
    probe: bool
    replace: bool

    def __repr__(self) -> str:  # env and header values may be secrets
        return f"AddForm({self.name!r})"


#: The CLI's add: *form* done as ``hermes mcp add`` does it; its exit status and what it said.
Adder = Callable[[AddForm], tuple[int, str]]


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def parse_add(form: Mapping[str, str]) -> AddForm:
    """The submitted form as an :class:`AddForm`; ``ValueError`` says what is wrong."""
    if any(len(v) > _MAX_FIELD for v in form.values()):
        raise ValueError("a field is over 16 KiB")
    name = form.get("name", "").strip()
    if not _NAME.fullmatch(name):
        raise ValueError(
            "give the server a name: letters, digits, '-', '_' or '.', at most 64 characters"
        )
    target = form.get("target", "").strip()
    if not target:
        raise ValueError("give the server's command line (npx -y pkg) or its URL (https://…)")
    command: str | None = None
    args: list[str] = []
    url: str | None = None
    if re.match(r"(?i)https?://", target):
        url = target
    else:
        try:
            words = shlex.split(target)
        except ValueError as exc:
            raise ValueError(f"the command line cannot be read: {exc}") from None
        command, args = words[0], words[1:]
    return AddForm(
        name=name,
        command=command,
        args=args,
        url=url,
        env=_lines(form.get("env", "")),
        headers=_lines(form.get("headers", "")),
        probe=form.get("probe") == "on",
        replace=form.get("replace") == "on",
    )


def add_form(csrf: str, said: str = "", kept: Mapping[str, str] | None = None) -> str:
    """The form (values kept after a refusal, except env and header values)."""
    kept = kept or {}
    out = f'<pre class="add-output">{esc(said, 8000)}</pre>' if said else ""
    return (
        f'{out}<form method="post" action="/servers/add" class="add-server">'
        f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
        '<label>Name <input name="name" required maxlength="64" autocomplete="off" '
        f'value="{esc(kept.get("name", ""))}"></label>'
        '<label>Command line or URL <input name="target" required '
        'placeholder="npx -y @modelcontextprotocol/server-everything" '
        f'value="{esc(kept.get("target", ""))}"></label>'
        "<label>Environment (stdio: one NAME=VALUE a line)"
        '<textarea name="env" rows="3" autocomplete="off"></textarea></label>'
        "<label>Headers (HTTP: one Name: value a line)"
        '<textarea name="headers" rows="2" autocomplete="off"></textarea></label>'
        '<label class="check"><input type="checkbox" name="probe" checked> '
        "probe it first (connect, list its tools)</label>"
        '<label class="check"><input type="checkbox" name="replace"> '
        "replace a server of that name (--replace)</label>"
        "<p class=muted>As <code>hermes mcp add</code>: a value that looks secret goes to "
        "<code>.env</code> (mode 0600) and <code>config.yaml</code> holds "
        "<code>${VAR}</code>; a failed probe saves the server disabled.</p>"
        "<button type=submit>Add</button></form>"
    )
