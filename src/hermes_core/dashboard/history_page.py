"""The History page: the audit log (``$HERMES_HOME/logs/audit.jsonl``, what ``hermes mcp
audit`` reads), newest first, filtered by server, tool and outcome.  Each row opens its call:
the arguments' names and types (their values are never stored unless ``audit.values: true``),
who approved it, the interceptors' decisions, and a link to the tool's form."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from urllib.parse import quote

from hermes_core.dashboard.html import esc

__all__ = ["MAX_ROWS", "history_body", "matching"]

#: The most rows one page shows (the newest).
MAX_ROWS = 300
OUTCOMES = ("ok", "tool_error", "refused", "failed_closed", "not_approved", "cancelled", "error")


def matching(
    records: Iterable[Mapping[str, object]], filters: Mapping[str, str]
) -> list[Mapping[str, object]]:
    """The newest :data:`MAX_ROWS` records that match every filter (a substring of the
    server or tool name; the outcome exactly)."""
    server = filters.get("server", "").strip().lower()
    tool = filters.get("tool", "").strip().lower()
    outcome = filters.get("outcome", "").strip()
    kept = [
        r
        for r in records
        if server in str(r.get("server", "")).lower()
        and tool in f"{r.get('tool', '')} {r.get('name', '')}".lower()
        and (not outcome or r.get("outcome") == outcome)
    ]
    return kept[::-1][:MAX_ROWS]


def _arguments(args: object) -> str:
    if not isinstance(args, Mapping) or not args:
        return "<p class=muted>no arguments</p>"
    rows = "".join(
        f"<li><code>{esc(k)}</code>: {esc(v if isinstance(v, str) else json.dumps(v), 300)}</li>"
        for k, v in args.items()
    )
    return f"<ul class=args>{rows}</ul>"


def _row(record: Mapping[str, object]) -> str:
    name = str(record.get("name") or "")
    outcome = esc(record.get("outcome"))
    listed = record.get("decisions")
    decisions = listed if isinstance(listed, list) else []
    said = "".join(
        f"<li>{esc(d.get('interceptor'))} {esc(d.get('stage'))}: {esc(d.get('verdict'))}"
        f"{' — ' + esc(d.get('reason')) if d.get('reason') else ''}</li>"
        for d in decisions
        if isinstance(d, Mapping)
    )
    link = f'<a href="/tools?tool={quote(name, safe="")}">open the tool</a>' if name else ""
    duration = record.get("duration_ms")
    took = f"{duration:.0f} ms" if isinstance(duration, int | float) else "-"
    return (
        f'<details class="call-record outcome-{outcome}"><summary>'
        f"<span class=when>{esc(record.get('time'))}</span> "
        f"<strong>{esc(record.get('server'))}</strong>/<code>{esc(record.get('tool'))}</code> "
        f"<span class=outcome>{outcome}</span> <span class=muted>{took}</span></summary>"
        f"<div class=record><div>registered name: <code>{esc(name)}</code>; trust: "
        f"{esc(record.get('trust') or '-')}; approved by: {esc(record.get('approved_by') or '-')}"
        f"; state: {esc(record.get('state') or '-')}</div>"
        f"<div>arguments (names and types):</div>{_arguments(record.get('arguments'))}"
        + (f"<div>decisions:</div><ul>{said}</ul>" if said else "")
        + f"<div>{link}</div></div></details>"
    )


def history_body(
    records: Sequence[Mapping[str, object]], filters: Mapping[str, str], total: int
) -> str:
    """The filter form and the matching calls."""
    choices = "".join(
        f'<option value="{o}"{" selected" if filters.get("outcome") == o else ""}>{o}</option>'
        for o in OUTCOMES
    )
    form = (
        '<form method="get" action="/history" class="filters">'
        f'<label>Server <input name="server" value="{esc(filters.get("server", ""))}"></label>'
        f'<label>Tool <input name="tool" value="{esc(filters.get("tool", ""))}"></label>'
        f'<label>Outcome <select name="outcome"><option value="">any</option>{choices}'
        "</select></label><button type=submit>Filter</button></form>"
    )
    said = f"<p class=muted>{len(records)} shown of {total} calls in the audit log</p>"
    rows = "".join(_row(r) for r in records) or "<p>No call matches.</p>"
    return f'{form}{said}<div id="history">{rows}</div>'
