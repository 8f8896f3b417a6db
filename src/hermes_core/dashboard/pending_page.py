"""The Pending page: approvals and elicitations waiting in ``state.db`` (asked by
``--approvals store``, ``hermes mcp serve``, the dashboard's own calls), answered here as
``hermes mcp serve``'s ``permissions_respond`` answers them."""

from __future__ import annotations

import json
from collections.abc import Mapping

from hermes_core.dashboard.html import esc
from hermes_core.sessions.models import Approval

__all__ = ["answer_of", "pending_list"]


def _field(field: Mapping[str, object]) -> str:
    name = f"f:{esc(field.get('name'))}"
    default = field.get("default")
    listed = field.get("choices")
    choices = listed if isinstance(listed, list) else []
    if choices:
        options = "".join(
            f'<option value="{esc(json.dumps(c))}"{" selected" if c == default else ""}>'
            f"{esc(c)}</option>"
            for c in choices
        )
        widget = f'<select name="{name}">{options}</select>'
    elif field.get("type") == "boolean":
        on = " checked" if default else ""
        widget = f'<input type="hidden" name="{name}" value="false">' + (
            f'<input type="checkbox" name="{name}" value="true"{on}>'
        )
    else:
        kind = "number" if field.get("type") in ("integer", "number") else "text"
        value = "" if default is None else esc(default)
        widget = f'<input type="{kind}" step="any" name="{name}" value="{value}">'
    need = " <span class=warn>*</span>" if field.get("required") else ""
    title = field.get("title") or field.get("name")
    hint = (
        f" <span class=muted>{esc(field.get('description'))}</span>"
        if field.get("description")
        else ""
    )
    return f"<label>{esc(title)}{need} {widget}{hint}</label>"


def _fields(item: Approval) -> list[object]:
    """The form fields an elicitation's payload lists (none for other questions)."""
    fields = item.payload.get("fields") if isinstance(item.payload, Mapping) else None
    return fields if isinstance(fields, list) else []


def _approval(item: Approval, csrf: str) -> str:
    fields = _fields(item)
    inputs = "".join(_field(f) for f in fields if isinstance(f, Mapping))
    buttons = (
        '<button name="decision" value="allow-once">Accept</button>'
        '<button name="decision" value="deny" class="danger">Decline</button>'
    )
    if item.kind != "elicitation":
        buttons = (
            '<button name="decision" value="allow-once">Allow once</button>'
            '<button name="decision" value="allow-always">Allow always</button>'
            '<button name="decision" value="deny" class="danger">Deny</button>'
        )
    return (
        f'<div class="tool approval" id="approval-{item.id}"><h3>#{item.id} {esc(item.kind)} '
        f"from <code>{esc(item.server)}</code></h3><pre>{esc(item.summary, 3000)}</pre>"
        f'<form method="post" action="/pending/{item.id}">'
        f'<input type="hidden" name="csrf" value="{esc(csrf)}">{inputs}{buttons}</form></div>'
    )


def pending_list(items: list[Approval], csrf: str) -> str:
    """The open questions; its ``data-ids`` tell the page's poller when the list changed."""
    ids = ",".join(str(a.id) for a in items)
    inner = "".join(_approval(a, csrf) for a in items) or "<p>Nothing is waiting for an answer.</p>"
    return f'<div id="pending-list" data-ids="{ids}">{inner}</div>'


def answer_of(item: Approval, form: Mapping[str, list[str]]) -> dict[str, object] | None:
    """The form's field values for an elicitation (typed as its fields say), else ``None``."""
    fields = _fields(item)
    if not fields:
        return None
    answer: dict[str, object] = {}
    for field in fields:
        if not isinstance(field, Mapping):
            continue
        name = str(field.get("name"))
        given = form.get(f"f:{name}", [])
        if not given or given[-1] == "":
            continue
        raw = given[-1]
        if field.get("choices"):
            try:
                answer[name] = json.loads(raw)
            except ValueError:
                answer[name] = raw
        elif field.get("type") == "boolean":
            answer[name] = raw == "true"
        elif field.get("type") == "integer":
            answer[name] = int(float(raw))
        elif field.get("type") == "number":
            answer[name] = float(raw)
        else:
            answer[name] = raw
    return answer
