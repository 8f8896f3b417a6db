"""The MCP page: every configured server with its state, transport, app gate (and why), tool
count, trust tier, last error and stderr tail, and its enable/disable/remove buttons."""

from __future__ import annotations

import re
from urllib.parse import quote

from hermes_core.dashboard.gates import gate_lines
from hermes_core.dashboard.html import button_form, esc, table
from hermes_core.host.server_status import ServerStatus, tool_count

__all__ = ["servers_body"]


def _gate(row: ServerStatus) -> str:
    lines = gate_lines(row.server)
    said = esc(row.gate or row.availability or "")
    if lines is None:
        return f"{said}<div class=muted>no app declared</div>" if said else "no app declared"
    return (
        f"{said}<details><summary>why</summary><pre>{esc(chr(10).join(lines), 8000)}</pre>"
        "</details>"
    )


def _error(row: ServerStatus) -> str:
    parts = []
    if row.last_error:
        parts.append(f"<pre>{esc(row.last_error, 2000)}</pre>")
    tail = (row.failure or {}).get("stderr_tail") or []
    if isinstance(tail, list) and tail:
        text = "\n".join(str(line) for line in tail[:100])  # the host bounds and picks it
        parts.append(f"<details><summary>stderr tail</summary><pre>{esc(text)}</pre></details>")
    return "".join(parts) or "-"


def _missing(row: ServerStatus, names: list[str], csrf: str) -> str:
    """A form per ``${VAR}`` the entry names that nothing sets: its value goes to ``.env``."""
    action = f"/servers/{quote(row.server, safe='')}/env"
    return "".join(
        f'<form method="post" action="{esc(action)}" class="set-var">'
        f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
        f'<input type="hidden" name="variable" value="{esc(name)}">'
        f"<label><code>${{{esc(name)}}}</code> is not set "
        f'<input type="password" name="value" autocomplete="off" required '
        f'aria-label="value of {esc(name)}"></label>'
        "<button type=submit>Set in .env</button></form>"
        for name in names
    )


def _buttons(row: ServerStatus, csrf: str) -> str:
    name = quote(row.server, safe="")
    toggle = "disable" if row.enabled else "enable"
    return (
        button_form(f"/servers/{name}/{toggle}", toggle.capitalize(), csrf)
        + button_form(f"/servers/{name}/remove", "Remove", csrf, danger=True)
        + f' <a href="/catalog/{name}/configure">choose tools</a>'
    )


def state_class(connection: str) -> str:
    """The CSS class of a connection state: ``state-`` and its words joined by ``-`` (a
    class name has no space: ``not running`` is ``state-not-running``)."""
    return "state-" + "-".join(re.findall(r"[a-z0-9]+", connection.lower()))


def servers_body(
    rows: list[ServerStatus], csrf: str, missing: dict[str, list[str]] | None = None
) -> str:
    """The table of servers (``hermes mcp status``'s rows); *missing*: each server's unset
    ``${VAR}`` (a field to set each)."""
    missing = missing or {}
    add = '<p><a class="button" href="/servers/add">Add a server</a></p>'
    if not rows:
        return (
            "<p>No server is configured. Add one from the <a href=/catalog>catalog</a>.</p>" + add
        )
    cells = []
    for row in rows:
        state, css = esc(row.connection), state_class(row.connection)
        cells.append(
            [
                f"<strong>{esc(row.server)}</strong>"
                + ("" if row.enabled else " <span class=muted>(disabled)</span>"),
                f'<span data-state-of="{esc(row.server)}" class="{css}">{state}</span>'
                + (f"<div class=muted>protocol {esc(row.protocol)}</div>" if row.protocol else ""),
                esc(row.transport),
                _gate(row),
                f'<span data-tools-of="{esc(row.server)}">'
                + esc(tool_count(row.tools, row.host_tools))
                + "</span>"
                + (
                    f" <span class=muted>({row.filtered_out} filtered out)</span>"
                    if row.filtered_out
                    else ""
                ),
                esc(row.trust),
                _error(row) + _missing(row, missing.get(row.server, []), csrf),
                _buttons(row, csrf),
            ]
        )
    return add + table(
        ["Server", "State", "Transport", "App gate", "Tools", "Trust", "Last error", ""],
        cells,
        "servers",
    )
