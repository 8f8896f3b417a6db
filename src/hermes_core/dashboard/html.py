"""The dashboard's HTML: escaping, the page frame, and its stylesheet and script (served by
the dashboard itself: no CDN, no build step, works offline)."""

from __future__ import annotations

import functools
import html
from collections.abc import Iterable
from importlib import resources

from hermes_core.sanitize import clean_text

__all__ = ["button_form", "esc", "frame", "link", "static_file", "table"]

NAV = (
    ("/", "MCP servers"),
    ("/tools", "Tools"),
    ("/resources", "Resources"),
    ("/prompts", "Prompts"),
    ("/history", "History"),
    ("/log", "Log"),
    ("/catalog", "Catalog"),
    ("/pending", "Pending"),
)


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
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)} · Hermes</title>"
        '<link rel="stylesheet" href="/static/style.css"></head>'
        f'<body><header><strong>Hermes</strong><nav aria-label="pages">{nav}</nav></header><main>'
        f"<h1>{esc(title)}</h1>{said}{body}</main>"
        '<script src="/static/live.js"></script><script src="/static/work.js"></script>'
        "</body></html>"
    )


_STATIC = {"style.css": "text/css", "live.js": "text/javascript", "work.js": "text/javascript"}


@functools.cache
def _read_static(name: str) -> str:
    return (resources.files(__package__) / "static" / name).read_text(encoding="utf-8")


def static_file(name: str) -> tuple[str, str] | None:
    """The dashboard's own stylesheet or script *name* and its media type; ``None`` for any
    other name."""
    kind = _STATIC.get(name)
    return None if kind is None else (_read_static(name), kind)
