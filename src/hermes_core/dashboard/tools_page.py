"""The Tools page: a searchable index of every server's tools (offered or not, and why not)
beside one tool's form at a time (``/tools?tool=NAME``); a call made from it runs without a
page reload (``tools.js``: ``POST /api/calls``, then its progress polled) and its result is
shown in a pane with a text and a JSON view, images drawn, and *Open app* for a tool with an
MCP App (:mod:`.apps`)."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from urllib.parse import quote

from hermes_core.dashboard.html import esc
from hermes_core.dashboard.schema_form import form_fields
from hermes_core.host.calls.result_text import MEDIA_KINDS, render_text
from hermes_core.host.server_status import ServerStatus
from hermes_core.host.tools.registry import ToolEntry

__all__ = ["IMAGE_TYPES", "result_html", "tools_body"]

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
MAX_IMAGE = 4 << 20


def _image(item: dict[str, object]) -> str:
    mime, data = item.get("mimeType"), item.get("data")
    if mime not in IMAGE_TYPES or not isinstance(data, str) or len(data) > MAX_IMAGE:
        return f"<p class=muted>image not shown ({esc(mime)})</p>"
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return "<p class=muted>image not shown (not base64)</p>"
    return f'<img class="result" alt="image result" src="data:{mime};base64,{data}">'


def _summarised(result: Mapping[str, object]) -> dict[str, object]:
    shown = dict(result)
    blocks = shown.get("content")
    if isinstance(blocks, list):  # media data is drawn, not printed
        shown["content"] = [
            {**item, "data": f"<{len(str(item.get('data')))} base64 characters>"}
            if isinstance(item, dict) and item.get("type") in MEDIA_KINDS
            else item
            for item in blocks
        ]
    return shown


def result_html(
    tool: str, result: Mapping[str, object], *, seconds: float | None = None, app_call: str = ""
) -> str:
    """A call's result: the text every door shows (:mod:`hermes_core.host.calls.result_text`),
    its images drawn and its structured content (the *Text* view), the whole as JSON (the
    *JSON* view), and *Open app* when the tool has one (*app_call*: the call's id)."""
    shown = render_text(result)
    took = f" <span class=muted>({seconds:.2f} s)</span>" if seconds is not None else ""
    parts = [f"<h3>Result of <code>{esc(tool)}</code>{took}</h3>"]
    parts.append(
        '<div class="views" role="tablist">'
        '<button type="button" class="view-tab active" data-view="text">Text</button>'
        '<button type="button" class="view-tab" data-view="json">JSON</button>'
        + (
            f'<button type="button" class="open-app" data-call="{esc(app_call)}">Open app</button>'
            if app_call
            else ""
        )
        + "</div>"
    )
    text_view = []
    if shown.host_error:
        text_view.append(f'<p class="error">{esc(shown.text, 20000)}</p>')
    elif shown.failed:
        text_view.append('<p class="error">the tool reported an error</p>')
    if not shown.host_error:
        text_view.append(f'<pre class="result-text">{esc(shown.text, 20000)}</pre>')
    blocks = result.get("content")
    for item in blocks if isinstance(blocks, list) else ():
        if isinstance(item, dict) and item.get("type") == "image":
            text_view.append(_image(item))
    if result.get("structuredContent") is not None:
        text = json.dumps(result["structuredContent"], indent=2)
        text_view.append(f'<h4>structured</h4><pre class="result-json">{esc(text, 20000)}</pre>')
    whole = json.dumps(_summarised(result), indent=2, default=str)
    parts.append(f'<div class="view" data-view="text">{"".join(text_view)}</div>')
    parts.append(
        f'<div class="view" data-view="json" hidden><pre class="whole-json">{esc(whole, 50000)}'
        "</pre></div>"
    )
    parts.append('<div class="app-view" hidden></div>')
    return f'<section class="result" id="result">{"".join(parts)}</section>'


def _annotations(entry: ToolEntry) -> str:
    hints = {k: v for k, v in (entry.annotations or {}).items() if k != "title"}
    if not hints:
        return ""
    said = ", ".join(f"{esc(k)}={esc(json.dumps(v))}" for k, v in sorted(hints.items()))
    return f"<div class=muted>annotations: {said}</div>"


def _gated(row: ServerStatus) -> str | None:
    if not row.enabled:
        return "disabled in config.yaml"
    if not row.offered:
        return str(row.gate or row.last_error or row.availability or "")
    return None


def _tool(entry: ToolEntry, csrf: str, gated: str | None) -> str:
    title = f" — {esc(entry.title)}" if entry.title else ""
    head = f'<h2 id="tool-{esc(entry.name)}"><code>{esc(entry.name)}</code>{title}</h2>'
    kind = "host utility tool" if entry.utility else f"tool {esc(entry.tool)}"
    where = f"<div class=muted>{kind} of server <strong>{esc(entry.server)}</strong></div>"
    app = (
        f"<div class=muted>MCP App: <code>{esc(entry.app_uri)}</code> (Open app after a call)</div>"
        if entry.app_uri
        else ""
    )
    desc = f"<pre>{esc(entry.description, 3000)}</pre>" if entry.description.strip() else ""
    if gated is not None:
        return (
            f'<div class="tool gated">{head}{where}{desc}{_annotations(entry)}'
            f'<p class="warn">not offered: {esc(gated)}</p></div>'
        )
    form = (
        f'<form method="post" action="/tools/call" class="call" data-tool="{esc(entry.name)}">'
        f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
        f'<input type="hidden" name="tool" value="{esc(entry.name)}">'
        f"{form_fields(entry.input_schema)}<button type=submit>Call</button></form>"
        '<div class="progress" id="call-progress" hidden aria-live="polite"></div>'
    )
    return f'<div class="tool">{head}{where}{app}{desc}{_annotations(entry)}{form}</div>'


def _index_item(name: str, server: str, words: str, selected: str, note: str = "") -> str:
    mark = ' class="active" aria-current="true"' if name == selected else ""
    hay = esc(f"{name} {server} {words}".lower(), 600)
    extra = f" <em>{esc(note)}</em>" if note else ""
    return (
        f'<li data-search="{hay}"><a href="/tools?tool={quote(name, safe="")}"{mark}>'
        f"<code>{esc(name)}</code>{extra}</a></li>"
    )


def tools_body(
    entries: list[ToolEntry],
    rows: list[ServerStatus],
    unoffered: dict[str, dict[str, str]],
    csrf: str,
    selected: str = "",
    result: str = "",
) -> str:
    """The index of every server's tools (and why some are not offered) and *selected*'s
    form (the first offered tool when none is chosen), with *result* under it."""
    by_server: dict[str, list[ToolEntry]] = {}
    for entry in entries:
        by_server.setdefault(entry.server, []).append(entry)
    index, chosen, first = [], None, None
    for row in rows:
        name, gated = row.server, _gated(row)
        own = by_server.get(name, [])
        index.append(f'<li class="group">{esc(name)} <span class=muted>({len(own)})</span></li>')
        if gated and not own:
            index.append(f'<li class="muted">no tools offered: {esc(gated, 300)}</li>')
        for entry in own:
            words = f"{entry.title or ''} {entry.description[:300]}"
            note = "not offered" if gated else ("app" if entry.app_uri else "")
            note = note or ("host utility" if entry.utility else "")
            index.append(_index_item(entry.name, name, words, selected, note))
            if entry.name == selected:
                chosen = (entry, gated)
            if first is None and gated is None and not entry.utility:
                first = (entry, gated)
        for tool, reason in sorted(unoffered.get(name, {}).items()):
            index.append(
                f'<li class="muted"><code>{esc(tool)}</code>: not offered: {esc(reason, 300)}</li>'
            )
    if not rows:
        return "<p>No server is configured. <a href=/servers/add>Add one</a>.</p>"
    chosen = chosen or first
    pane = _tool(chosen[0], csrf, chosen[1]) if chosen else "<p>No tool is offered.</p>"
    if selected and (chosen is None or chosen[0].name != selected):
        pane = f'<p class="warn">no tool named {esc(selected)} is registered</p>' + pane
    return (
        '<div class="split"><aside class="tool-index">'
        '<input type="search" id="tool-search" placeholder="Search tools" '
        'aria-label="Search tools" autocomplete="off">'
        f'<ul id="tool-list">{"".join(index)}</ul></aside>'
        f'<section class="tool-pane">{pane}<div id="result-pane">{result}</div></section></div>'
    )
