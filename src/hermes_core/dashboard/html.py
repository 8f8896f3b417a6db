"""The dashboard's HTML: escaping, the page frame, and its stylesheet and script (served by
the dashboard itself: no CDN, no build step, works offline)."""

from __future__ import annotations

import html
from collections.abc import Iterable

from hermes_core.sanitize import clean_text

__all__ = ["SCRIPT", "STYLE", "button_form", "esc", "frame", "link", "table"]

NAV = (("/", "MCP servers"), ("/tools", "Tools"), ("/catalog", "Catalog"), ("/pending", "Pending"))


def esc(value: object, limit: int = 4000) -> str:
    """*value* as HTML text: invisible/control characters stripped, bounded, escaped."""
    text = clean_text("" if value is None else str(value))
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return html.escape(text, quote=True)


def link(url: str | None) -> str:
    """An ``http(s)`` URL as a link (opened without a referrer); anything else as text."""
    if not url:
        return "-"
    if url.startswith(("https://", "http://")):
        return f'<a href="{esc(url)}" rel="noopener noreferrer" target="_blank">{esc(url)}</a>'
    return f"<code>{esc(url)}</code>"


def button_form(action: str, label: str, csrf: str, *, danger: bool = False) -> str:
    """A one-button POST form to *action*, with the CSRF token."""
    kind = ' class="danger"' if danger else ""
    return (
        f'<form method="post" action="{esc(action)}" class="inline">'
        f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
        f'<button type="submit"{kind}>{esc(label)}</button></form>'
    )


def table(headers: Iterable[str], rows: Iterable[Iterable[str]], css: str = "") -> str:
    """A table; cells are HTML already escaped by the caller."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{esc(css)}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def frame(title: str, body: str, *, active: str, notice: str = "", error: str = "") -> str:
    """A whole page: the navigation (with the live pending count), a notice, the body."""
    nav = "".join(
        f'<a href="{href}"{" class=active" if href == active else ""}>{esc(label)}'
        + (' <span id="pending-count" class="badge"></span>' if href == "/pending" else "")
        + "</a>"
        for href, label in NAV
    )
    said = f'<p class="notice">{esc(notice)}</p>' if notice else ""
    said += f'<p class="error">{esc(error)}</p>' if error else ""
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{esc(title)} · Hermes</title>"
        '<link rel="stylesheet" href="/static/style.css"></head>'
        f"<body><header><strong>Hermes</strong><nav>{nav}</nav></header><main>"
        f"<h1>{esc(title)}</h1>{said}{body}</main>"
        '<script src="/static/live.js"></script></body></html>'
    )


STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
header{display:flex;gap:2em;align-items:center;padding:.6em 1.2em;background:#23314a;color:#fff}
header a{color:#cfe0ff;margin-right:1.2em;text-decoration:none}
header a.active{color:#fff;font-weight:bold;text-decoration:underline}
main{padding:1em 1.5em;max-width:1400px}
table{border-collapse:collapse;width:100%;margin:.5em 0 1.5em;background:#fff}
th,td{border:1px solid #ddd;padding:.35em .5em;text-align:left;vertical-align:top}
th{background:#eef1f6}
pre{white-space:pre-wrap;background:#f3f3f3;padding:.5em;margin:.2em 0;max-height:24em;
overflow:auto}
.inline{display:inline}
code.argv{white-space:pre-wrap;overflow-wrap:anywhere}
button{margin:.1em .2em;cursor:pointer}
button.danger{color:#a00}
.notice{background:#e6f4ea;padding:.5em;border-left:4px solid #2a7}
.error{background:#fdecea;padding:.5em;border-left:4px solid #c33}
.warn{color:#a60;font-weight:bold}
.badge{background:#c33;color:#fff;border-radius:1em;padding:0 .5em}
.badge:empty{display:none}
.state-connected{color:#176e2c;font-weight:bold}
.state-failed{color:#b00;font-weight:bold}
.state-not-running{color:#a60;font-weight:bold}
.tool{background:#fff;border:1px solid #ddd;padding:.6em 1em;margin:.8em 0}
.tool label{display:block;margin:.3em 0}
.muted{color:#777}
img.result{max-width:320px;border:1px solid #ccc}
"""

SCRIPT = """
(function(){
  async function poll(){
    try{
      const r=await fetch('/api/state',{credentials:'same-origin',cache:'no-store'});
      if(!r.ok) return;
      const s=await r.json();
      const badge=document.getElementById('pending-count');
      if(badge) badge.textContent=s.pending.length?String(s.pending.length):'';
      for(const row of s.servers){
        const el=document.querySelector('[data-state-of="'+CSS.escape(row.server)+'"]');
        if(el && el.textContent!==row.connection){
          el.textContent=row.connection;
          el.className='state-'+(row.connection.toLowerCase().match(/[a-z0-9]+/g)||[]).join('-');
        }
        const t=document.querySelector('[data-tools-of="'+CSS.escape(row.server)+'"]');
        if(t) t.textContent=String(row.tools);
      }
      const list=document.getElementById('pending-list');
      if(list && list.dataset.ids!==s.pending.join(',')){
        const f=await fetch('/pending/list',{credentials:'same-origin',cache:'no-store'});
        if(f.ok){ list.outerHTML=await f.text(); }
      }
    }catch(e){}
  }
  poll(); setInterval(poll,1500);
})();
"""
