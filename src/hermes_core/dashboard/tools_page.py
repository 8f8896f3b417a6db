"""The Tools page: per server, each tool (title, description, annotations), its input schema
as a form with a Call button, and a call's result as text, JSON or image; tools a gate keeps
from the agent are listed with the reason."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from hermes_core.dashboard.html import esc
from hermes_core.dashboard.schema_form import form_fields
from hermes_core.host.calls.result_text import MEDIA_KINDS, render_text
from hermes_core.host.tools.registry import ToolEntry

__all__ = ["IMAGE_TYPES", "result_html", "tools_body"]

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
MAX_IMAGE = 4 << 20


def _image(item: dict[str, Any]) -> str:
    mime, data = item.get("mimeType"), item.get("data")
    if mime not in IMAGE_TYPES or not isinstance(data, str) or len(data) > MAX_IMAGE:
        return f"<p class=muted>image not shown ({esc(mime)})</p>"
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return "<p class=muted>image not shown (not base64)</p>"
    return f'<img class="result" alt="image result" src="data:{mime};base64,{data}">'


def result_html(tool: str, result: dict[str, Any]) -> str:
    """A call's result: the text every door shows (:mod:`hermes_core.host.calls.result_text`),
    its images drawn, its structured content, and the whole as JSON."""
    shown = render_text(result)
    parts = [f"<h3>Result of <code>{esc(tool)}</code></h3>"]
    if shown.host_error:
        parts.append(f'<p class="error">{esc(shown.text, 20000)}</p>')
    elif shown.failed:
        parts.append('<p class="error">the tool reported an error</p>')
    if not shown.host_error:
        parts.append(f'<pre class="result-text">{esc(shown.text, 20000)}</pre>')
    for item in result.get("content") or []:
        if isinstance(item, dict) and item.get("type") == "image":
            parts.append(_image(item))
    if result.get("structuredContent") is not None:
        text = json.dumps(result["structuredContent"], indent=2)
        parts.append(f'<h4>structured</h4><pre class="result-json">{esc(text, 20000)}</pre>')
    shown_json = dict(result)
    if isinstance(shown_json.get("content"), list):  # media data is summarised above
        shown_json["content"] = [
            {**item, "data": f"<{len(str(item.get('data')))} base64 characters>"}
            if isinstance(item, dict) and item.get("type") in MEDIA_KINDS
            else item
            for item in shown_json["content"]
        ]
    whole = json.dumps(shown_json, indent=2, default=str)
    parts.append(f"<details><summary>JSON</summary><pre>{esc(whole, 20000)}</pre></details>")
    return f'<section class="result" id="result">{"".join(parts)}</section>'


def _annotations(entry: ToolEntry) -> str:
    hints = {k: v for k, v in (entry.annotations or {}).items() if k != "title"}
    if not hints:
        return ""
    said = ", ".join(f"{esc(k)}={esc(json.dumps(v))}" for k, v in sorted(hints.items()))
    return f"<div class=muted>annotations: {said}</div>"


def _tool(entry: ToolEntry, csrf: str, gated: str | None) -> str:
    title = f" — {esc(entry.title)}" if entry.title else ""
    head = f'<h3 id="tool-{esc(entry.name)}"><code>{esc(entry.name)}</code>{title}</h3>'
    desc = f"<pre>{esc(entry.description, 3000)}</pre>" if entry.description.strip() else ""
    if gated is not None:
        return (
            f'<div class="tool gated">{head}{desc}{_annotations(entry)}'
            f'<p class="warn">not offered: {esc(gated)}</p></div>'
        )
    form = (
        f'<form method="post" action="/tools/call" class="call">'
        f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
        f'<input type="hidden" name="tool" value="{esc(entry.name)}">'
        f"{form_fields(entry.input_schema)}<button type=submit>Call</button></form>"
    )
    return f'<div class="tool">{head}{desc}{_annotations(entry)}{form}</div>'


def tools_body(
    entries: list[ToolEntry],
    rows: list[dict[str, Any]],
    unoffered: dict[str, dict[str, str]],
    csrf: str,
) -> str:
    """Every server's tools, offered or not (and why not)."""
    by_server: dict[str, list[ToolEntry]] = {}
    for entry in entries:
        by_server.setdefault(entry.server, []).append(entry)
    parts = []
    for row in rows:
        name = row["server"]
        gated = None
        if not row["enabled"]:
            gated = "disabled in config.yaml"
        elif not row["offered"]:
            gated = row.get("gate") or row.get("last_error") or row.get("availability")
        own = by_server.get(name, [])
        parts.append(f"<h2>{esc(name)} <span class=muted>({len(own)} tools)</span></h2>")
        if gated and not own:
            parts.append(f'<p class="warn">no tools offered: {esc(gated)}</p>')
        parts.extend(_tool(entry, csrf, gated) for entry in own)
        for tool, reason in sorted(unoffered.get(name, {}).items()):
            parts.append(
                f'<div class="tool gated"><h3><code>{esc(tool)}</code></h3>'
                f'<p class="warn">not offered: {esc(reason)}</p></div>'
            )
    return "".join(parts) or "<p>No server is configured.</p>"
