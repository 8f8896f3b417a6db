"""The Resources and Prompts pages: every server's resources (each with *Read*), its resource
templates (a field per ``{variable}`` of the URI template), its prompts (a field per
argument), and what a read or a rendered prompt gave back."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from urllib.parse import quote, urlencode

from hermes_core.dashboard.browse import Listing
from hermes_core.dashboard.html import esc, table
from hermes_core.dashboard.tools_page import IMAGE_TYPES, MAX_IMAGE
from hermes_core.host.calls.result_text import block_text

__all__ = [
    "expand_template",
    "prompt_html",
    "prompts_body",
    "read_html",
    "resources_body",
    "template_variables",
]

_MIME = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]{0,63}/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}")
# RFC 6570 expressions; level 1 (``{var}``) and reserved (``{+var}``) are filled in here.
_EXPRESSION = re.compile(r"\{([+#./;?&]?)([A-Za-z0-9_.,%*:]+)\}")


def template_variables(template: str) -> list[str]:
    """The variables of a URI template, in order, once each."""
    names: list[str] = []
    for _op, spec in _EXPRESSION.findall(template):
        for part in spec.split(","):
            name = part.split(":", 1)[0].rstrip("*")
            if name and name not in names:
                names.append(name)
    return names


def expand_template(template: str, values: Mapping[str, str]) -> str:
    """*template* filled with *values* (``{var}`` percent-encoded, ``{+var}`` keeping
    reserved characters such as ``/``)."""

    def one(match: re.Match[str]) -> str:
        op, spec = match.group(1), match.group(2)
        safe = ":/?#[]@!$&'()*+,;=" if op in ("+", "#") else ""
        parts = [
            quote(values.get(p.split(":", 1)[0].rstrip("*"), ""), safe=safe)
            for p in spec.split(",")
        ]
        return ("#" if op == "#" else "") + ",".join(parts)

    return _EXPRESSION.sub(one, template)


def _problem(listing: Listing) -> str:
    return f'<p class="warn">{esc(listing.problem)}</p>' if listing.problem else ""


def _read_link(server: str, uri: str) -> str:
    query = urlencode({"server": server, "uri": uri})
    return f'<a class="read" href="/resources/read?{esc(query)}">Read</a>'


def resources_body(resources: list[Listing], templates: list[Listing]) -> str:
    """Each server's resources and templates (servers with neither are left out)."""
    parts = []
    by_server = {t.server: t for t in templates}
    for listing in resources:
        tmpl = by_server.get(listing.server, Listing(listing.server, []))
        if not (listing.items or tmpl.items or listing.problem or tmpl.problem):
            continue
        parts.append(f'<h2 id="server-{esc(listing.server)}">{esc(listing.server)}</h2>')
        parts.append(_problem(listing) + _problem(tmpl))
        if listing.note:
            parts.append(f"<p class=muted>{esc(listing.note)}</p>")
        if listing.items:
            rows = [
                [
                    f"<code class=uri>{esc(item.get('uri'))}</code>",
                    esc(item.get("title") or item.get("name")),
                    esc(item.get("mimeType") or "-"),
                    esc(item.get("description") or "", 400),
                    _read_link(listing.server, str(item.get("uri", ""))),
                ]
                for item in listing.items
            ]
            parts.append(table(["URI", "Name", "Type", "Description", ""], rows, "resources"))
        for item in tmpl.items:
            template = str(item.get("uriTemplate", ""))
            fields = "".join(
                f'<label>{esc(name)} <input name="var:{esc(name)}" required></label>'
                for name in template_variables(template)
            )
            parts.append(
                f'<form method="get" action="/resources/read" class="template">'
                f"<h3><code>{esc(template)}</code> {esc(item.get('name') or '')}</h3>"
                f"<p class=muted>{esc(item.get('description') or '', 400)}</p>"
                f'<input type="hidden" name="server" value="{esc(listing.server)}">'
                f'<input type="hidden" name="template" value="{esc(template)}">'
                f"{fields}<button type=submit>Read</button></form>"
            )
    return "".join(parts) or "<p>No server offers resources here.</p>"


def _content(item: Mapping[str, object]) -> str:
    head = f"<h3><code class=uri>{esc(item.get('uri'))}</code> " + (
        f"<span class=muted>{esc(item.get('mimeType') or '')}</span></h3>"
    )
    if isinstance(item.get("text"), str):
        return head + f'<pre class="resource-text">{esc(item["text"], 100000)}</pre>'
    blob = item.get("blob")
    mime = item.get("mimeType")
    if isinstance(blob, str) and mime in IMAGE_TYPES and len(blob) <= MAX_IMAGE:
        try:
            base64.b64decode(blob, validate=True)
            return head + f'<img class="result" alt="resource" src="data:{mime};base64,{blob}">'
        except (binascii.Error, ValueError):
            pass
    size = len(blob) * 3 // 4 if isinstance(blob, str) else 0
    return head + (
        f"<p class=muted>binary, about {size} bytes{_download(item)} (or save it with "
        f"<code>hermes mcp read URI -o FILE</code>)</p>"
    )


def _download(item: Mapping[str, object]) -> str:
    """A download link for a binary resource (at most 4 MiB of valid base64)."""
    blob, mime = item.get("blob"), str(item.get("mimeType") or "")
    if not isinstance(blob, str) or len(blob) > MAX_IMAGE:
        return ""
    try:
        base64.b64decode(blob, validate=True)
    except (binascii.Error, ValueError):
        return ""
    kind = mime if _MIME.fullmatch(mime) else "application/octet-stream"
    name = str(item.get("uri", "resource")).rstrip("/").rsplit("/", 1)[-1] or "resource"
    return (
        f' — <a class="download" download="{esc(name, 200)}" '
        f'href="data:{kind};base64,{blob}">download</a>'
    )


def read_html(server: str, uri: str, result: Mapping[str, object]) -> str:
    """What reading *uri* gave back: its contents, or why not."""
    if "error" in result:
        return f'<p class="error">{esc(result["error"])}</p>'
    content = result.get("content")
    blocks = [
        b["resource"]
        for b in (content if isinstance(content, list) else ())
        if isinstance(b, Mapping) and isinstance(b.get("resource"), Mapping)
    ]
    body = "".join(_content(item) for item in blocks) or "<p>The resource has no contents.</p>"
    return f'<section class="result" id="result"><p class=muted>{esc(server)}</p>{body}</section>'


def prompts_body(prompts: list[Listing]) -> str:
    """Each server's prompts, each with its arguments form."""
    parts = []
    for listing in prompts:
        if not (listing.items or listing.problem):
            continue
        parts.append(f"<h2>{esc(listing.server)}</h2>{_problem(listing)}")
        for item in listing.items:
            name = str(item.get("name", ""))
            fields = []
            listed = item.get("arguments")
            for arg in listed if isinstance(listed, list) else ():
                if not isinstance(arg, Mapping):
                    continue
                required = arg.get("required") is True
                fields.append(
                    f"<label>{esc(arg.get('name'))}{' *' if required else ''} "
                    f'<input name="arg:{esc(arg.get("name"))}"{" required" if required else ""}>'
                    f" <span class=muted>{esc(arg.get('description') or '', 300)}</span></label>"
                )
            parts.append(
                f'<form method="get" action="/prompts/get" class="prompt">'
                f"<h3><code>{esc(name)}</code> {esc(item.get('title') or '')}</h3>"
                f"<p class=muted>{esc(item.get('description') or '', 400)}</p>"
                f'<input type="hidden" name="server" value="{esc(listing.server)}">'
                f'<input type="hidden" name="name" value="{esc(name)}">'
                f"{''.join(fields)}<button type=submit>Get</button></form>"
            )
    return "".join(parts) or "<p>No server offers prompts here.</p>"


def prompt_html(name: str, result: Mapping[str, object]) -> str:
    """The rendered prompt: each message with its role."""
    if "error" in result:
        return f'<p class="error">{esc(result["error"])}</p>'
    data = result.get("structuredContent")
    if not isinstance(data, Mapping):
        data = {}
    parts = [f"<h3>Prompt <code>{esc(name)}</code></h3>"]
    if data.get("description"):
        parts.append(f"<p>{esc(data['description'])}</p>")
    for message in data.get("messages") or ():
        if not isinstance(message, Mapping):
            continue
        shown = block_text(message.get("content"))
        parts.append(
            f'<div class="message"><strong>{esc(message.get("role"))}</strong>'
            f'<pre class="message-text">{esc(shown, 50000)}</pre></div>'
        )
    return f'<section class="result" id="result">{"".join(parts)}</section>'
